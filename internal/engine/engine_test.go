package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin/ct2bintest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// TestMain doubles as the worker: the client re-executes this test binary.
func TestMain(m *testing.M) {
	testenv.ServeWorkerIfAsked()
	goleak.VerifyTestMain(m)
}

func testLog(t *testing.T) *slog.Logger { return testlog.New(t, slog.LevelDebug) }

func testOptions() engine.Options { return testenv.WorkerOptions() }

func startBase(t *testing.T) (*engine.Client, engine.Spec) {
	t.Helper()
	spec := engine.Spec{LibDir: testenv.EngineDir(t), ModelDir: testenv.Model(t, "base"), Device: "cpu", ComputeType: "int8"}
	c, err := engine.Start(context.Background(), spec, testOptions(), testLog(t))
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, spec
}

func speechWindow(t *testing.T, id uint64, text string) engine.Window {
	mel, err := whisper.LogMel(testenv.Speech(t, text), 80)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Window{ID: id, NMels: 80, Frames: whisper.NFrames, Features: mel.Window(0, mel.ContentFrames())}
}

// Base multilingual ids: <|startoftranscript|> <|en|> <|transcribe|> <|notimestamps|>.
var enPrompt = []int{50258, 50259, 50359, 50363}

func generate(t *testing.T, c *engine.Client, win engine.Window) []int {
	t.Helper()
	res, err := c.Generate(context.Background(), win, engine.GenerateRequest{
		Prompt: enPrompt, BeamSize: 5, Patience: 1, LengthPenalty: 1, RepetitionPenalty: 1,
		MaxLength: 448, SamplingTopK: 1, SamplingTemperature: 1, NumHypotheses: 1,
		ReturnScores: true, ReturnNoSpeechProb: true, MaxInitialTimestampIndex: 50, SuppressBlank: true,
		SuppressTokens: []int{-1},
	})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if len(res.SequencesIDs) != 1 || len(res.SequencesIDs[0]) < 3 || len(res.Scores) != 1 {
		t.Fatalf("unexpected result %+v", res)
	}
	return res.SequencesIDs[0]
}

func TestRealModelFacts(t *testing.T) {
	c, _ := startBase(t)
	r := c.Ready()
	if r.Model.NMels != 80 || !r.Model.Multilingual || r.Model.NumLanguages != 99 || r.Model.VocabSize != 51865 {
		t.Fatalf("model facts = %+v", r.Model)
	}
	if r.Model.Languages[0] != "en" || r.Model.Languages[1] != "zh" {
		t.Fatalf("languages start %v", r.Model.Languages[:2])
	}
	var cpu *engine.DeviceReport
	for i := range r.Devices {
		if r.Devices[i].Device == "cpu" {
			cpu = &r.Devices[i]
		}
	}
	if cpu == nil || !slices.Contains(cpu.ComputeTypes, "int8") || !slices.Contains(cpu.ComputeTypes, "float32") {
		t.Fatalf("devices = %+v", r.Devices)
	}
	win := speechWindow(t, 1, "The quick brown fox jumps over the lazy dog.")
	langs, err := c.DetectLanguage(context.Background(), win)
	if err != nil {
		t.Fatal(err)
	}
	if langs[0].Language != "en" || langs[0].Probability < 0.5 {
		t.Fatalf("detected %+v", langs[:3])
	}
	if ids := generate(t, c, win); ids[len(ids)-1] == 50257 {
		t.Fatalf("sequence includes end token: %v", ids)
	}
}

// A worker killed in the middle of a request is replaced and the request
// re-sent: the caller gets the same tokens as without the crash.
func TestKilledWorkerMidRequest(t *testing.T) {
	c, _ := startBase(t)
	win := speechWindow(t, 7, "Please send the quarterly report to the finance team before Friday.")
	want := generate(t, c, win)
	pid := c.WorkerPID()
	done := make(chan []int)
	win.ID = 8 // a fresh window, so the worker must encode and decode it all
	go func() { done <- generate(t, c, win) }()
	time.Sleep(150 * time.Millisecond) // let the request reach the worker
	p, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if c.WorkerPID() == pid || c.WorkerPID() == 0 {
		t.Fatalf("worker not replaced: pid %d → %d", pid, c.WorkerPID())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after crash got %v, want %v", got, want)
	}
}

