package testenv

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/audio"
)

// Clip is one real human recording with its reference transcript.
type Clip struct {
	Name      string
	Reference string
	Samples   []float32 // 16 kHz mono
}

// RealSpeech returns the recordings scripts/speech.sh put in the cache
// (listed in its manifest.tsv), or stops the test.
func RealSpeech(t testing.TB) []Clip {
	t.Helper()
	dir := filepath.Join(Cache(), "speech")
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		Require(t, "real speech set "+dir, "bash scripts/speech.sh")
	}
	defer f.Close()
	var clips []Clip
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		file, ref, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		s, err := audio.LoadWAV16k(filepath.Join(dir, file))
		if err != nil {
			t.Fatalf("real speech: %v (re-run scripts/speech.sh)", err)
		}
		clips = append(clips, Clip{Name: strings.TrimSuffix(file, ".wav"), Reference: ref, Samples: s})
	}
	if err := sc.Err(); err != nil || len(clips) == 0 {
		t.Fatalf("real speech manifest %s: empty or unreadable (%v); re-run scripts/speech.sh", f.Name(), err)
	}
	return clips
}

// VADDir returns the folder scripts/vad.sh fills with the Silero model and
// the ONNX Runtime library, or stops the test.
func VADDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(Cache(), "vad")
	if _, err := os.Stat(filepath.Join(dir, ".complete-1")); err != nil {
		Require(t, "speech detector files in "+dir, "bash scripts/vad.sh")
	}
	return dir
}
