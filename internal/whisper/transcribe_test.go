package whisper_test

import (
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// TestMain doubles as the engine worker, which the client starts by
// re-executing this test binary.
func TestMain(m *testing.M) {
	testenv.ServeWorkerIfAsked()
	whisper.TokenizerJSONPeakIfAsked()
	os.Exit(m.Run())
}

func openBase(t *testing.T) *whisper.TestModel {
	t.Helper()
	spec := engine.Spec{LibDir: testenv.EngineDir(t), ModelDir: testenv.Model(t, "base"), Device: "cpu", ComputeType: "int8"}
	return whisper.OpenTestModel(t, spec, testenv.WorkerOptions(), testlog.New(t, slog.LevelWarn))
}

func TestSpokenSentences(t *testing.T) {
	m := openBase(t)
	for _, s := range whisper.Sentences {
		t.Run(s[:20], func(t *testing.T) {
			res, err := m.Transcribe(context.Background(), testenv.Speech(t, s), whisper.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			wer := whisper.WordErrorRate(s, res.Text)
			t.Logf("WER %.2f  %q", wer, res.Text)
			if wer > 0.15 {
				t.Errorf("WER %.2f > 0.15: got %q, want %q", wer, res.Text, s)
			}
			if res.Language != "en" {
				t.Errorf("language %q, want en", res.Language)
			}
		})
	}
}

// More than 60 s of speech is decoded window by window; every sentence comes
// back once, in order.
func TestLongAudioCompleteAndInOrder(t *testing.T) {
	m := openBase(t)
	var audio []float32
	var ref []string
	gap := make([]float32, whisper.SampleRate/2)
	for len(audio) < 62*whisper.SampleRate {
		for _, s := range whisper.Sentences {
			audio = append(append(audio, testenv.Speech(t, s)...), gap...)
			ref = append(ref, s)
		}
	}
	res, err := m.Transcribe(context.Background(), audio, whisper.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(ref, " ")
	wer := whisper.WordErrorRate(want, res.Text)
	t.Logf("%.1f s of audio, %d segments, WER %.3f", res.Duration, len(res.Segments), wer)
	if wer > 0.15 {
		t.Fatalf("WER %.3f > 0.15\n got: %s\nwant: %s", wer, res.Text, want)
	}
	// Order: each sentence's normalised text is found after the previous one.
	got := whisper.Normalize(res.Text)
	pos := 0
	found := 0
	for _, s := range ref {
		key := strings.Join(strings.Fields(whisper.Normalize(s))[:3], " ")
		if i := strings.Index(got[pos:], key); i >= 0 {
			pos += i + len(key)
			found++
		}
	}
	if found < len(ref)-1 {
		t.Fatalf("only %d of %d sentences found in order in %q", found, len(ref), res.Text)
	}
	for i := 1; i < len(res.Segments); i++ {
		if res.Segments[i].Start < res.Segments[i-1].Start {
			t.Fatalf("segment %d starts before segment %d", i, i-1)
		}
	}
}

func TestSilenceAndNoiseGiveNoText(t *testing.T) {
	m := openBase(t)
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func(level float64) []float32 {
		s := make([]float32, 3*whisper.SampleRate)
		for i := range s {
			s[i] = float32(rng.NormFloat64() * level)
		}
		return s
	}
	hum := make([]float32, 3*whisper.SampleRate)
	for i := range hum {
		hum[i] = float32(0.003 * math.Sin(2*math.Pi*50*float64(i)/whisper.SampleRate))
	}
	cases := []struct {
		name    string
		samples []float32
	}{
		{"digital silence", make([]float32, 3*whisper.SampleRate)},
		{"noise at -70 dBFS", noise(0.0003)},
		{"noise at -50 dBFS", noise(0.003)},
		{"noise at -40 dBFS", noise(0.01)},
		{"mains hum", hum},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := m.Transcribe(context.Background(), tc.samples, whisper.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "" {
				t.Fatalf("got %q, want no text", res.Text)
			}
		})
	}
}

// A short dictation's features cross the worker pipe once, though language
// detection, the decode and the vocabulary's retry each ask the engine.
func TestOneWindowCrossesThePipeOnce(t *testing.T) {
	m := openBase(t)
	speech := testenv.Speech(t, "Call me back later.")
	o := whisper.DefaultOptions()
	o.Language, o.Vocabulary = "", []string{"Kubernetes", "Grafana"} // detect, decode, retry without the terms
	before := m.Client.FeatureBytes()
	if _, err := m.Transcribe(context.Background(), speech, o); err != nil {
		t.Fatal(err)
	}
	if got, want := m.Client.FeatureBytes()-before, uint64(80*whisper.NFrames*4); got != want {
		t.Fatalf("%d feature bytes for one window, want %d", got, want)
	}
}
