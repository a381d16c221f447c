package testenv

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
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
	Gaps      []int     // a joined recording's pauses, by first sample (Join)
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

// Join joins parts into one recording with 0.3 s of faint room noise (about
// -54 dBFS, drawn from rng) between them and 0.4 s after the last: a longer
// dictation with real pauses. Gaps holds where each pause starts.
func Join(name string, parts []Clip, rng *rand.Rand) Clip {
	noise := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 0.002)
		}
		return x
	}
	out := Clip{Name: name}
	var refs []string
	for i, p := range parts {
		if i > 0 {
			out.Gaps = append(out.Gaps, len(out.Samples))
			out.Samples = append(out.Samples, noise(16000*3/10)...)
		}
		out.Samples = append(out.Samples, p.Samples...)
		refs = append(refs, p.Reference)
	}
	out.Samples = append(out.Samples, noise(16000*4/10)...)
	out.Reference = strings.Join(refs, " ")
	return out
}

// Joined is Join over clips of the real-speech set, by name (one speaker's
// consecutive ones), with the same room noise every run.
func Joined(t testing.TB, clips []Clip, names ...string) Clip {
	t.Helper()
	parts := make([]Clip, 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(clips, func(c Clip) bool { return c.Name == n })
		if i < 0 {
			t.Fatalf("real speech: no clip %q (re-run scripts/speech.sh)", n)
		}
		parts = append(parts, clips[i])
	}
	return Join(strings.Join(names, "+"), parts, rand.New(rand.NewPCG(4, 4)))
}
