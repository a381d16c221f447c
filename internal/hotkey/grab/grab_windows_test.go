//go:build windows

package grab

import (
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/win32"
)

// These tests type with SendInput into the real hook; they run under wine too
// (scripts/wine-test.sh), where the watcher is a message-only window for want of a display.

// send types keys through SendInput; "+name" presses, "-name" releases.
func send(t *testing.T, keys ...string) {
	t.Helper()
	for _, k := range keys {
		vk, ok := testVKs[k[1:]]
		if !ok {
			t.Fatalf("unknown key %q", k)
		}
		in := win32.Key{VK: uint16(vk)}
		if k[0] == '-' {
			in.Flags = win32.KeyUp
		}
		switch vk {
		case vkRControl, vkRMenu, vkLWin, vkRWin:
			in.Flags |= win32.KeyExtended // as the keyboard sends them (E0 prefix)
		}
		if err := win32.SendKeys([]win32.Key{in}); err != nil {
			t.Fatalf("SendInput %s: %v", k, err)
		}
	}
}

// hookGrabber opens a Grabber whose hook takes the test's injected keys.
func hookGrabber(t *testing.T) *Grabber {
	t.Helper()
	g, err := New(logger(t))
	if err != nil {
		t.Fatalf("grab.New: %v", err)
	}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Errorf("Grabber.Close: %v", err)
		}
	})
	g.os.keys.mu.Lock()
	g.os.keys.acceptInjected = true
	g.os.keys.mu.Unlock()
	return g
}

func listen(t *testing.T, cfg hotkey.Config) *hotkey.Listener {
	t.Helper()
	g := hookGrabber(t)
	l, err := hotkey.New(cfg, logger(t), g)
	if err != nil {
		t.Fatalf("hotkey.New: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Listener.Close: %v", err)
		}
	})
	return l
}

