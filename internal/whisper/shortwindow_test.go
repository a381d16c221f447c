package whisper_test

import (
	"context"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

func openDetector(t *testing.T) *vad.Detector {
	t.Helper()
	lib, model, err := vad.Find(testenv.VADDir(t))
	if err != nil {
		t.Fatal(err)
	}
	d, err := vad.Open(lib, model, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// fullWindow is decoding exactly as before the short window and the speech
// detector: faster-whisper's policy on 30-s windows.
func fullWindow() whisper.Options {
	o := whisper.DefaultOptions()
	o.ShortWindow, o.DetectSpeech = false, false
	return o
}

// The default decoding (speech detector + short window) never does worse
// than the full window, clip by clip, on real human speech and on the
// espeak sentences.
func TestDefaultDecodingNoWorseThanFullWindow(t *testing.T) {
	m := openBase(t)
	m.UseSpeechDetector(openDetector(t))
	clips := testenv.RealSpeech(t)
	for _, s := range sentences {
		clips = append(clips, testenv.Clip{Name: "espeak: " + s[:20], Reference: s, Samples: testenv.Speech(t, s)})
	}
	paths := map[string]int{}
	for _, c := range clips {
		t.Run(c.Name, func(t *testing.T) {
			for _, lang := range []string{"en", "auto"} {
				full := fullWindow()
				full.Language = lang
				want, err := m.Transcribe(context.Background(), c.Samples, full)
				if err != nil {
					t.Fatal(err)
				}
				def := whisper.DefaultOptions()
				def.Language = lang
				got, err := m.Transcribe(context.Background(), c.Samples, def)
				if err != nil {
					t.Fatal(err)
				}
				paths[got.Path]++
				fw, dw := whisper.WordErrorRate(c.Reference, want.Text), whisper.WordErrorRate(c.Reference, got.Text)
				t.Logf("language %s: full %.2f %q; default (%s %s) %.2f %q", lang, fw, want.Text, got.Path, got.FallbackReason, dw, got.Text)
				if dw > fw+1e-9 {
					t.Errorf("language %s: default WER %.2f > full window's %.2f: %q vs %q (path %s)", lang, dw, fw, got.Text, want.Text, got.Path)
				}
				if got.Path != whisper.PathShort && got.Path != whisper.PathShortThenFull {
					t.Errorf("language %s: path %q; a clip under 10 s must try the short window", lang, got.Path)
				}
			}
		})
	}
	t.Logf("paths taken: %v", paths)
	if paths[whisper.PathShort] < len(clips) {
		t.Errorf("the short window was kept for only %d of %d decodes: it saves no time", paths[whisper.PathShort], 2*len(clips))
	}
}

// countingEngine passes calls to the real engine and counts them.
type countingEngine struct {
	whisper.Engine
	calls atomic.Int64
}

func (c *countingEngine) DetectLanguage(ctx context.Context, w engine.Window) ([]engine.LangProb, error) {
	c.calls.Add(1)
	return c.Engine.DetectLanguage(ctx, w)
}

func (c *countingEngine) Generate(ctx context.Context, w engine.Window, r engine.GenerateRequest) (engine.GenerateResult, error) {
	c.calls.Add(1)
	return c.Engine.Generate(ctx, w, r)
}

// A press with no speech in it gives no text and never reaches the engine;
// one with speech still does.
func TestNoSpeechPressesSkipTheEngine(t *testing.T) {
	m := openBase(t)
	eng := &countingEngine{Engine: m.Client}
	tr := whisper.NewTranscriber(eng, m.Tok, 80, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	tr.UseSpeechDetector(openDetector(t))
	for _, tc := range []struct {
		name    string
		samples []float32
	}{
		{"pink noise", testenv.PinkNoise(3, 11)},
		{"clicks", testenv.Clicks(2, 12)},
		{"breathing", testenv.Breathing(4, 13)},
		{"clicks over pink noise", mix(testenv.Clicks(3, 14), testenv.PinkNoise(3, 15))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := eng.calls.Load()
			res, err := tr.Transcribe(context.Background(), tc.samples, whisper.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "" || len(res.Segments) != 0 {
				t.Errorf("text %q from a press with no speech", res.Text)
			}
			if n := eng.calls.Load() - before; n != 0 {
				t.Errorf("%d engine calls for a press with no speech, want 0 (path %s)", n, res.Path)
			}
			if res.Path != whisper.PathNoSpeech && res.Path != whisper.PathSilent {
				t.Errorf("path %q, want %q or %q", res.Path, whisper.PathNoSpeech, whisper.PathSilent)
			}
			t.Logf("path %s in %v", res.Path, res.Timings.Total)
		})
	}
	const said = "Please call me back when you get this message."
	speech := mix(append(append(make([]float32, 8000), testenv.Speech(t, said)...), make([]float32, 16000)...), testenv.PinkNoise(4, 16))
	before := eng.calls.Load()
	res, err := tr.Transcribe(context.Background(), speech, whisper.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if eng.calls.Load() == before || whisper.WordErrorRate(said, res.Text) > 0.15 {
		t.Errorf("speech over noise: %d engine calls, text %q", eng.calls.Load()-before, res.Text)
	}
	if len(res.Segments) == 0 || res.Segments[0].Start < 0.2 {
		t.Errorf("segments %+v: times should count from the start of the recording, not of the trimmed speech", res.Segments)
	}
}

// mix adds b onto a (truncated or zero-extended to a's length).
func mix(a, b []float32) []float32 {
	out := append([]float32(nil), a...)
	for i := range min(len(a), len(b)) {
		out[i] += b[i]
	}
	return out
}
