//go:build linux

package power

import (
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// logind's PrepareForSleep on a bus of the test's own: false (resume) is reported,
// true (going to sleep) is not, and Close ends the reader.
func TestResumeFromLogind(t *testing.T) {
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", testenv.PrivateBus(t))
	w, err := Watch(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Close()
	logind := testenv.NewLogind(t, os.Getenv("DBUS_SYSTEM_BUS_ADDRESS"))
	steps := []struct {
		sleeping    bool
		wantResumed bool
	}{
		{sleeping: true, wantResumed: false},
		{sleeping: false, wantResumed: true},
		{sleeping: true, wantResumed: false},
		{sleeping: false, wantResumed: true},
	}
	for i, st := range steps {
		logind.Sleep(t, st.sleeping)
		wait := 5 * time.Second
		if !st.wantResumed {
			wait = 500 * time.Millisecond
		}
		select {
		case <-w.Resumed():
			if !st.wantResumed {
				t.Fatalf("step %d: PrepareForSleep(%v) reported a resume", i, st.sleeping)
			}
		case <-time.After(wait):
			if st.wantResumed {
				t.Fatalf("step %d: PrepareForSleep(false) reported no resume within %v", i, wait)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// Without a system bus Watch says so instead of hanging.
func TestWatchWithoutBus(t *testing.T) {
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/whisperkey-test-bus")
	if w, err := Watch(slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
		w.Close()
		t.Fatal("Watch succeeded without a bus")
	}
}
