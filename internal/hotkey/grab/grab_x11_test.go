//go:build linux && cgo

package grab

import (
	"bufio"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// These tests need an X server: TestMain starts a private Xvfb (with -r: with autorepeat
// on, held keys send up/down pairs), else they use DISPLAY.

// newGrabber opens a Grabber, or stops the test when there is no display to open.
func newGrabber(t *testing.T) *Grabber {
	t.Helper()
	g, err := New(logger(t))
	if errors.Is(err, ErrNoDisplay) {
		t.Log(err)
		testenv.Require(t, "an X display", "apt-get install xvfb (the tests start a private one), or set DISPLAY")
	}
	if err != nil {
		t.Fatalf("grab.New: %v", err)
	}
	return g
}

func xdotool(t *testing.T, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("xdotool"); err != nil {
		testenv.Require(t, "xdotool", "apt-get install xdotool")
	}
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
}

// listen starts a Listener on a real Grabber; both are closed when the test ends.
func listen(t *testing.T, cfg hotkey.Config) *hotkey.Listener {
	t.Helper()
	g := newGrabber(t)
	l, err := hotkey.New(cfg, logger(t), g)
	if err != nil {
		g.Close()
		t.Fatalf("hotkey.New: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Listener.Close: %v", err)
		}
		if err := g.Close(); err != nil {
			t.Errorf("Grabber.Close: %v", err)
		}
	})
	return l
}

func next(t *testing.T, l *hotkey.Listener) hotkey.Event {
	t.Helper()
	select {
	case ev := <-l.Events():
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no hotkey event within 5s")
	}
	return hotkey.Event{}
}

func expect(t *testing.T, l *hotkey.Listener, kind hotkey.Kind, h hotkey.Hotkey) {
	t.Helper()
	if ev := next(t, l); ev.Kind != kind || ev.Hotkey != h {
		t.Fatalf("got %s/%s (err %v), want %s/%s", ev.Kind, ev.Hotkey, ev.Err, kind, h)
	}
}

// press holds keys down; the caller then waits for the event they cause.
func press(t *testing.T, keys string) { xdotool(t, "keydown", keys) }

// release lets keys go and pauses as a person would before the next press, so the
// Listener has read the release before the keys go down again.
func release(t *testing.T, keys string) {
	xdotool(t, "keyup", keys)
	time.Sleep(100 * time.Millisecond)
}

// tap presses and releases keys that should cause no event.
func tap(t *testing.T, keys string) {
	press(t, keys)
	time.Sleep(50 * time.Millisecond)
	release(t, keys)
}

func TestHoldUnderX11(t *testing.T) {
	l := listen(t, hotkey.Config{Record: "ctrl+shift+f9", Mode: "hold"})
	for range 2 {
		press(t, "ctrl+shift+F9")
		expect(t, l, hotkey.Start, hotkey.Record)
		release(t, "ctrl+shift+F9")
		expect(t, l, hotkey.Stop, hotkey.Record)
	}
}

// A tap shorter than the time the Listener takes to see it (xdotool lets go within a
// millisecond, as a loaded machine delays any tap) still starts and stops.
func TestQuickTapUnderX11(t *testing.T) {
	for _, mode := range []choice.HotkeyMode{choice.Toggle, choice.Hold} {
		t.Run(string(mode), func(t *testing.T) {
			l := listen(t, hotkey.Config{Record: "ctrl+shift+f9", Mode: mode})
			xdotool(t, "key", "ctrl+shift+F9")
			expect(t, l, hotkey.Start, hotkey.Record)
			if mode == "toggle" {
				time.Sleep(100 * time.Millisecond)
				xdotool(t, "key", "ctrl+shift+F9")
			}
			expect(t, l, hotkey.Stop, hotkey.Record)
		})
	}
}

