package testenv

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
		s, err := readPCM16(filepath.Join(dir, file))
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

// readPCM16 reads the 16 kHz mono 16-bit WAVs speech.sh writes (internal/audio
// cannot be used here: its tests use this package).
func readPCM16(path string) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(b, []byte("data"))
	if len(b) < 44 || string(b[:4]) != "RIFF" || i < 0 || i+8 > len(b) {
		return nil, fmt.Errorf("%s: not a PCM WAV file", path)
	}
	data := b[i+8:]
	s := make([]float32, len(data)/2)
	for k := range s {
		s[k] = float32(int16(binary.LittleEndian.Uint16(data[2*k:]))) / 32768
	}
	return s, nil
}

// Joined is clips of the real-speech set (one speaker's consecutive ones, by
// name) joined into one longer recording, with 0.3 s of faint room noise
// (about -50 dBFS) after each: a dictation with real pauses.
func Joined(t testing.TB, clips []Clip, names ...string) Clip {
	t.Helper()
	gap := PinkNoise(0.3, 5)
	for i := range gap {
		gap[i] *= 0.1
	}
	var out Clip
	var refs []string
	for _, n := range names {
		i := slices.IndexFunc(clips, func(c Clip) bool { return c.Name == n })
		if i < 0 {
			t.Fatalf("real speech: no clip %q (re-run scripts/speech.sh)", n)
		}
		out.Samples = append(append(out.Samples, clips[i].Samples...), gap...)
		refs = append(refs, clips[i].Reference)
	}
	out.Name, out.Reference = strings.Join(names, "+"), strings.Join(refs, " ")
	return out
}
