//go:build linux

package backend_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// rssKiB reads a process's resident set from /proc.
func rssKiB(t *testing.T, pid int) int {
	t.Helper()
	n, err := testenv.ProcStatus(strconv.Itoa(pid), "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// workers counts this process's live engine-worker children.
func workers(t *testing.T) int {
	return len(children(t))
}

// children lists the pids of this process's live (not zombie) children.
func children(t *testing.T) []int {
	t.Helper()
	pids, err := testenv.Children(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// switchNth makes switch i of a test's series, to tiny when i is odd and to
// base when it is even, and stops the test unless the old worker has ended
// and only the new one runs. It returns the folder and the Switch result.
func switchNth(t *testing.T, s *backend.Service, i int, tiny, base string, opt backend.Options) (string, backend.Switched) {
	t.Helper()
	dir := tiny
	if i%2 == 0 {
		dir = base
	}
	old := s.Current().WorkerPID()
	sw, err := s.Switch(context.Background(), dir, opt)
	if err != nil {
		t.Fatalf("switch %d: %v", i, err)
	}
	if err := syscall.Kill(old, 0); err == nil {
		t.Fatalf("switch %d: old worker %d still alive", i, old)
	}
	if n := workers(t); n != 1 {
		t.Fatalf("switch %d: %d workers running, want 1", i, n)
	}
	return dir, sw
}

// Twenty switches between two real models, with a dictation after each.
func TestTwentyModelSwitches(t *testing.T) {
	base, tiny := testenv.Model(t, "base"), testenv.Model(t, "tiny.en")
	const said = "The coffee machine on the second floor is broken again."
	speech := testenv.Speech(t, said)
	opt := backend.Options{
		EngineRoot: filepath.Dir(testenv.EngineDir(t)), Device: "cpu",
		Engine: testenv.WorkerOptions(),
	}
	if filepath.Base(testenv.EngineDir(t)) != "cpu" {
		t.Fatalf("engine dir %s is not a cpu variant folder", testenv.EngineDir(t))
	}
	log := testlog.New(t, slog.LevelWarn)
	ctx := context.Background()
	s := backend.NewEmpty(opt, log) // as the app starts
	defer s.Close()
	if _, err := s.Switch(ctx, base, opt); err != nil {
		t.Fatal(err)
	}
	settle := func() int {
		runtime.GC()
		debug.FreeOSMemory()
		return rssKiB(t, os.Getpid())
	}
	baseline := settle()
	workerRSS := map[string][]int{}
	for i := 1; i <= 20; i++ {
		dir, sw := switchNth(t, s, i, tiny, base, opt)
		res, err := s.Transcribe(ctx, speech, whisper.DefaultOptions())
		if err != nil {
			t.Fatalf("dictation after switch %d: %v", i, err)
		}
		if wer := whisper.WordErrorRate(said, res.Text); wer > 0.15 {
			t.Fatalf("switch %d to %s: WER %.2f %q", i, filepath.Base(dir), wer, res.Text)
		}
		pid := s.Current().WorkerPID()
		workerRSS[filepath.Base(dir)] = append(workerRSS[filepath.Base(dir)], rssKiB(t, pid))
		t.Logf("switch %2d → %-16s load+warm %4d ms, worker RSS %d MiB", i, filepath.Base(dir), sw.Load.Milliseconds(), rssKiB(t, pid)/1024)
	}
	after := settle()
	t.Logf("app process RSS: %d MiB before, %d MiB after 20 switches", baseline/1024, after/1024)
	if after > baseline+32*1024 {
		t.Errorf("app RSS grew from %d to %d KiB over 20 switches", baseline, after)
	}
	for name, r := range workerRSS {
		if first, last := r[0], r[len(r)-1]; last > first*12/10 {
			t.Errorf("%s worker RSS grew from %d to %d KiB between its first and last load", name, first, last)
		}
	}
}

// When a model closed before the switch (a GPU's) cannot be loaded again
// after the new one failed (its folder is gone), the service holds no model: Current is nil, Transcribe says
// ErrNoModel, and a later Switch to a good model brings dictation back.
func TestSwitchWithNoWayBack(t *testing.T) {
	tiny := testenv.Model(t, "tiny.en")
	old := filepath.Join(t.TempDir(), "old")
	if err := os.CopyFS(old, os.DirFS(tiny)); err != nil {
		t.Fatal(err)
	}
	opt := backend.Options{EngineRoot: filepath.Dir(testenv.EngineDir(t)), Device: "cpu", Engine: testenv.WorkerOptions()}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx := context.Background()
	s := backend.NewEmpty(opt, log) // as the app starts
	defer s.Close()
	if _, err := s.Switch(ctx, old, opt); err != nil {
		t.Fatal(err)
	}
	backend.SetSwitchSeams(s, func(*backend.Loaded) bool { return false }, nil) // closed first, as on a GPU
	if err := os.RemoveAll(old); err != nil {
		t.Fatal(err)
	}
	_, err := s.Switch(ctx, filepath.Join(t.TempDir(), "missing"), opt)
	if !errors.Is(err, backend.ErrNoModel) {
		t.Fatalf("Switch with no way back: err = %v, want ErrNoModel", err)
	}
	if l := s.Current(); l != nil {
		t.Fatalf("Current() = %+v after both loads failed, want nil", l)
	}
	if _, err := s.Transcribe(ctx, make([]float32, 16000), whisper.DefaultOptions()); !errors.Is(err, backend.ErrNoModel) {
		t.Fatalf("Transcribe with no model: err = %v, want ErrNoModel", err)
	}
	if _, err := s.Switch(ctx, tiny, opt); err != nil {
		t.Fatalf("Switch back to a good model: %v", err)
	}
	said := "The coffee machine on the second floor is broken again."
	res, err := s.Transcribe(ctx, testenv.Speech(t, said), whisper.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if wer := whisper.WordErrorRate(said, res.Text); wer > 0.3 {
		t.Fatalf("after recovery: WER %.2f %q", wer, res.Text)
	}
}

// A model on the CPU serves while its successor loads, and a failed switch
// leaves it serving; a model closed first (a GPU's) leaves none meanwhile,
// and a dictation then gets ErrNoModel at once (the desk waits for the load).
func TestSwitchServesMeanwhile(t *testing.T) {
	base, tiny := testenv.Model(t, "base"), testenv.Model(t, "tiny.en")
	const said = "The coffee machine on the second floor is broken again."
	speech := testenv.Speech(t, said)
	opt := backend.Options{EngineRoot: filepath.Dir(testenv.EngineDir(t)), Device: "cpu", Engine: testenv.WorkerOptions()}
	ctx := context.Background()
	tests := []struct {
		name  string
		keep  func(*backend.Loaded) bool // nil: the service's own rule
		serve bool
	}{
		{name: "cpu model serves meanwhile", serve: true},
		{name: "model closed first", keep: func(*backend.Loaded) bool { return false }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := backend.NewEmpty(opt, testlog.New(t, slog.LevelWarn)) // as the app starts
			defer s.Close()
			if _, err := s.Switch(ctx, tiny, opt); err != nil {
				t.Fatal(err)
			}
			old := s.Current()
			var during string
			backend.SetSwitchSeams(s, tt.keep, func() {
				cur := s.Current()
				res, err := s.Transcribe(ctx, speech, whisper.DefaultOptions())
				switch {
				case tt.serve && (cur != old || err != nil):
					during = fmt.Sprintf("current %p (old %p), transcribe: %v", cur, old, err)
				case tt.serve:
					if wer := whisper.WordErrorRate(said, res.Text); wer > 0.3 {
						during = fmt.Sprintf("old model heard %q (WER %.2f)", res.Text, wer)
					}
				case cur != nil || !errors.Is(err, backend.ErrNoModel):
					during = fmt.Sprintf("current %p, transcribe: %v; want none and ErrNoModel", cur, err)
				}
			})
			if _, err := s.Switch(ctx, base, opt); err != nil {
				t.Fatal(err)
			}
			if during != "" {
				t.Fatalf("during the switch: %s", during)
			}
			if s.Current() == old || workers(t) != 1 {
				t.Fatalf("after the switch: current is the old model: %v; %d workers, want 1", s.Current() == old, workers(t))
			}
			if !tt.serve {
				return
			}
			// A switch that fails leaves the model in use serving.
			before := s.Current()
			backend.SetSwitchSeams(s, nil, nil)
			_, err := s.Switch(ctx, filepath.Join(t.TempDir(), "missing"), opt)
			if err == nil || !strings.Contains(err.Error(), "still using") || s.Current() != before {
				t.Fatalf("failed switch: err %v, current kept: %v", err, s.Current() == before)
			}
			if _, err := s.Transcribe(ctx, speech, whisper.DefaultOptions()); err != nil {
				t.Fatalf("dictation after the failed switch: %v", err)
			}
		})
	}
}
