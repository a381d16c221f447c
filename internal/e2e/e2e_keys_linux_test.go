//go:build linux

package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
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

// keyWindow is testdata/keys.tcl: a window with the keyboard focus that
// reports the keys it gets.
type keyWindow struct {
	lines chan string
}

func openKeyWindow(t testing.TB) *keyWindow {
	t.Helper()
	cmd := exec.Command("wish", filepath.Join(testenv.RepoRoot(t), "internal", "e2e", "testdata", "keys.tcl"))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	w := &keyWindow{lines: make(chan string, 64)}
	sc := bufio.NewScanner(out)
	if !sc.Scan() || sc.Text() != "READY" {
		t.Fatalf("key window did not start: %q", sc.Text())
	}
	go func() {
		defer close(w.lines)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
	}()
	return w
}

// waitKey waits for the window to report a press of keysym and returns its
// modifier state.
func (w *keyWindow) waitKey(t testing.TB, keysym string, limit time.Duration) int {
	t.Helper()
	deadline := time.After(limit)
	var seen []string
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				t.Fatal("key window closed")
			}
			seen = append(seen, l)
			var got string
			var state int
			if _, err := fmt.Sscanf(l, "KEY %s %d", &got, &state); err == nil && got == keysym {
				return state
			}
		case <-deadline:
			t.Fatalf("the window never got %s; it got %q", keysym, seen)
		}
	}
}

// TestChordPassesKeyThrough holds the default record chord, ctrl+win, and
// presses D, then Left, as for the desktop's Ctrl+Win+D and Ctrl+Win+Left:
// each key reaches the focused window with Ctrl and Super held, and the
// recording the chord started ends without a word (nothing pasted, no
// "Nothing heard"). The chord still records afterwards.
func TestChordPassesKeyThrough(t *testing.T) {
	desktopSession(t)
	a, _ := launchApp(t, "model: "+testenv.Model(t, "base")+"\n")
	a.waitStatus(t, "ready", 90*time.Second)
	w := openKeyWindow(t)
	const ctrl, super = 1 << 2, 1 << 6 // X11 ControlMask, Mod4Mask
	for _, key := range []string{"d", "Left"} {
		xdo(t, "keydown", "ctrl+super")
		a.waitStatus(t, "Listening", 10*time.Second)
		time.Sleep(400 * time.Millisecond) // longer than audio.min_duration: the take goes to the speech check
		xdo(t, "key", key)
		xdo(t, "keyup", "ctrl+super")
		if state := w.waitKey(t, key, 10*time.Second); state&(ctrl|super) != ctrl|super {
			t.Fatalf("the window got %s with modifier state %#x, want Control and Super held", key, state)
		}
		var s string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if s, _ = a.menu.Status(); !strings.Contains(s, "Listening") && !strings.Contains(s, "Transcrib") {
				break
			}
		}
		for _, bad := range []string{"Listening", "Transcrib", "Nothing heard", "Cancelled", "Too short"} {
			if strings.Contains(s, bad) {
				t.Fatalf("after ctrl+win+%s the tray says %q, want the recording ended without a word", key, s)
			}
		}
	}
	b, err := os.ReadFile(a.log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "part of another shortcut; its key went on"); n != 2 {
		t.Fatalf("the log tells of %d shortcuts passed on, want 2:\n%s", n, b)
	}
	if strings.Contains(string(b), "msg=dictated") {
		t.Fatalf("something was dictated:\n%s", b)
	}
	// The chord alone still records: a short hold is dropped as too short.
	xdo(t, "keydown", "ctrl+super")
	a.waitStatus(t, "Listening", 10*time.Second)
	xdo(t, "keyup", "ctrl+super")
	a.waitStatus(t, "Too short", 10*time.Second)
}

// TestRightCtrlAlone makes Right Ctrl alone the record hotkey: held while
// speaking it dictates, Left Ctrl does nothing, and Right Ctrl+C still
// reaches the window as Ctrl+C.
func TestRightCtrlAlone(t *testing.T) {
	desktopSession(t)
	wav := micWAV(t, dictated)
	a, _ := launchApp(t, "model: "+testenv.Model(t, "base")+"\nhotkeys:\n  record: rctrl\n")
	a.waitStatus(t, "ready", 90*time.Second)
	tg := openTarget(t)
	xdo(t, "keydown", "Control_L")
	time.Sleep(400 * time.Millisecond)
	xdo(t, "keyup", "Control_L")
	holdKeysWhile(t, "Control_R", 300*time.Millisecond, func() { say(t, wav) })
	got := tg.waitText(t, 30*time.Second)
	if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
		t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
	}
	t.Logf("pasted %q", got)
	a.wantOneStart(t, "Left Ctrl is not the hotkey")
	w := openKeyWindow(t)
	xdo(t, "keydown", "Control_R")
	a.waitStatus(t, "Listening", 10*time.Second)
	xdo(t, "key", "c")
	xdo(t, "keyup", "Control_R")
	if state := w.waitKey(t, "c", 10*time.Second); state&(1<<2) == 0 {
		t.Fatalf("the window got c with modifier state %#x, want Control held", state)
	}
}

// TestSideButton makes the mouse's back button (X11 button 8) the record
// hotkey: held while speaking it dictates; the forward button, not bound,
// starts nothing.
func TestSideButton(t *testing.T) {
	desktopSession(t)
	wav := micWAV(t, dictated)
	a, _ := launchApp(t, "model: "+testenv.Model(t, "base")+"\nhotkeys:\n  record: mouse4\n")
	a.waitStatus(t, "ready", 90*time.Second)
	tg := openTarget(t)
	xdo(t, "click", "9")
	xdo(t, "mousedown", "8")
	time.Sleep(300 * time.Millisecond)
	say(t, wav)
	time.Sleep(300 * time.Millisecond)
	xdo(t, "mouseup", "8")
	got := tg.waitText(t, 30*time.Second)
	if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
		t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
	}
	t.Logf("pasted %q", got)
	a.wantOneStart(t, "button 9 is not the hotkey")
}

// wantOneStart checks that the app started one recording, no more; why says
// what else must not have started one.
func (a *runningApp) wantOneStart(t testing.TB, why string) {
	t.Helper()
	b, err := os.ReadFile(a.log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "kind=start"); n != 1 {
		t.Fatalf("%d recordings started, want 1 (%s):\n%s", n, why, b)
	}
}