func TestToggleAndCancelUnderX11(t *testing.T) {
	l := listen(t, hotkey.Config{Record: "ctrl+shift+f9", AutoSend: "ctrl+shift+f10", Mode: "toggle"})
	press(t, "ctrl+shift+F9")
	expect(t, l, hotkey.Start, hotkey.Record)
	release(t, "ctrl+shift+F9")
	press(t, "ctrl+shift+F9")
	expect(t, l, hotkey.Stop, hotkey.Record)
	release(t, "ctrl+shift+F9")

	press(t, "ctrl+shift+F10")
	expect(t, l, hotkey.Start, hotkey.AutoSend)
	release(t, "ctrl+shift+F10")
	press(t, "Escape")
	expect(t, l, hotkey.Cancel, hotkey.AutoSend)
	release(t, "Escape")

	// Esc is let go once nothing records: pressing it now gives nothing, so the next
	// event is the one of the following press.
	tap(t, "Escape")
	press(t, "ctrl+shift+F9")
	expect(t, l, hotkey.Start, hotkey.Record)
	release(t, "ctrl+shift+F9")
	press(t, "ctrl+shift+F10")
	expect(t, l, hotkey.Stop, hotkey.AutoSend)
	release(t, "ctrl+shift+F10")
}

func TestModifierOnlyUnderX11(t *testing.T) {
	tests := []struct {
		name string
		keys string // xdotool presses them left to right
	}{
		{name: "ctrl first", keys: "ctrl+super"},
		{name: "win first", keys: "super+ctrl"},
		{name: "right keys", keys: "Control_R+Super_R"},
	}
	l := listen(t, hotkey.Config{Record: "ctrl+win", Mode: "hold"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			press(t, tt.keys)
			expect(t, l, hotkey.Start, hotkey.Record)
			release(t, tt.keys)
			expect(t, l, hotkey.Stop, hotkey.Record)
		})
	}
	// Ctrl alone, or with another key, is not the hotkey.
	tap(t, "ctrl")
	tap(t, "ctrl+c")
	press(t, "ctrl+super")
	expect(t, l, hotkey.Start, hotkey.Record)
	release(t, "ctrl+super")
	expect(t, l, hotkey.Stop, hotkey.Record)
}

func TestCancelWhileHeldUnderX11(t *testing.T) {
	// While the hotkey is held its grab takes the whole keyboard, so Esc arrives on it.
	l := listen(t, hotkey.Config{Record: "ctrl+shift+f9", Mode: "hold"})
	press(t, "ctrl+shift+F9")
	expect(t, l, hotkey.Start, hotkey.Record)
	press(t, "Escape")
	expect(t, l, hotkey.Cancel, hotkey.Record)
	release(t, "Escape")
	release(t, "ctrl+shift+F9")
	press(t, "ctrl+shift+F9")
	expect(t, l, hotkey.Start, hotkey.Record) // the release after the cancel was silent
	release(t, "ctrl+shift+F9")
	expect(t, l, hotkey.Stop, hotkey.Record)
}

func TestLockKeysUnderX11(t *testing.T) {
	// X matches a grab's modifiers exactly; CapsLock and NumLock add theirs to the state.
	tests := []struct {
		name  string
		locks []string
	}{
		{name: "capslock", locks: []string{"Caps_Lock"}},
		{name: "numlock", locks: []string{"Num_Lock"}},
		{name: "both", locks: []string{"Caps_Lock", "Num_Lock"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := listen(t, hotkey.Config{Record: "ctrl+shift+f9", Mode: "hold"})
			xdotool(t, append([]string{"key"}, tt.locks...)...)
			t.Cleanup(func() { xdotool(t, append([]string{"key"}, tt.locks...)...) }) // toggle them off again
			press(t, "ctrl+shift+F9")
			expect(t, l, hotkey.Start, hotkey.Record)
			release(t, "ctrl+shift+F9")
			expect(t, l, hotkey.Stop, hotkey.Record)
		})
	}
}

