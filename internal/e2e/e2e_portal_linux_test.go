//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Dictation through the desktop's own shortcut (the GlobalShortcuts
// portal), end to end: headless sway with a native Wayland GTK window, and
// on the session bus a stand-in for xdg-desktop-portal that plays the
// desktop (no portal backend with GlobalShortcuts runs headless on
// Debian 12: GNOME's 43 lacks it, KDE's needs KWin, wlr's has none). The
// app binds hotkeys.record as the shortcut; Activated starts the recording
// while the sentence plays, Deactivated ends it, and the words must arrive
// in the window. A desktop that sends no Deactivated gets toggle, and one
// that declines the shortcut leaves the tray saying what to bind instead.
func TestWaylandPortalShortcut(t *testing.T) {
	desktopSession(t)
	testenv.RequireWaylandTarget(t, true)
	sway := testenv.StartSway(t, "")
	sway.Keyboard(t)
	env := sway.Env()
	appEnv := append(env, "DISPLAY=", "PULSE_SERVER=unix:"+filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "pulse", "native"))
	tg := openWaylandWindow(t, env)
	wav, speech := micSpeech(t, dictated)
	cfg := "model: " + testenv.Model(t, "base") + "\nhotkeys:\n  record: ctrl+shift+f9\n"
	// dictate presses the shortcut, says the sentence, ends the recording
	// with end (the release, or a second press) and checks the window got it.
	dictate := func(t *testing.T, a *runningApp, p *testenv.Portal, end func()) {
		t.Helper()
		p.Press(t, "record")
		a.waitStatus(t, "Listening", 5*time.Second)
		time.Sleep(300 * time.Millisecond)
		say(t, wav)
		time.Sleep(500 * time.Millisecond)
		end()
		got := pollText(func() string { return tg.text(t) }, 30*time.Second, 300*time.Millisecond)
		if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
			t.Fatalf("the Wayland window got %q (WER %.2f), want %q (speech %s)", got, wer, dictated, speech)
		}
		t.Logf("pasted %q", got)
	}

	t.Run("bound: hold to talk", func(t *testing.T) {
		p := testenv.NewPortal(t, os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
		a, _ := launchApp(t, cfg, appEnv...)
		a.waitStatus(t, "ready", 90*time.Second)
		p.WaitBound(t, 30*time.Second)
		if got := p.Trigger("record"); got != "CTRL+SHIFT+F9" {
			t.Errorf("the app proposed trigger %q for ctrl+shift+f9, want CTRL+SHIFT+F9", got)
		}
		a.waitStatus(t, "dictate with CTRL+SHIFT+F9 (your desktop's shortcut)", 10*time.Second)
		if !p.Registered() {
			t.Error("the app called the portal before registering its app id")
		}

		dictate(t, a, p, func() { p.Release(t, "record") })
		b, _ := os.ReadFile(a.log)
		for _, want := range []string{"record shortcut bound through the GlobalShortcuts portal", `"action":"toggle"`, `"action":"release"`} {
			if !strings.Contains(string(b), want) && !strings.Contains(string(b), strings.ReplaceAll(strings.ReplaceAll(want, `"`, ""), ":", "=")) {
				t.Errorf("the app's log lacks %q", want)
			}
		}
	})

	// A desktop that never reports the release: the second press stops.
	t.Run("activations only: toggle", func(t *testing.T) {
		fmt.Fprintln(tg.in, "clear")
		if !tg.out.Scan() || tg.out.Text() != "CLEARED" {
			t.Fatalf("the Wayland window did not clear: %q", tg.out.Text())
		}
		p := testenv.NewPortal(t, os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
		a, _ := launchApp(t, cfg, appEnv...)
		a.waitStatus(t, "ready", 90*time.Second)
		p.WaitBound(t, 30*time.Second)
		dictate(t, a, p, func() { p.Press(t, "record") })
	})

	t.Run("declined: the tray says what to bind instead", func(t *testing.T) {
		p := testenv.NewPortal(t, os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
		p.AnswerBind(1)
		a, _ := launchApp(t, cfg, appEnv...)
		status := a.waitStatus(t, "declined", 90*time.Second)
		t.Logf("tray: %s", status)
		for _, want := range []string{"whisperkey ptt", "bindsym", "docs/wayland.md#"} {
			if !strings.Contains(status, want) {
				t.Errorf("tray status %q does not say %q", status, want)
			}
		}
	})
}
