package whisper

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

func TestPowerSpectrumMatchesDFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{2, 10, NFFT} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.Float64()*2 - 1
			}
			got := make([]float64, n/2+1)
			newSpectrum(n).power(got, x)
			for k := range got {
				var s complex128
				for j, v := range x {
					s += complex(v, 0) * cmplx.Exp(complex(0, -2*math.Pi*float64(j*k)/float64(n)))
				}
				want := real(s)*real(s) + imag(s)*imag(s)
				if math.Abs(got[k]-want) > 1e-9*float64(n) {
					t.Fatalf("bin %d: got %v, want %v", k, got[k], want)
				}
			}
		})
	}
}

func TestLogMelErrors(t *testing.T) {
	tests := []struct {
		name    string
		samples []float32
		nMels   int
		want    string
	}{
		{name: "bad mel count", samples: make([]float32, 10), nMels: 40, want: "40 mel bins is not supported"},
		{name: "empty", samples: nil, nMels: 80, want: "no audio samples"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LogMel(tc.samples, tc.nMels)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LogMel error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestMelWindow(t *testing.T) {
	m := &Mel{NMels: 2, Frames: 5, Data: []float32{1, 2, 3, 4, 5, 11, 12, 13, 14, 15}}
	tests := []struct {
		name       string
		seek, size int
		want       [2][]float32 // leading frames of each bin; the rest must be 0
	}{
		{name: "whole", seek: 0, size: 5, want: [2][]float32{{1, 2, 3, 4, 5}, {11, 12, 13, 14, 15}}},
		{name: "middle", seek: 1, size: 2, want: [2][]float32{{2, 3}, {12, 13}}},
		{name: "past end", seek: 3, size: 3000, want: [2][]float32{{4, 5}, {14, 15}}},
		{name: "beyond", seek: 7, size: 10, want: [2][]float32{{}, {}}},
		{name: "empty size", seek: 0, size: 0, want: [2][]float32{{}, {}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := m.Window(tc.seek, tc.size)
			if len(w) != 2*NFrames {
				t.Fatalf("len = %d, want %d", len(w), 2*NFrames)
			}
			for b := range 2 {
				row := w[b*NFrames : (b+1)*NFrames]
				for i, v := range row {
					want := float32(0)
					if i < len(tc.want[b]) {
						want = tc.want[b][i]
					}
					if v != want {
						t.Fatalf("bin %d frame %d = %v, want %v", b, i, v, want)
					}
				}
			}
		})
	}
}

// TestLogMelMatchesFasterWhisper feeds identical float32 samples to LogMel and
// to faster-whisper's FeatureExtractor in the project venv.
func TestLogMelMatchesFasterWhisper(t *testing.T) {
	py := testenv.Python(t)
	speech := speechSamples(t, "The quick brown fox jumps over the lazy dog. Dictation should work on the first try.")
	rng := rand.New(rand.NewPCG(5, 6))
	noise := make([]float32, 16000+37)
	for i := range noise {
		noise[i] = float32(rng.Float64()*0.2 - 0.1)
	}
	inputs := []struct {
		name    string
		samples []float32
	}{
		{name: "speech", samples: speech},
		{name: "one sample", samples: []float32{0.25}},
		{name: "shorter than a frame", samples: noise[:100]},
		{name: "not a hop multiple", samples: noise},
		{name: "exactly 30 s", samples: tile(speech, NSamples)},
		{name: "over 30 s", samples: tile(speech, NSamples+12345)},
	}
	// One interpreter run for every case keeps the test fast.
	type job struct {
		name   string
		nMels  int
		in     []float32
		outRef string
	}
	dir := t.TempDir()
	var jobs []job
	var spec []map[string]any
	for i, in := range inputs {
		inPath := filepath.Join(dir, fmt.Sprintf("in%d.f32", i))
		writeF32(t, inPath, in.samples)
		for _, nMels := range []int{80, 128} {
			out := filepath.Join(dir, fmt.Sprintf("out%d_%d.f32", i, nMels))
			jobs = append(jobs, job{name: fmt.Sprintf("%s/%d", in.name, nMels), nMels: nMels, in: in.samples, outRef: out})
			spec = append(spec, map[string]any{"in": inPath, "n_mels": nMels, "out": out})
		}
	}
	specPath := filepath.Join(dir, "jobs.json")
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(specPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join("testdata", "features_ref.py"), specPath).CombinedOutput()
	if err != nil {
		t.Fatalf("reference: %v\n%s", err, out)
	}
	shapes := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(shapes) != len(jobs) {
		t.Fatalf("reference printed %d shapes for %d jobs:\n%s", len(shapes), len(jobs), out)
	}

	for i, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			var refMels, refFrames int
			if _, err := fmt.Sscan(shapes[i], &refMels, &refFrames); err != nil {
				t.Fatalf("reference shape %q: %v", shapes[i], err)
			}
			ref := testenv.ReadF32(t, j.outRef)
			got, err := LogMel(j.in, j.nMels)
			if err != nil {
				t.Fatal(err)
			}
			if got.NMels != refMels || got.Frames != refFrames {
				t.Fatalf("shape = [%d %d], reference [%d %d]", got.NMels, got.Frames, refMels, refFrames)
			}
			if want := len(j.in)/HopLength + 1; got.Frames != want {
				t.Fatalf("frames = %d, want len/160+1 = %d", got.Frames, want)
			}
			worst, at := 0.0, 0
			for k, v := range got.Data {
				if d := math.Abs(float64(v) - float64(ref[k])); d > worst {
					worst, at = d, k
				}
			}
			t.Logf("max abs diff %.3g", worst)
			if worst > 1e-3 {
				t.Fatalf("bin %d frame %d: got %v, reference %v (diff %.3g)",
					at/got.Frames, at%got.Frames, got.Data[at], ref[at], worst)
			}
		})
	}
}