func TestSameComboTwiceUnderX11(t *testing.T) {
	// One X connection holds every grab, and X lets a client grab a key twice without
	// complaint: the second Grab must still say the combination is taken.
	g := newGrabber(t)
	defer g.Close()
	first, err := g.Grab(mustParse("ctrl+shift+f8"))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	if second, err := g.Grab(mustParse("ctrl+shift+f8")); !errors.Is(err, hotkey.ErrTaken) {
		if second != nil {
			second.Release()
		}
		t.Fatalf("second Grab: %v, want an error wrapping ErrTaken", err)
	}
	press(t, "ctrl+shift+F8")
	select {
	case e := <-first.Edges():
		if !e.Down {
			t.Fatalf("first edge is up, want down")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no edge within 5s")
	}
	release(t, "ctrl+shift+F8")
	if err := first.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if err := first.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
}

// TestHelperHoldGrab is not a test: the conflict test runs the test binary with
// GRAB_HELPER set, as "another application" that owns a combination.
func TestHelperHoldGrab(t *testing.T) {
	combo := os.Getenv("GRAB_HELPER")
	if combo == "" {
		t.Skip("helper process for TestConflictUnderX11")
	}
	g := newGrabber(t)
	defer g.Close()
	gr, err := g.Grab(mustParse(combo))
	if err != nil {
		t.Fatal(err)
	}
	defer gr.Release()
	os.Stdout.WriteString("READY\n")
	io.Copy(io.Discard, os.Stdin) // hold the grab until the parent closes stdin
}

func TestConflictUnderX11(t *testing.T) {
	newGrabber(t).Close() // stop here, not in the helper, when there is no display
	other := exec.Command(os.Args[0], "-test.run=^TestHelperHoldGrab$")
	other.Env = append(os.Environ(), "GRAB_HELPER=ctrl+shift+f11")
	stdin, _ := other.StdinPipe()
	stdout, _ := other.StdoutPipe()
	other.Stderr = os.Stderr
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Wait()
	defer stdin.Close()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "READY\n" {
		t.Fatalf("helper: %q, %v", line, err)
	}

	l := listen(t, hotkey.Config{Record: "ctrl+shift+f11", AutoSend: "ctrl+shift+f12", Mode: "toggle"})
	ev := next(t, l)
	if ev.Kind != hotkey.Problem || !errors.Is(ev.Err, hotkey.ErrTaken) {
		t.Fatalf("got %v, want a Problem wrapping ErrTaken", ev)
	}
	const want = "ctrl+shift+f11 is already taken by another application; choose another in config hotkeys.record"
	if ev.Err.Error() != want {
		t.Fatalf("message %q, want %q", ev.Err, want)
	}
	// The other hotkey works.
	press(t, "ctrl+shift+F12")
	expect(t, l, hotkey.Start, hotkey.AutoSend)
	release(t, "ctrl+shift+F12")
	press(t, "ctrl+shift+F12")
	expect(t, l, hotkey.Stop, hotkey.AutoSend)
	release(t, "ctrl+shift+F12")

	// Once the other application lets go, re-registering takes the combination.
	stdin.Close()
	if err := other.Wait(); err != nil {
		t.Fatalf("helper: %v", err)
	}
	if err := l.Reregister(); err != nil {
		t.Fatalf("Reregister: %v", err)
	}
	press(t, "ctrl+shift+F11")
	expect(t, l, hotkey.Start, hotkey.Record)
	release(t, "ctrl+shift+F11")
}

// pressUntil presses keys until the Listener starts, since the grabber moves its grabs
// when it reads the server's MappingNotify, a moment after the layout command returned.
// A press that comes too early reaches no grab and is simply tried again.
func pressUntil(t *testing.T, l *hotkey.Listener, keys string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		press(t, keys)
		select {
		case ev := <-l.Events():
			if ev.Kind != hotkey.Start || ev.Hotkey != hotkey.Record {
				t.Fatalf("got %s/%s (err %v), want start/record", ev.Kind, ev.Hotkey, ev.Err)
			}
			return
		case <-time.After(500 * time.Millisecond):
		}
		release(t, keys)
		if time.Now().After(deadline) {
			t.Fatalf("%s never started the recording after the keyboard mapping changed", keys)
		}
	}
}

