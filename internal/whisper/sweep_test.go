package whisper

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad/vadtest"
)

// BenchmarkShortWindowSweep prints, per clip of the real-speech set, the
// text and time of the full window and of short windows of several floors and
// margins: the measurements behind defaultShortWindow (docs/benchmarks.md).
// WHISPERKEY_SWEEP lists floor/margin pairs in frames, e.g. "1000/300 500/200";
// WHISPERKEY_SWEEP_CLIPS limits the clips. It takes minutes:
//
//	go test -run '^$' -bench ShortWindowSweep -benchtime 1x ./internal/whisper
func BenchmarkShortWindowSweep(b *testing.B) {
	t := b
	m := openBaseModel(t)
	m.UseSpeechDetector(vadtest.Open(t))
	beam, _ := strconv.Atoi(os.Getenv("WHISPERKEY_SWEEP_BEAM"))
	var configs []shortWindow
	for _, fm := range strings.Fields(os.Getenv("WHISPERKEY_SWEEP")) {
		f, mg, _ := strings.Cut(fm, "/")
		sw := defaultShortWindow
		sw.maxFrames = NFrames
		sw.floorFrames, _ = strconv.Atoi(f)
		sw.marginFrames, _ = strconv.Atoi(mg)
		configs = append(configs, sw)
	}
	clips := testenv.RealSpeech(t)
	for _, s := range append(Sentences, "Front left.", "Rear right.", "Yes.") {
		clips = append(clips, testenv.Clip{Name: "espeak " + s, Reference: s, Samples: testenv.Speech(t, s)})
	}
	run := func(c testenv.Clip, opt Options) (*Result, time.Duration) {
		best := time.Hour
		var res *Result
		for range 2 {
			r, err := m.Transcribe(context.Background(), c.Samples, opt)
			if err != nil {
				t.Fatal(err)
			}
			best = min(best, r.Timings.Engine)
			res = r
		}
		return res, best
	}
	for _, c := range clips {
		if f := os.Getenv("WHISPERKEY_SWEEP_CLIPS"); f != "" && !strings.Contains(f, c.Name) {
			continue
		}
		opt := DefaultOptions()
		opt.Language = "en"
		if beam > 0 {
			opt.BeamSize = beam
		}
		opt.DetectSpeech, opt.Window = false, FullWindow
		full, ft := run(c, opt)
		opt.DetectSpeech, opt.Window = true, ShortWindow
		line := fmt.Sprintf("%-18.18s %5.1fs full %4dms wer %.2f %q", c.Name, full.Duration, ft.Milliseconds(), WordErrorRate(c.Reference, full.Text), full.Text)
		for _, sw := range configs {
			m.short = sw
			r, st := run(c, opt)
			lp, ns := 0.0, 0.0
			if len(r.Segments) > 0 {
				lp, ns = r.Segments[0].AvgLogProb, r.Segments[0].NoSpeechProb
			}
			if r.Path != PathShort && r.Path != PathShortThenFull && r.Path != PathFull {
				t.Errorf("%s: path %q", c.Name, r.Path)
			}
			line += fmt.Sprintf("\n    %4d/%-3d %-10s %4dms wer %.2f lp %.2f ns %.2f %q %s", sw.floorFrames, sw.marginFrames, r.Path, st.Milliseconds(), WordErrorRate(c.Reference, r.Text), lp, ns, r.Text, r.FallbackReason)
		}
		t.Log(line)
	}
}

// openBaseModel opens base int8 on 2 threads; the test's cleanup closes it.
func openBaseModel(tb testing.TB) *TestModel {
	tb.Helper()
	spec := engine.Spec{LibDir: testenv.EngineDir(tb), ModelDir: testenv.Model(tb, "base"), Device: "cpu", ComputeType: "int8", IntraThreads: 2}
	return OpenTestModel(tb, spec, testenv.WorkerOptions(), slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

// transcribe is m.Transcribe that stops the test on an error.
func transcribe(tb testing.TB, m *TestModel, samples []float32, opt Options) *Result {
	tb.Helper()
	r, err := m.Transcribe(context.Background(), samples, opt)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// dictations are short sentences of the kind people dictate, for
// BenchmarkShortWindowVoices.
var dictations = []string{
	"Call me back later.", "Send it tomorrow morning.", "Thanks, see you soon.", "Sounds good to me.",
	"Can you review my pull request?", "I'll be there in ten minutes.", "Let's move the meeting to Friday.",
	"Please forward the invoice to accounting.", "The build is failing on the main branch.",
	"Turn off the lights in the kitchen.", "What time does the train leave?", "I need a table for four tonight.",
	"Delete the last paragraph.", "Happy birthday, I hope you have a great day.", "The report is due on Monday.",
	"Add eggs and butter to the shopping list.", "We shipped the new version this morning.",
	"Don't forget to water the plants.", "Open a new terminal window.", "My flight lands at seven thirty.",
}

// BenchmarkShortWindowVoices counts, over 120 synthetic dictations (20
// sentences, three espeak voices, with and without a noise floor), the clips
// where the short window's words are worse or better than the full window's:
// a wider check than the real-speech set (docs/benchmarks.md#short-window).
//
//	go test -run '^$' -bench ShortWindowVoices -benchtime 1x ./internal/whisper
func BenchmarkShortWindowVoices(b *testing.B) {
	m := openBaseModel(b)
	m.UseSpeechDetector(vadtest.Open(b))
	voices := [][]string{nil, {"-v", "en-us", "-s", "190"}, {"-v", "en+f3", "-s", "150"}}
	rng := rand.New(rand.NewPCG(7, 7))
	var worse, better, kept, n int
	var fullTime, shortTime time.Duration
	for _, s := range dictations {
		for vi, v := range voices {
			clean := testenv.SpeechWith(b, s, v...)
			for _, noise := range []float64{0, 0.004} {
				x := append([]float32(nil), clean...)
				for i := range x {
					x[i] += float32(rng.NormFloat64() * noise)
				}
				opt := DefaultOptions()
				opt.Language, opt.Temperatures = "en", []float32{0}
				full := transcribe(b, m, x, opt)
				opt.Window = ShortWindow
				short := transcribe(b, m, x, opt)
				n++
				fullTime += full.Timings.Engine
				shortTime += short.Timings.Engine
				if short.Path == PathShort {
					kept++
				}
				fw, sw := WordErrorRate(s, full.Text), WordErrorRate(s, short.Text)
				switch {
				case sw > fw:
					worse++
				case sw < fw:
					better++
				default:
					continue
				}
				b.Logf("voice %d noise %.3f %q: full %q, short %q (%s)", vi, noise, s, full.Text, short.Text, short.Path)
			}
		}
	}
	b.Logf("%d clips: short window kept on %d, worse on %d, better on %d; mean engine time full %v, short %v",
		n, kept, worse, better, fullTime/time.Duration(n), shortTime/time.Duration(n))
}