// speechSamples synthesises text with espeak-ng and converts it with sox to
// 16 kHz mono s16, returned as float32 in [-1, 1) like faster-whisper's
// decode_audio.
func speechSamples(t testing.TB, text string) []float32 {
	t.Helper()
	for _, tool := range []string{"espeak-ng", "sox"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Require(t, tool, "apt-get install espeak-ng sox")
		}
	}
	dir := t.TempDir()
	wav := filepath.Join(dir, "speech.wav")
	raw := filepath.Join(dir, "speech.s16")
	if out, err := exec.Command("espeak-ng", "-w", wav, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v\n%s", err, out)
	}
	if out, err := exec.Command("sox", wav, "-t", "raw", "-r", "16000", "-c", "1",
		"-e", "signed-integer", "-b", "16", "-L", raw).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v\n%s", err, out)
	}
	b, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	s := make([]float32, len(b)/2)
	for i := range s {
		s[i] = float32(int16(binary.LittleEndian.Uint16(b[2*i:]))) / 32768
	}
	if len(s) < SampleRate {
		t.Fatalf("espeak-ng produced only %d samples", len(s))
	}
	return s
}

func tile(s []float32, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = s[i%len(s)]
	}
	return out
}

func writeF32(t testing.TB, path string, s []float32) {
	t.Helper()
	b := make([]byte, 4*len(s))
	for i, v := range s {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkLogMel(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, secs := range []int{5, 30} {
		samples := make([]float32, secs*SampleRate)
		for i := range samples {
			samples[i] = float32(rng.Float64()*2 - 1)
		}
		b.Run(fmt.Sprintf("%ds", secs), func(b *testing.B) {
			for b.Loop() {
				if _, err := LogMel(samples, 80); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// LogMel's worker goroutines end before it returns, concurrent calls share
// the per-size tables safely, and the result does not depend on the split.
func TestLogMelConcurrentDeterministicNoLeak(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rng := rand.New(rand.NewPCG(9, 10))
	samples := make([]float32, 7*SampleRate+3)
	for i := range samples {
		samples[i] = float32(rng.Float64()*2 - 1)
	}
	want, err := LogMel(samples, 128)
	if err != nil {
		t.Fatal(err)
	}
	// The serial path (one worker) is the reference for the split.
	e := extractor128()
	padded := newPaddedAudio(samples)
	serial := &Mel{NMels: 128, Frames: want.Frames, Data: make([]float32, len(want.Data))}
	top := e.frames(serial, padded, 0, serial.Frames)
	for i, v := range serial.Data {
		if got := (max(v, top-dynRangeLog) + 4) / 4; got != want.Data[i] {
			t.Fatalf("value %d: parallel %v, serial %v", i, want.Data[i], got)
		}
	}
	var wg sync.WaitGroup
	results := make([]*Mel, 4)
	for i := range results {
		wg.Go(func() { results[i], _ = LogMel(samples, 128) })
	}
	wg.Wait()
	for i, r := range results {
		if r == nil || !slices.Equal(r.Data, want.Data) {
			t.Fatalf("concurrent call %d differs", i)
		}
	}
}

// The padded signal read in place is numpy's reflect padding of the
// recording and its zeros, value for value: short recordings, where the
// mirror wraps, and long ones.
func TestPaddedAudio(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 199, 200, 201, 400, 401, 1000, 3*SampleRate + 7} {
		samples := make([]float32, n)
		for i := range samples {
			samples[i] = float32(rng.Float64()*2 - 1)
		}
		want := reflectPadded(samples)
		p := newPaddedAudio(samples)
		buf := make([]float32, NFFT)
		for f := range n/HopLength + 1 {
			got := p.frame(f, buf)
			for k, v := range got {
				if w := want[f*HopLength+k]; v != w {
					t.Fatalf("%d samples, frame %d, sample %d: %v, want %v", n, f, k, v, w)
				}
			}
		}
	}
}

// reflectPadded is the copy paddedAudio replaced, as the reference: it returns samples followed by padSamples zeros, extended by
// reflectPad samples on each side with numpy's "reflect" mode (mirror without
// repeating the edge, periodically when the pad exceeds the signal).
func reflectPadded(samples []float32) []float32 {
	l := len(samples) + padSamples
	out := make([]float32, l+2*reflectPad)
	copy(out[reflectPad:], samples)
	period := 2 * (l - 1)
	at := func(j int) float32 {
		j %= period
		if j < 0 {
			j += period
		}
		if j >= l {
			j = period - j
		}
		if j < len(samples) {
			return samples[j]
		}
		return 0
	}
	for j := 1; j <= reflectPad; j++ {
		out[reflectPad-j] = at(-j)
		out[reflectPad+l-1+j] = at(l - 1 + j)
	}
	return out
}