func TestLayoutChangeUnderX11(t *testing.T) {
	// A German layout swaps Y and Z, so ctrl+shift+z moves to another keycode and the
	// grab has to follow it; xmodmap moves keys through the core protocol instead of XKB.
	for _, tool := range []string{"setxkbmap", "xmodmap"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Require(t, tool, "apt-get install x11-xkb-utils x11-xserver-utils")
		}
	}
	l := listen(t, hotkey.Config{Record: "ctrl+shift+z", Mode: "hold"})
	steps := []struct {
		name string
		cmd  []string
	}{
		{name: "us", cmd: []string{"setxkbmap", "us"}},
		{name: "de", cmd: []string{"setxkbmap", "de"}},
		{name: "back to us", cmd: []string{"setxkbmap", "us"}},
		{name: "xmodmap swaps y and z", cmd: []string{"xmodmap", "-e", "keycode 29 = z Z", "-e", "keycode 52 = y Y"}},
		{name: "us again", cmd: []string{"setxkbmap", "us"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if out, err := exec.Command(st.cmd[0], st.cmd[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("%v: %v: %s", st.cmd, err, out)
			}
			pressUntil(t, l, "ctrl+shift+z")
			release(t, "ctrl+shift+z")
			expect(t, l, hotkey.Stop, hotkey.Record)
		})
	}
}

// A keyboard plugged in (here a new master device with its XTEST keyboard, which
// the server announces as an XInput hierarchy change, as it does a USB keyboard)
// makes the grabber check its grabs, and the hotkey keeps working.
func TestKeyboardPluggedUnderX11(t *testing.T) {
	if _, err := exec.LookPath("xinput"); err != nil {
		testenv.Require(t, "xinput", "apt-get install xinput")
	}
	var logged testenv.Buffer
	g, err := New(slog.New(slog.NewTextHandler(&logged, nil)))
	if err != nil {
		t.Fatalf("grab.New: %v", err)
	}
	l, err := hotkey.New(hotkey.Config{Record: "ctrl+shift+f8", Mode: "hold"}, logger(t), g)
	if err != nil {
		g.Close()
		t.Fatalf("hotkey.New: %v", err)
	}
	t.Cleanup(func() {
		l.Close()
		g.Close()
	})
	if strings.Contains(logged.String(), "no XInput 2") {
		t.Fatalf("the X server has XInput 2, the grabber did not see it:\n%s", logged.String())
	}
	if out, err := exec.Command("xinput", "create-master", "wkplug").CombinedOutput(); err != nil {
		t.Fatalf("xinput create-master: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("xinput", "remove-master", "wkplug pointer").Run() })
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logged.String(), "keyboard plugged in") {
		if time.Now().After(deadline) {
			t.Fatalf("no hierarchy event within 5 s of a new keyboard:\n%s", logged.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	press(t, "ctrl+shift+F8")
	expect(t, l, hotkey.Start, hotkey.Record)
	release(t, "ctrl+shift+F8")
	expect(t, l, hotkey.Stop, hotkey.Record)
}

// Right Ctrl alone is the hotkey; Left Ctrl is not, and Right Ctrl+C ends the
// hold as another shortcut.
func TestRightCtrlUnderX11(t *testing.T) {
	l := listen(t, hotkey.Config{Record: "rctrl", Mode: "hold"})
	tap(t, "Control_L")
	press(t, "Control_R")
	expect(t, l, hotkey.Start, hotkey.Record)
	release(t, "Control_R")
	expect(t, l, hotkey.Stop, hotkey.Record)
	press(t, "Control_R")
	expect(t, l, hotkey.Start, hotkey.Record)
	xdotool(t, "key", "c")
	expect(t, l, hotkey.Passed, hotkey.Record)
	release(t, "Control_R")
}

// A mouse side button as the hotkey: X11's button 8 held is a hold; button 9,
// not bound, does nothing.
func TestSideButtonUnderX11(t *testing.T) {
	l := listen(t, hotkey.Config{Record: "mouse4", Mode: "hold"})
	xdotool(t, "click", "9")
	for range 2 {
		xdotool(t, "mousedown", "8")
		expect(t, l, hotkey.Start, hotkey.Record)
		xdotool(t, "mouseup", "8")
		expect(t, l, hotkey.Stop, hotkey.Record)
	}
}