// A window's features cross the pipe once: language detection and every
// decoding attempt on it reuse the worker's encoder output. A worker that
// died meanwhile gets them again, and the tokens are the same.
func TestFeaturesCrossThePipeOnce(t *testing.T) {
	c, _ := startBase(t)
	win := speechWindow(t, 3, "Please send the quarterly report to the finance team before Friday.")
	size := uint64(len(win.Features)) * 4
	if _, err := c.DetectLanguage(context.Background(), win); err != nil {
		t.Fatal(err)
	}
	want := generate(t, c, win)
	if got := generate(t, c, win); !slices.Equal(got, want) {
		t.Fatalf("second decode %v, want %v", got, want)
	}
	if got := c.FeatureBytes(); got != size {
		t.Fatalf("%d feature bytes sent for detect + 2 decodes, want one window's %d", got, size)
	}
	p, err := os.FindProcess(c.WorkerPID())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if got := generate(t, c, win); !slices.Equal(got, want) {
		t.Fatalf("after the worker died: %v, want %v", got, want)
	}
	if got := c.FeatureBytes(); got != 2*size {
		t.Fatalf("%d feature bytes after a restart, want the window sent again (%d)", got, 2*size)
	}
}

func TestLoadErrors(t *testing.T) {
	lib := testenv.EngineDir(t)
	empty := t.TempDir()
	cases := []struct {
		name string
		spec engine.Spec
		want string
	}{
		{"missing library folder", engine.Spec{LibDir: filepath.Join(empty, "nope"), ModelDir: empty, Device: "cpu"}, "load engine library"},
		{"model without model.bin", engine.Spec{LibDir: lib, ModelDir: empty, Device: "cpu"}, "load model"},
		{"bad compute type", engine.Spec{LibDir: lib, ModelDir: empty, Device: "cpu", ComputeType: "int3"}, "unknown compute type"},
		{"bad device", engine.Spec{LibDir: lib, ModelDir: empty, Device: "tpu"}, "unknown device"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engine.Start(context.Background(), tc.spec, testOptions(), testLog(t))
			var le *engine.LoadError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want LoadError containing %q", err, tc.want)
			}
		})
	}
}

// A worker that dies while starting is reported in one line with what it
// printed; a long output (a runtime trace) is kept whole in a file that the
// line names, not shown.
func TestWorkerStartFailureSaysWhy(t *testing.T) {
	trace := `echo "panic: runtime error: integer divide by zero" >&2; echo >&2; echo "goroutine 1 [running]:" >&2
for i in $(seq 90); do echo "main.f$i(...)" >&2; done; exit 2`
	tests := []struct {
		name     string
		script   string
		want     string
		wantFile bool
	}{
		{"one line", "echo boom >&2; exit 7", "(worker said: boom)", false},
		{"a runtime trace", trace, "(worker said: panic: runtime error: integer divide by zero; full output in ", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := engine.Options{Exe: "/bin/sh", Args: []string{"-c", tc.script}, MaxCrashes: 2, CrashDir: t.TempDir()}
			_, err := engine.Start(context.Background(), engine.Spec{Device: "cpu"}, opt, testlog.Discard())
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %q, want one line containing %q", err, tc.want)
			}
			if !tc.wantFile {
				return
			}
			path := strings.TrimSuffix(err.Error()[strings.Index(err.Error(), "full output in ")+len("full output in "):], ")")
			b, rerr := os.ReadFile(path)
			if rerr != nil || !strings.Contains(string(b), "main.f90(...)") {
				t.Fatalf("crash file %s: %v, %d bytes; want the whole trace", path, rerr, len(b))
			}
		})
	}
}

