package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// onePassSwitch is patch 0001's environment switch (native/ct2-patches).
const onePassSwitch = "CT2_PREFIX_ONE_PASS"

// patchedEngineDir returns the engine folder when its CTranslate2 carries patch
// 0001 (ENGINE_BACKEND=source), or stops the test.
func patchedEngineDir(t testing.TB) string {
	t.Helper()
	dir := testenv.EngineDir(t)
	libs, _ := filepath.Glob(filepath.Join(dir, "libctranslate2*.so*"))
	for _, lib := range libs {
		if b, err := os.ReadFile(lib); err == nil && bytes.Contains(b, []byte(onePassSwitch)) {
			return dir
		}
	}
	testenv.Require(t, "an engine in "+dir+" built from the patched CTranslate2", "ENGINE_BACKEND=source make engine")
	return ""
}

// startOnePass starts the base model on the patched engine with patch 0001 on or off.
func startOnePass(t testing.TB, dir string, on bool) *engine.Client {
	t.Helper()
	opts := testOptions()
	opts.Env = append(slices.Clone(opts.Env), onePassSwitch+"="+map[bool]string{true: "1", false: "0"}[on])
	spec := engine.Spec{LibDir: dir, ModelDir: testenv.Model(t, "base"), Device: "cpu", ComputeType: "int8"}
	c, err := engine.Start(context.Background(), spec, opts, testlog.New(t, slog.LevelDebug))
	if err != nil {
		t.Fatalf("start (%s=%v): %v", onePassSwitch, on, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// decodeWith generates with the app's decoding options at beam size beam,
// forcing prefix after the SOT sequence.
func decodeWith(t testing.TB, c *engine.Client, win engine.Window, beam int, prefix []int) engine.GenerateResult {
	t.Helper()
	res, err := c.Generate(context.Background(), win, engine.GenerateRequest{
		Prompt: append(slices.Clone(enPrompt), prefix...), BeamSize: beam, Patience: 1, LengthPenalty: 1,
		RepetitionPenalty: 1, MaxLength: 448, SamplingTopK: 1, SamplingTemperature: 1, NumHypotheses: 1,
		ReturnScores: true, ReturnNoSpeechProb: true, MaxInitialTimestampIndex: 50, SuppressBlank: true,
		SuppressTokens: []int{-1},
	})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if len(res.SequencesIDs) != 1 || len(res.Scores) != 1 {
		t.Fatalf("unexpected result %+v", res)
	}
	return res
}

// clipWindow is one real recording as an encoder window.
func clipWindow(t testing.TB, id uint64, samples []float32) engine.Window {
	t.Helper()
	mel, err := whisper.LogMel(samples, 80)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Window{ID: id, NMels: 80, Frames: whisper.NFrames, Features: mel.Window(0, mel.ContentFrames())}
}

// prefixWindows returns real recordings (and one espeak sentence) as windows,
// with the free decode of each at beam 5, for forcing two thirds of it.
func prefixWindows(t testing.TB, c *engine.Client, n int) ([]engine.Window, [][]int) {
	t.Helper()
	var wins []engine.Window
	var free [][]int
	add := func(win engine.Window) {
		if toks := decodeWith(t, c, win, 5, nil).SequencesIDs[0]; len(toks) >= 9 {
			wins, free = append(wins, win), append(free, toks)
		}
	}
	add(clipWindow(t, 1, testenv.Speech(t, "Please send the quarterly report to the finance team before Friday, and copy the auditors.")))
	for i, clip := range testenv.RealSpeech(t) {
		if len(wins) > n || len(clip.Samples) > 30*16000 {
			continue
		}
		add(clipWindow(t, uint64(100+i), clip.Samples))
	}
	if len(wins) < 3 {
		t.Fatalf("only %d windows with 9 tokens or more", len(wins))
	}
	return wins, free
}

// Patch 0001 forces a prefix in one decoder pass: on real speech, greedy and
// beam 5, it gives the same tokens and scores as forcing it step by step, keeps
// the prefix in the result, and forcing a decode's own first two thirds gives
// the decode back.
func TestForcedPrefixOnePassSameTokens(t *testing.T) {
	dir := patchedEngineDir(t)
	on, off := startOnePass(t, dir, true), startOnePass(t, dir, false)
	wins, free := prefixWindows(t, off, 4)
	for i, win := range wins {
		for _, beam := range []int{1, 5} {
			for _, cut := range []int{1, len(free[i]) * 2 / 3} {
				prefix := free[i][:cut]
				a, b := decodeWith(t, on, win, beam, prefix), decodeWith(t, off, win, beam, prefix)
				if !slices.Equal(a.SequencesIDs[0], b.SequencesIDs[0]) {
					t.Errorf("window %d beam %d prefix %d: one pass %v, step by step %v", win.ID, beam, cut, a.SequencesIDs[0], b.SequencesIDs[0])
					continue
				}
				if d := math.Abs(float64(a.Scores[0] - b.Scores[0])); d > 1e-3*math.Max(1, math.Abs(float64(b.Scores[0]))) {
					t.Errorf("window %d beam %d prefix %d: score %g one pass, %g step by step", win.ID, beam, cut, a.Scores[0], b.Scores[0])
				}
				if a.NoSpeechProb != b.NoSpeechProb {
					t.Errorf("window %d beam %d: no-speech probability %g one pass, %g step by step", win.ID, beam, a.NoSpeechProb, b.NoSpeechProb)
				}
				if !slices.Equal(a.SequencesIDs[0][:min(cut, len(a.SequencesIDs[0]))], prefix) {
					t.Errorf("window %d beam %d: result %v does not start with the prefix %v", win.ID, beam, a.SequencesIDs[0], prefix)
				}
				if beam == 5 && cut > 1 && !slices.Equal(a.SequencesIDs[0], free[i]) {
					t.Logf("window %d: forcing two thirds of the beam-5 decode gave %v, the decode %v", win.ID, a.SequencesIDs[0], free[i])
				}
			}
		}
	}
}

// BenchmarkForcedPrefix times a decode with two thirds of its tokens forced,
// patch 0001 on and off in one run (same engine, same windows), greedy and beam 5.
// It reports the median generation time per window (ms_median) beside ns/op.
func BenchmarkForcedPrefix(b *testing.B) {
	dir := patchedEngineDir(b)
	on, off := startOnePass(b, dir, true), startOnePass(b, dir, false)
	wins, free := prefixWindows(b, off, 6)
	for _, beam := range []int{1, 5} {
		for _, mode := range []struct {
			name string
			c    *engine.Client
		}{{"step-by-step", off}, {"one-pass", on}} {
			b.Run(map[int]string{1: "beam1", 5: "beam5"}[beam]+"/"+mode.name, func(b *testing.B) {
				var times []time.Duration
				forced, total := 0, 0
				b.ResetTimer()
				// The worker keeps one encoded window: each window's first decode,
				// untimed, encodes it; the ones after time generation alone.
				for i, win := range wins {
					prefix := free[i][:len(free[i])*2/3]
					b.StopTimer()
					decodeWith(b, mode.c, win, beam, prefix)
					b.StartTimer()
					for n := 0; n < b.N; n++ {
						start := time.Now()
						decodeWith(b, mode.c, win, beam, prefix)
						times = append(times, time.Since(start))
						forced, total = forced+len(prefix), total+len(free[i])
					}
				}
				b.StopTimer()
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms_median")
				b.ReportMetric(float64(forced)/float64(total), "forced_share")
			})
		}
	}
}
