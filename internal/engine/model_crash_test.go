package engine_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin/ct2bintest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// startTiny starts a worker on the tiny model with forgery f (none when "")
// and returns it with the log it writes, where its starts are counted.
func startTiny(t *testing.T, f ct2bintest.Forgery) (*engine.Client, *whisper.Tokenizer, *testenv.Buffer) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "forged")
	var err error
	if f == "" {
		err = ct2bintest.GenerateTiny(dir, ct2bintest.TinyOptions{})
	} else {
		err = ct2bintest.Forge(dir, ct2bintest.TinyOptions{}, f)
	}
	if err != nil {
		t.Fatal(err)
	}
	tok, err := whisper.LoadTokenizer(dir)
	if err != nil {
		t.Fatal(err)
	}
	var log testenv.Buffer
	t.Cleanup(func() { t.Logf("client log:\n%s", log.String()) })
	spec := engine.Spec{LibDir: testenv.EngineDir(t), ModelDir: dir, Device: "cpu", ComputeType: "float32"}
	// The engine is not asked to check the model: that is the importer's
	// and the loader's job (ct2bin), and this is what gets past a check.
	c, err := engine.Start(context.Background(), spec, testOptions(), slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, tok, &log
}

func tinyWindow(t *testing.T) engine.Window {
	t.Helper()
	mel, err := whisper.LogMel(make([]float32, whisper.SampleRate), 80)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Window{ID: 1, NMels: 80, Frames: whisper.NFrames, Features: mel.Window(0, mel.ContentFrames())}
}

func tinyGenerate(c *engine.Client, tok *whisper.Tokenizer, win engine.Window) (engine.GenerateResult, error) {
	return c.Generate(context.Background(), win, engine.GenerateRequest{
		Prompt: tok.SOTSequence("en", "transcribe"), BeamSize: 1, Patience: 1, LengthPenalty: 1,
		RepetitionPenalty: 1, MaxLength: 8, SamplingTopK: 1, SamplingTemperature: 1, NumHypotheses: 1,
		SuppressTokens: []int{-1},
	})
}

func starts(log *testenv.Buffer) int { return strings.Count(log.String(), `msg="engine worker ready"`) }

// A model that crashes the worker the first time it is asked for
// something crashes it once: the client refuses it from then on with the
// reason, and starts no other worker. Each forgery here gets past no
// import check any more; the engine meets them only when a check is skipped.
func TestModelThatCrashesTheWorkerIsRefused(t *testing.T) {
	tests := []struct {
		forgery ct2bintest.Forgery
		op      func(c *engine.Client, tok *whisper.Tokenizer, win engine.Window) error
		what    string
	}{
		{ct2bintest.ProjectionShape, func(c *engine.Client, tok *whisper.Tokenizer, win engine.Window) error {
			_, err := tinyGenerate(c, tok, win)
			return err
		}, "decoded audio with"},
		{ct2bintest.AlignmentHeadsPastLayers, func(c *engine.Client, tok *whisper.Tokenizer, win engine.Window) error {
			if _, err := tinyGenerate(c, tok, win); err != nil {
				return err
			}
			_, err := c.Align(context.Background(), win, engine.AlignRequest{
				StartSequence: tok.SOTSequence("en", "transcribe"), TextTokens: []int{264, 220}, NumFrames: win.Frames, MedianFilterWidth: 7,
			})
			return err
		}, "timed words with"},
	}
	for _, tt := range tests {
		t.Run(string(tt.forgery), func(t *testing.T) {
			c, tok, log := startTiny(t, tt.forgery)
			win := tinyWindow(t)
			err := tt.op(c, tok, win)
			if !errors.Is(err, engine.ErrModelCrashed) || !strings.Contains(err.Error(), `the model "forged" crashed the engine worker`) || !strings.Contains(err.Error(), tt.what+" it on cpu") ||
				!strings.Contains(err.Error(), "re-download it") {
				t.Fatalf("first request: %v; want ErrModelCrashed naming the model, what crashed and the fix", err)
			}
			t.Logf("refused with: %v", err)
			for range 3 {
				if err2 := tt.op(c, tok, win); err2 == nil || err2.Error() != err.Error() {
					t.Fatalf("a later request: %v; want the same refusal", err2)
				}
			}
			if n := starts(log); n != 1 || c.WorkerPID() != 0 {
				t.Errorf("%d workers started (want 1: no restart after the model's crash), pid now %d", n, c.WorkerPID())
			}
		})
	}
}

// A worker killed from outside (SIGKILL, as the OS's out-of-memory killer
// does) is not the model's fault, even before the model answered anything:
// it is restarted and the request answered.
func TestKilledWorkerIsRestartedBeforeTheFirstAnswer(t *testing.T) {
	c, tok, log := startTiny(t, "")
	p, err := os.FindProcess(c.WorkerPID())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := tinyGenerate(c, tok, tinyWindow(t)); err != nil {
		t.Fatalf("after the kill: %v", err)
	}
	if n := starts(log); n != 2 {
		t.Errorf("%d workers started, want 2 (the first and one restart)", n)
	}
}