// The tiny random-weight model exercises the whole engine path in
// milliseconds: load, facts, language detection, generation, for 80 and 128
// mel bins.
func TestTinyRandomModel(t *testing.T) {
	for _, mels := range []int{80, 128} {
		t.Run(fmt.Sprint(mels, " mels"), func(t *testing.T) {
			dir := t.TempDir()
			if err := ct2bintest.GenerateTiny(dir, ct2bintest.TinyOptions{NMels: mels}); err != nil {
				t.Fatal(err)
			}
			spec := engine.Spec{LibDir: testenv.EngineDir(t), ModelDir: dir, Device: "cpu", ComputeType: "float32"}
			c, err := engine.Start(context.Background(), spec, testOptions(), testLog(t))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			info := c.Ready().Model
			if info.NMels != mels || !info.Multilingual || info.NumLanguages != 5 || info.Languages[0] != "en" {
				t.Fatalf("tiny model facts %+v", info)
			}
			tok, err := whisper.LoadTokenizer(dir)
			if err != nil {
				t.Fatal(err)
			}
			mel, err := whisper.LogMel(make([]float32, whisper.SampleRate), mels)
			if err != nil {
				t.Fatal(err)
			}
			win := engine.Window{ID: 1, NMels: mels, Frames: whisper.NFrames, Features: mel.Window(0, mel.ContentFrames())}
			langs, err := c.DetectLanguage(context.Background(), win)
			if err != nil || len(langs) != 5 {
				t.Fatalf("detect: %v %+v", err, langs)
			}
			res, err := c.Generate(context.Background(), win, engine.GenerateRequest{
				Prompt: tok.SOTSequence("en", "transcribe"), BeamSize: 2, Patience: 1, LengthPenalty: 1,
				RepetitionPenalty: 1, MaxLength: 20, SamplingTopK: 1, SamplingTemperature: 1, NumHypotheses: 1,
				ReturnScores: true, ReturnNoSpeechProb: true, MaxInitialTimestampIndex: 50, SuppressTokens: []int{-1},
			})
			if err != nil || len(res.SequencesIDs) != 1 || len(res.Scores) != 1 {
				t.Fatalf("generate: %v %+v", err, res)
			}
			for _, id := range res.SequencesIDs[0] {
				if id >= tok.VocabSize() {
					t.Fatalf("token %d outside the %d-token vocabulary", id, tok.VocabSize())
				}
			}
		})
	}
}

// A worker asked to quit frees its CPU model through the library's close
// (ct2e_close) before it exits; the worker's own log says so.
func TestQuitClosesCPUModel(t *testing.T) {
	dir := t.TempDir()
	if err := ct2bintest.GenerateTiny(dir, ct2bintest.TinyOptions{NMels: 80}); err != nil {
		t.Fatal(err)
	}
	var logs testenv.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	spec := engine.Spec{LibDir: testenv.EngineDir(t), ModelDir: dir, Device: "cpu", ComputeType: "float32"}
	c, err := engine.Start(context.Background(), spec, testOptions(), log)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "model closed") {
		t.Fatalf("the worker did not close its model at quit; log:\n%s", logs.String())
	}
}

// The align op runs on the window the worker still holds from generate: its
// path walks every text token (and the end token) forward in time, and the
// features cross the pipe once.
func TestAlignRealModel(t *testing.T) {
	c, _ := startBase(t)
	if !c.Ready().CanAlign {
		t.Fatal("the engine library reports no align op")
	}
	win := speechWindow(t, 5, "Please send the quarterly report to the finance team before Friday.")
	size := uint64(len(win.Features)) * 4
	text := generate(t, c, win)
	start := time.Now()
	res, err := c.Align(context.Background(), win, engine.AlignRequest{
		StartSequence: enPrompt[:3], TextTokens: text, NumFrames: win.Frames, MedianFilterWidth: 7,
	})
	if err != nil {
		t.Fatalf("align: %v", err)
	}
	t.Logf("aligned %d tokens in %v", len(text), time.Since(start).Round(time.Millisecond))
	if len(res.TextTokenProbs) != len(text) {
		t.Fatalf("%d token probabilities for %d text tokens", len(res.TextTokenProbs), len(text))
	}
	last := [2]int{0, 0}
	for i, p := range res.Alignments {
		if p[0] < last[0] || p[1] < last[1] || (i > 0 && p == last) {
			t.Fatalf("alignment step %d %v after %v: not monotonic", i, p, last)
		}
		last = p
	}
	if last[0] != len(text) {
		t.Fatalf("alignment ends on text index %d, want %d (the end token)", last[0], len(text))
	}
	if got := c.FeatureBytes(); got != size {
		t.Fatalf("%d feature bytes sent for decode + align, want one window's %d", got, size)
	}
}
