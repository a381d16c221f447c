package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// A background worker loads without a request, runs every thread below the
// app's priority, and when a request is cut short by its context it is
// killed at once and a new one loads in the background; that one gives the
// tokens an ordinary worker gives.
func TestBackgroundWorker(t *testing.T) {
	c, spec := startBase(t)
	win := speechWindow(t, 11, "Please send the quarterly report to the finance team before Friday.")
	want := generate(t, c, win)

	bg, err := engine.StartBackground(spec, testOptions(), testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Close()
	pid := waitWorker(t, bg, 0)
	for _, n := range threadNices(t, pid) {
		if n != 10 {
			t.Fatalf("background worker's threads have niceness %v, want 10 each", threadNices(t, pid))
		}
	}

	cutShort(t, bg, win)
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the worker of the request cut short is still there (kill 0: %v)", err)
	}
	waitWorker(t, bg, pid)
	if got := generate(t, bg, win); !slices.Equal(got, want) {
		t.Fatalf("background worker gave %v, want %v", got, want)
	}
}

// waitWorker waits until c runs a worker other than old and returns its pid.
func waitWorker(t *testing.T, c *engine.Client, old int) int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if pid := c.WorkerPID(); pid != 0 && pid != old {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no background worker started in 2 minutes (old pid %d)", old)
	return 0
}

// threadNices reads the niceness of each thread of process pid.
func threadNices(t *testing.T, pid int) []int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var nices []int
	for _, task := range tasks {
		f := testenv.ProcStat(fmt.Sprintf("%d/task/%s", pid, task.Name()))
		if f == nil {
			continue // the thread ended
		}
		n, err := strconv.Atoi(f[19-3]) // nice is field 19
		if err != nil {
			t.Fatalf("thread %s: %v", task.Name(), err)
		}
		nices = append(nices, n)
	}
	return nices
}

// A background worker killed by a request cut short loads again only once
// the work it gives way to is done (Options.Busy): while that work runs it
// has no worker and says so (Loaded), and a main client counts as busy
// during its requests and for a moment after.
func TestBackgroundReloadWaitsWhileBusy(t *testing.T) {
	main, spec := startBase(t)
	win := speechWindow(t, 12, "Please send the quarterly report to the finance team before Friday.")
	generate(t, main, win)
	if !main.Busy() {
		t.Error("the main client is not busy just after a request")
	}
	var busy atomic.Bool
	busy.Store(true)
	opt := testOptions()
	opt.Busy = busy.Load
	bg, err := engine.StartBackground(spec, opt, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Close()
	pid := waitWorker(t, bg, 0) // the first load does not wait
	if !bg.Loaded() {
		t.Fatal("a background client with a worker says it has none loaded")
	}
	cutShort(t, bg, win)
	time.Sleep(time.Second) // long enough for a reload to begin, had it not waited
	if bg.Loaded() || bg.WorkerPID() != 0 {
		t.Fatalf("the background worker loaded again while the main work was busy (pid %d)", bg.WorkerPID())
	}
	busy.Store(false)
	waitWorker(t, bg, pid)
	if !bg.Loaded() {
		t.Error("the reloaded background worker says it is not loaded")
	}
	deadline := time.Now().Add(time.Minute)
	for main.Busy() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if main.Busy() {
		t.Error("the main client is still busy a minute after its last request")
	}
}

// cutShort sends bg a beam-5 decode of win and cancels it once it has
// reached the worker, which kills the background worker mid-call.
func cutShort(t *testing.T, bg *engine.Client, win engine.Window) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := bg.Generate(ctx, win, engine.GenerateRequest{Prompt: enPrompt, BeamSize: 5, Patience: 1,
			LengthPenalty: 1, RepetitionPenalty: 1, MaxLength: 448, SamplingTopK: 1, SamplingTemperature: 1,
			NumHypotheses: 1, MaxInitialTimestampIndex: 50, SuppressTokens: []int{-1}})
		errc <- err
	}()
	time.Sleep(150 * time.Millisecond) // let the request reach the worker
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cut short: err %v, want context.Canceled", err)
	}
}
