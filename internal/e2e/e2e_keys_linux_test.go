//go:build linux

package e2e

import (
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// xdoTap taps chord n times in one xdotool run: each tap is down for 80 ms and
// the taps are 120 ms apart, in the X server's own time whatever the load.
func xdoTap(t testing.TB, chord string, n int) {
	t.Helper()
	var args []string
	for i := range n {
		if i > 0 {
			args = append(args, "sleep", "0.12")
		}
		args = append(args, "keydown", chord, "sleep", "0.08", "keyup", chord)
	}
	xdo(t, args...)
}

// TestAutoMode drives hotkeys.mode auto on the real app: a hold is push to
// talk, a tap starts a recording the next tap stops, and a double tap locks
// it on (the second tap does not stop it).
func TestAutoMode(t *testing.T) {
	desktopSession(t)
	wav := micWAV(t, dictated)
	const chord = "ctrl+shift+F9"
	cases := []struct {
		name string
		act  func(t *testing.T, a *runningApp)
	}{
		{name: "hold, speak, release", act: func(t *testing.T, a *runningApp) {
			holdKeysWhile(t, chord, 300*time.Millisecond, func() { say(t, wav) })
		}},
		{name: "tap, speak, tap", act: func(t *testing.T, a *runningApp) {
			xdoTap(t, chord, 1)
			a.waitStatus(t, "Listening", 10*time.Second)
			say(t, wav)
			time.Sleep(300 * time.Millisecond)
			a.waitStatus(t, "Listening", time.Second) // the tap's release did not stop it
			xdoTap(t, chord, 1)
		}},
		{name: "double tap locks, speak, tap", act: func(t *testing.T, a *runningApp) {
			xdoTap(t, chord, 2)
			a.waitStatus(t, "Listening", 10*time.Second)
			say(t, wav)
			time.Sleep(300 * time.Millisecond)
			a.waitStatus(t, "Listening", time.Second) // the second tap did not stop it
			xdoTap(t, chord, 1)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := startApp(t, "  mode: auto\n")
			tg := openTarget(t)
			tc.act(t, a)
			got := tg.waitText(t, 30*time.Second)
			if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
				t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
			}
			t.Logf("pasted %q", got)
		})
	}
}
