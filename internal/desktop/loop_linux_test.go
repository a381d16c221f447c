package desktop

import (
	"context"
	"log/slog"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/tray"
)

// threadCPU is the CPU time the calling OS thread has used.
func threadCPU(t *testing.T) time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A tray that cannot start closes its Actions channel; the run loop must then
// wait for other events, not spin on the closed channel (defect: 100 % of a core).
func TestServeIdleWithClosedTrayActions(t *testing.T) {
	actions := make(chan tray.Action)
	close(actions)
	d := &desk{log: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	// serve runs on this goroutine, locked to its thread, so the thread's
	// CPU time is the loop's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadCPU(t)
	if err := d.serve(ctx, sources{actions: actions}); err != nil {
		t.Fatal(err)
	}
	used := threadCPU(t) - before
	t.Logf("run loop used %v of CPU in 500 ms with the tray gone", used)
	if used > 50*time.Millisecond {
		t.Fatalf("run loop used %v of CPU in 500 ms of idling: it spins on the closed Actions channel", used)
	}
}