func expect(t *testing.T, l *hotkey.Listener, kind hotkey.Kind, h hotkey.Hotkey) {
	t.Helper()
	select {
	case ev := <-l.Events():
		if ev.Kind != kind || ev.Hotkey != h {
			t.Fatalf("got %s/%s (err %v), want %s/%s", ev.Kind, ev.Hotkey, ev.Err, kind, h)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s event within 5s", kind)
	}
}

func expectEdge(t *testing.T, gr hotkey.Grab, down bool) {
	t.Helper()
	select {
	case e := <-gr.Edges():
		if e.Down != down {
			t.Fatalf("got edge down=%v, want down=%v", e.Down, down)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no edge (down=%v) within 5s", down)
	}
}

func TestHookModifierChord(t *testing.T) {
	l := listen(t, hotkey.Config{Record: "ctrl+win", Mode: "hold"})
	// Ctrl or Win alone gives nothing, so the first event is the chord's.
	send(t, "+lctrl", "-lctrl", "+rctrl", "-rctrl", "+lwin", "-lwin")
	send(t, "+lctrl", "+lwin")
	expect(t, l, hotkey.Start, hotkey.Record)
	send(t, "-lwin")
	expect(t, l, hotkey.Stop, hotkey.Record)
	send(t, "-lctrl")

	// Right-hand keys, Win first; Esc while the chord is held cancels.
	send(t, "+rwin", "+rctrl")
	expect(t, l, hotkey.Start, hotkey.Record)
	send(t, "+esc")
	expect(t, l, hotkey.Cancel, hotkey.Record)
	send(t, "-esc", "-rctrl", "-rwin")
}

func TestHookKeyCombo(t *testing.T) {
	l := listen(t, hotkey.Config{Record: "ctrl+shift+f9", Mode: "toggle"})
	send(t, "+lctrl", "+f9", "-f9") // Shift missing: not the hotkey
	// Held until the event: the Listener checks the keyboard when the down arrives.
	send(t, "+lshift", "+f9", "+f9", "+f9") // repeats count once
	expect(t, l, hotkey.Start, hotkey.Record)
	send(t, "-f9", "-lshift", "-lctrl", "+esc")
	expect(t, l, hotkey.Cancel, hotkey.Record)
	send(t, "-esc")
}

// The hook is re-installed on a session unlock and on a resume from sleep,
// posted to the watcher window as Windows sends them; the Listener is told
// and the renewed hook works.
func TestHookRenewedOnUnlockAndResume(t *testing.T) {
	tests := []struct {
		name       string
		msg, param uintptr
		reason     string
	}{
		{name: "unlock", msg: wmWTSSessionChange, param: windows.WTS_SESSION_UNLOCK, reason: "session unlocked"},
		{name: "resume", msg: wmPowerBroadcast, param: pbtAPMResumeAuto, reason: "resumed from sleep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := hookGrabber(t)
			if g.os.hwnd == 0 {
				t.Fatal("no session watcher window")
			}
			win32.PostMessage(g.os.hwnd, tt.msg, tt.param, 0)
			select {
			case r := <-g.Resumed():
				if r.Reason != tt.reason || !r.Session {
					t.Fatalf("Resumed gave %+v, want %q, a session's return", r, tt.reason)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("no Resumed after %s", tt.name)
			}
			gr, err := g.Grab(mustParse("ctrl+win"))
			if err != nil {
				t.Fatal(err)
			}
			defer gr.Release()
			send(t, "+lwin", "+lctrl")
			expectEdge(t, gr, true)
			if down, err := g.ComboDown(mustParse("ctrl+win")); !down || err != nil {
				t.Errorf("ComboDown(ctrl+win) = %v, %v while held", down, err)
			}
			send(t, "-lctrl")
			expectEdge(t, gr, false)
			send(t, "-lwin")
		})
	}
}

// taskkill and installers send WM_CLOSE to all of an app's windows; the
// hotkeys must survive it (the tray decides whether the app quits).
func TestHookSurvivesWMClose(t *testing.T) {
	g := hookGrabber(t)
	win32.PostMessage(g.os.hwnd, wmClose, 0, 0)
	time.Sleep(200 * time.Millisecond)
	gr, err := g.Grab(mustParse("ctrl+win"))
	if err != nil {
		t.Fatal(err)
	}
	defer gr.Release()
	send(t, "+lctrl", "+lwin")
	expectEdge(t, gr, true)
	send(t, "-lwin", "-lctrl")
	expectEdge(t, gr, false)
}

// Windows removes a hook that once answered too slowly, without notice. Here
// the hook is removed behind the grabber's back: keys still arrive as raw
// input, so the health check re-arms the hook, tells the Listener, and the
// combination fires again.
func TestHookRearmedWhenDeaf(t *testing.T) {
	g := hookGrabber(t)
	if !g.os.rawInput { // set before New returned
		testenv.Require(t, "keyboard raw input", "a Windows (or wine) that delivers WM_INPUT")
	}
	if r, _, err := procUnhookWindowsHookEx.Call(g.os.hook); r == 0 { // set before New returned; no renew since
		t.Fatalf("remove the hook: %v", err)
	}
	gr, err := g.Grab(mustParse("ctrl+win"))
	if err != nil {
		t.Fatal(err)
	}
	defer gr.Release()
	deadline := time.Now().Add(3 * healthEvery)
	for {
		send(t, "+lshift", "-lshift") // raw input sees it; the removed hook does not
		select {
		case r := <-g.Resumed():
			if r.Reason != "keyboard hook stopped receiving keys" || r.Session {
				t.Fatalf("Resumed gave %+v", r)
			}
			send(t, "+lctrl", "+lwin")
			expectEdge(t, gr, true)
			send(t, "-lwin", "-lctrl")
			expectEdge(t, gr, false)
			return
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook was not re-armed within %v of keys it missed", 3*healthEvery)
		}
	}
}
