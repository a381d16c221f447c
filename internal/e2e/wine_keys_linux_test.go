//go:build linux

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// TestWineKeys drives the Windows build's keyboard and mouse hooks under wine,
// where X's keys and buttons reach them as a keyboard's and a mouse's: Right
// Ctrl alone, a side button (X11 button 8 is XBUTTON1), auto mode's tap, and
// a chord whose next key goes on to the window.
func TestWineKeys(t *testing.T) {
	w, tools, dir, srv := installedWine(t)
	exe := dir + `\whisperkey.exe`
	wav := micWAV(t, dictated)
	cases := []struct {
		name   string
		hotkey string
		config string
		act    func(t *testing.T, tg *wineTarget)
		// want: the target's text is the dictation ("") or exactly this.
		want string
		// log: a line the app's log must hold.
		log string
	}{
		{name: "right ctrl alone", hotkey: "rctrl", act: func(t *testing.T, _ *wineTarget) {
			holdKeysWhile(t, "Control_R", 300*time.Millisecond, func() { say(t, wav) })
		}},
		{name: "the mouse's back button", hotkey: "mouse4", act: func(t *testing.T, tg *wineTarget) {
			// wine hears the X pointer's buttons only over its own windows,
			// as Windows' hook hears every button on a real desktop.
			xdo(t, "mousemove", "--sync", "--window", tg.window, "20", "20")
			xdo(t, "mousedown", "8")
			time.Sleep(300 * time.Millisecond)
			say(t, wav)
			time.Sleep(300 * time.Millisecond)
			xdo(t, "mouseup", "8")
		}},
		{name: "auto mode: tap, speak, tap", hotkey: "ctrl+win", config: "  mode: auto\n", act: func(t *testing.T, _ *wineTarget) {
			xdoTap(t, "ctrl+super", 1)
			say(t, wav)
			time.Sleep(300 * time.Millisecond)
			xdoTap(t, "ctrl+super", 1)
		}},
		// Shift+Win, so the key passed on types: the window gets the D.
		{name: "a key pressed with the chord goes on to the window", hotkey: "shift+win", want: "D",
			log: "part of another shortcut", act: func(t *testing.T, _ *wineTarget) {
				xdo(t, "keydown", "shift+super")
				time.Sleep(400 * time.Millisecond)
				xdo(t, "key", "d")
				xdo(t, "keyup", "shift+super")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := startWineApp(t, w, exe, "remote:\n  url: "+srv.url+"\nhotkeys:\n  record: "+tc.hotkey+"\n  cancel: esc\n"+tc.config)
			tg := openWineTarget(t, w, tools)
			tc.act(t, tg)
			got := tg.waitText(t, 30*time.Second)
			if tc.want != "" {
				time.Sleep(2 * time.Second) // a dictation would have come by now
				if got = tg.text(t); got != tc.want {
					t.Fatalf("target got %q, want %q", got, tc.want)
				}
			} else if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
				t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
			}
			t.Logf("the window holds %q", got)
			log := a.logText(t)
			if tc.log != "" && !strings.Contains(log, tc.log) {
				t.Fatalf("the app log lacks %q:\n%s", tc.log, log)
			}
			if tc.want != "" && strings.Contains(log, "Nothing heard") {
				t.Fatalf("the chord passed on ended as \"Nothing heard\", want no word:\n%s", log)
			}
		})
	}
}
