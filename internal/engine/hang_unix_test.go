//go:build !windows

package engine_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/models/ct2bin/ct2bintest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// A worker that stops answering (here a real worker frozen with SIGSTOP) is
// detected by the request deadline, killed, restarted, and the request is
// re-sent: the caller gets the same tokens as from a healthy worker.
func TestHungWorkerIsRestarted(t *testing.T) {
	dir := t.TempDir()
	if err := ct2bintest.GenerateTiny(dir, ct2bintest.TinyOptions{NMels: 80}); err != nil {
		t.Fatal(err)
	}
	opt := testOptions()
	opt.RequestTimeout = 2 * time.Second
	spec := engine.Spec{LibDir: testenv.EngineDir(t), ModelDir: dir, Device: "cpu", ComputeType: "float32"}
	c, err := engine.Start(context.Background(), spec, opt, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tok, err := whisper.LoadTokenizer(dir)
	if err != nil {
		t.Fatal(err)
	}
	mel, err := whisper.LogMel(make([]float32, whisper.SampleRate), 80)
	if err != nil {
		t.Fatal(err)
	}
	win := engine.Window{ID: 1, NMels: 80, Frames: whisper.NFrames, Features: mel.Window(0, mel.ContentFrames())}
	gen := func() []int {
		t.Helper()
		res, err := c.Generate(context.Background(), win, engine.GenerateRequest{
			Prompt: tok.SOTSequence("en", "transcribe"), BeamSize: 1, Patience: 1, LengthPenalty: 1,
			RepetitionPenalty: 1, MaxLength: 10, SamplingTopK: 1, SamplingTemperature: 1, NumHypotheses: 1,
			MaxInitialTimestampIndex: 50, SuppressTokens: []int{-1},
		})
		if err != nil || len(res.SequencesIDs) != 1 {
			t.Fatalf("generate: %v %+v", err, res)
		}
		return res.SequencesIDs[0]
	}
	want := gen()
	pid := c.WorkerPID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	win.ID = 2 // a new window: the frozen worker would have to read all its features
	start := time.Now()
	got := gen()
	took := time.Since(start)
	if np := c.WorkerPID(); np == pid || np == 0 {
		t.Fatalf("hung worker %d not replaced (now %d)", pid, np)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("hung worker %d still exists", pid)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after the hang got %v, want %v", got, want)
	}
	if took < opt.RequestTimeout || took > opt.RequestTimeout+time.Minute {
		t.Fatalf("request took %s; want just over the %s deadline", took, opt.RequestTimeout)
	}
}

// The worker process of a GPU variant runs with CT2_CUDA_ALLOCATOR=cub_caching
// unless the user chose an allocator; a CPU worker is left as it was.
func TestWorkerProcessAllocator(t *testing.T) {
	tests := []struct {
		name   string
		device string
		user   string // the user's CT2_CUDA_ALLOCATOR, "" for unset
		want   string
	}{
		{"GPU worker", "cuda", "", "allocator=cub_caching"},
		{"GPU worker with the user's choice", "cuda", "cuda_malloc_async", "allocator=cuda_malloc_async"},
		{"CPU worker", "cpu", "", "allocator="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.user != "" {
				t.Setenv("CT2_CUDA_ALLOCATOR", tc.user)
			} else {
				t.Setenv("CT2_CUDA_ALLOCATOR", "") // restored afterwards
				os.Unsetenv("CT2_CUDA_ALLOCATOR")
			}
			opt := engine.Options{Exe: "/bin/sh", Args: []string{"-c", `echo "allocator=$CT2_CUDA_ALLOCATOR" >&2; exit 3`}, CrashDir: t.TempDir()}
			_, err := engine.Start(context.Background(), engine.Spec{Device: tc.device}, opt, testlog.Discard())
			if err == nil || !strings.HasSuffix(strings.TrimSuffix(err.Error(), ")"), tc.want) {
				t.Fatalf("err = %v, want the worker to print %q", err, tc.want)
			}
		})
	}
}
