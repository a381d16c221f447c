//go:build linux

package backend_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// requireCUDA returns the options that place a model on this machine's
// NVIDIA GPU, or skips: CI machines have no GPU. WHISPERKEY_REQUIRE_GPU=1
// (scripts/gpu-check.sh sets it) turns the skip into a failure, so a GPU
// machine whose engine is broken cannot pass by skipping.
func requireCUDA(t *testing.T) backend.Options {
	t.Helper()
	root := os.Getenv("WHISPERKEY_ENGINE_ROOT")
	if root == "" {
		root = filepath.Dir(testenv.EngineDir(t))
	}
	opt := backend.Options{EngineRoot: root, Device: "cuda", Engine: testenv.WorkerOptions()}
	log := testlog.New(t, slog.LevelWarn)
	d := backend.Decide(backend.Detect(context.Background(), opt, log), opt)
	if d.Device != "cuda" {
		why := "no usable NVIDIA GPU here (" + d.Message + "); scripts/gpu-check.sh runs this on a machine with one"
		if os.Getenv("WHISPERKEY_REQUIRE_GPU") == "1" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	return opt
}

// gpuMemMiB is the GPU memory a process holds, from nvidia-smi; 0 if unknown.
func gpuMemMiB(pid int) int {
	out, err := exec.Command("nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits").Output()
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, ",")
		if len(f) == 2 && strings.TrimSpace(f[0]) == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(strings.TrimSpace(f[1]))
			return n
		}
	}
	return 0
}

// Twenty switches between two models on the GPU, each followed by a
// dictation: every switch ends the old worker (the OS frees the GPU) before
// the next loads, so CTranslate2 never tears a GPU model down in a process
// that goes on (CTranslate2 #1782). Then the worker is killed mid-session:
// the next dictation restarts it and still returns the words.
func TestCUDASwitchesAndCrash(t *testing.T) {
	opt := requireCUDA(t)
	base, tiny := testenv.Model(t, "base"), testenv.Model(t, "tiny.en")
	speech, err := backend.SelfTestSample()
	if err != nil {
		t.Fatal(err)
	}
	o := whisper.DefaultOptions()
	o.Language = "en"
	ctx := context.Background()
	s := backend.NewEmpty(opt, testlog.New(t, slog.LevelWarn))
	defer s.Close()
	if _, err := s.Switch(ctx, base, opt); err != nil {
		t.Fatal(err)
	}
	dictate := func(what string) time.Duration {
		t.Helper()
		start := time.Now()
		res, err := s.Transcribe(ctx, speech, o)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		took := time.Since(start)
		if wer := whisper.WordErrorRate(backend.SelfTestText, res.Text); wer > 0.25 {
			t.Fatalf("%s: WER %.2f %q", what, wer, res.Text)
		}
		return took
	}
	for i := 1; i <= 20; i++ {
		dir, sw := switchNth(t, s, i, tiny, base, opt)
		cur := s.Current()
		if cur.Spec.Device != "cuda" {
			t.Fatalf("switch %d: loaded on %s (%s), want cuda", i, cur.Spec.Device, cur.Message)
		}
		took := dictate(fmt.Sprintf("dictation after switch %d", i))
		t.Logf("switch %2d → %-28s switch %5d ms, dictation %4d ms, GPU memory %5d MiB",
			i, filepath.Base(dir), sw.Load.Milliseconds(), took.Milliseconds(), gpuMemMiB(cur.WorkerPID()))
	}

	warm := dictate("warm dictation")
	pid := s.Current().WorkerPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	restarted := dictate("dictation after the worker was killed")
	if s.Current().WorkerPID() == pid {
		t.Fatalf("worker %d was killed but the client still reports it", pid)
	}
	t.Logf("worker killed: the next dictation took %d ms (a warm one %d ms): restart %d ms",
		restarted.Milliseconds(), warm.Milliseconds(), (restarted - warm).Milliseconds())
}
