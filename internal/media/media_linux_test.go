package media

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

func onBus(t *testing.T, mode choice.MediaMode, addr string) *Controller {
	t.Helper()
	c := newController(mode, testlog.New(t, slog.LevelDebug), func() (*dbus.Conn, error) { return dbus.Connect(addr) })
	t.Cleanup(func() {
		if c.conn != nil {
			_ = c.conn.Close()
		}
	})
	return c
}

// Pause mode pauses what plays, resumes only that, and leaves alone a player
// the user resumed and paused again during the recording, one that was
// already paused, and one the user stopped.
func TestPauseResumesOnlyWhatItPaused(t *testing.T) {
	addr := testenv.PrivateBus(t)
	playing := testenv.NewPlayer(t, addr, "playing", "Playing", 1)
	paused := testenv.NewPlayer(t, addr, "paused", "Paused", 1)
	fiddled := testenv.NewPlayer(t, addr, "fiddled", "Playing", 1)
	stopped := testenv.NewPlayer(t, addr, "stopped", "Playing", 1)
	c := onBus(t, choice.MediaPause, addr)
	ctx := t.Context()

	c.begin(ctx, choice.MediaPause)
	for _, p := range []*testenv.Player{playing, fiddled, stopped} {
		if p.Status() != "Paused" {
			t.Fatalf("a playing player is %s during the recording, want Paused", p.Status())
		}
	}
	// The user, meanwhile: plays and pauses one again, stops another.
	fiddled.SetStatus("Playing")
	fiddled.SetStatus("Paused")
	stopped.SetStatus("Stopped")
	c.end(ctx)

	tests := []struct {
		name   string
		p      *testenv.Player
		status string
		calls  []string
	}{
		{"was playing", playing, "Playing", []string{"Pause", "Play"}},
		{"was paused", paused, "Paused", nil},
		{"paused again by the user", fiddled, "Paused", []string{"Pause"}},
		{"stopped by the user", stopped, "Stopped", []string{"Pause"}},
	}
	for _, tt := range tests {
		if got := tt.p.Status(); got != tt.status || !slices.Equal(tt.p.Calls(), tt.calls) {
			t.Errorf("%s: status %s, calls %q; want %s, %q", tt.name, got, tt.p.Calls(), tt.status, tt.calls)
		}
	}
}

// Lower mode turns playing players down to LowerFactor and back, except one
// whose volume the user set meanwhile.
func TestLowerRestoresVolume(t *testing.T) {
	addr := testenv.PrivateBus(t)
	a := testenv.NewPlayer(t, addr, "a", "Playing", 0.8)
	b := testenv.NewPlayer(t, addr, "b", "Playing", 0.5)
	idle := testenv.NewPlayer(t, addr, "idle", "Paused", 0.9)
	c := onBus(t, choice.MediaLower, addr)
	ctx := t.Context()

	c.begin(ctx, choice.MediaLower)
	if !near(a.Volume(), 0.8*LowerFactor) || !near(b.Volume(), 0.5*LowerFactor) || idle.Volume() != 0.9 {
		t.Fatalf("volumes while recording %v %v %v, want %v %v 0.9", a.Volume(), b.Volume(), idle.Volume(), 0.8*LowerFactor, 0.5*LowerFactor)
	}
	b.SetVolume(0.3)
	c.end(ctx)
	if !near(a.Volume(), 0.8) || b.Volume() != 0.3 || idle.Volume() != 0.9 || a.Status() != "Playing" {
		t.Errorf("volumes after %v %v %v (a %s), want 0.8, 0.3 (the user's), 0.9, Playing", a.Volume(), b.Volume(), idle.Volume(), a.Status())
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Off leaves a playing player alone and does not even connect.
func TestOffTouchesNothing(t *testing.T) {
	addr := testenv.PrivateBus(t)
	p := testenv.NewPlayer(t, addr, "p", "Playing", 1)
	c := onBus(t, choice.MediaOff, addr)
	c.begin(t.Context(), choice.MediaOff)
	c.end(t.Context())
	if p.Status() != "Playing" || len(p.Calls()) != 0 || c.conn != nil {
		t.Errorf("off: player %s, calls %q, connected %v; want Playing, none, false", p.Status(), p.Calls(), c.conn != nil)
	}
}

// Through Run, as the desktop drives it: Recording(true) pauses, (false)
// resumes, and Run's end puts back what a recording cut short by quitting
// had paused.
func TestRunFollowsRecording(t *testing.T) {
	addr := testenv.PrivateBus(t)
	p := testenv.NewPlayer(t, addr, "p", "Playing", 1)
	c := onBus(t, choice.MediaOff, addr)
	c.SetMode(choice.MediaPause)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	c.Recording(true)
	waitStatus(t, p, "Paused")
	c.Recording(false)
	waitStatus(t, p, "Playing")
	c.Recording(true)
	waitStatus(t, p, "Paused")
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if p.Status() != "Playing" {
		t.Errorf("after Run ended mid-recording the player is %s, want Playing", p.Status())
	}
	if want := []string{"Pause", "Play", "Pause", "Play"}; !slices.Equal(p.Calls(), want) {
		t.Errorf("calls %q, want %q", p.Calls(), want)
	}
}

// Without a session bus the controller does nothing and says so once.
func TestNoBus(t *testing.T) {
	c := onBus(t, choice.MediaPause, "unix:path=/nonexistent/bus")
	c.begin(t.Context(), choice.MediaPause)
	c.end(t.Context())
	if !c.warned || c.conn != nil {
		t.Errorf("warned %v conn %v, want a warning and no connection", c.warned, c.conn)
	}
}

func waitStatus(t *testing.T, p *testenv.Player, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if p.Status() == want {
			return
		}
	}
	t.Fatalf("player status %s, want %s", p.Status(), want)
}
