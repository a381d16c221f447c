//go:build linux

package e2e

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// count is how many notifications so far have a summary starting with prefix.
func (s *notifications) count(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, got := range s.got {
		if strings.HasPrefix(got, prefix) {
			n++
		}
	}
	return n
}

// A config typo is never silent, in the real app on the test desktop: an
// unknown key shows a warning icon, the status and a menu line naming the
// file's line, the key and the suggestion, and one notification; the same
// file reloaded is not told again, a dictation does not bring "ready" back,
// the fix clears it all, and breaking the file anew is told again. A
// rejected value is shown the same way, as an error, through a dictation.
func TestConfigTypoShownUntilFixed(t *testing.T) {
	desktopSession(t)
	notes := startNotificationServer(t)
	wav := micWAV(t, dictated)
	a := startApp(t, "")
	idle := a.icon(t)
	good, err := os.ReadFile(a.config)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(good), "\n") + 2 // the pre_rol line
	typo := string(good) + "audio:\n  pre_rol: false\n"
	wantLine := "config.yaml:" + strconv.Itoa(line) + `: unknown key "audio.pre_rol" is ignored; did you mean "audio.pre_roll"?`
	const typoNote = "Config file has an unknown key"

	// Where the model menu and the language menu stand before any dictation.
	if got := a.submenu(t, "Model").Labels(); len(got) == 0 || got[0] != "Auto: the model for this computer" {
		t.Errorf("Model menu = %q, want Auto first", got)
	}

	writeConfig(t, a.config, typo)
	status := a.waitStatus(t, wantLine, 30*time.Second)
	t.Logf("status with the typo: %q", status)
	if !strings.Contains(status, "ready") {
		t.Errorf("status %q: want the ready line after the problem (dictation works)", status)
	}
	warning := a.waitIcon(t, func(ic []byte) bool { return !bytes.Equal(ic, idle) }, "the warning icon")
	if root := a.submenu(t); len(root.Labels()) < 2 || root.Labels()[1] != wantLine {
		t.Errorf("menu = %q, want the line %q under the status", root.Labels(), wantLine)
	}
	t.Logf("notified %q", notes.wait(t, typoNote, 10*time.Second))

	// The same wrong file again: reloaded (the log says so), not told again.
	reloads := a.logCount(t, "config has an unknown key")
	writeConfig(t, a.config, typo)
	for deadline := time.Now().Add(30 * time.Second); a.logCount(t, "config has an unknown key") == reloads; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the rewritten config was never reloaded")
		}
	}

	// A dictation: the tray does not go back to plain "ready".
	tg := openTarget(t)
	holdAndSay(t, wav)
	if got := tg.waitText(t, 60*time.Second); got == "" {
		t.Fatal("the dictation was not pasted")
	}
	status = a.waitStatus(t, "ready", 30*time.Second)
	if !strings.Contains(status, wantLine) || !bytes.Equal(a.icon(t), warning) {
		t.Errorf("after a dictation: status %q (icon the warning one: %v); want the typo still shown", status, bytes.Equal(a.icon(t), warning))
	}
	if n := notes.count(typoNote); n != 1 {
		t.Errorf("told %d times about one typo, want once", n)
	}
	// The dictation's language comes first in the Language menu, by name.
	if got := a.submenu(t, "Language").Labels(); !slices.Contains(got, "English (en)") || got[len(got)-1] != "More languages" {
		t.Errorf("Language menu = %q, want English (en) at the top and More languages last", got)
	}
	if more := a.submenu(t, "Language", "More languages").Labels(); !slices.Contains(more, "German (de)") || slices.Contains(more, "English (en)") {
		t.Errorf("More languages = %q, want the rest (German) and not English", more)
	}

	// Fixed: all gone.
	writeConfig(t, a.config, string(good))
	status = a.waitStatusWithout(t, "pre_rol", 30*time.Second)
	a.waitIcon(t, func(ic []byte) bool { return bytes.Equal(ic, idle) }, "the idle icon")
	if labels := a.submenu(t).Labels(); strings.Contains(strings.Join(labels, "|"), "pre_rol") {
		t.Errorf("menu after the fix = %q", labels)
	}
	t.Logf("after the fix: %q", status)

	// Broken anew: told anew.
	writeConfig(t, a.config, typo)
	a.waitStatus(t, wantLine, 30*time.Second)
	for deadline := time.Now().Add(10 * time.Second); notes.count(typoNote) != 2; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the typo made again was told %d times in all, want 2", notes.count(typoNote))
		}
	}

	// A rejected value: an error until fixed, through a dictation too.
	writeConfig(t, a.config, typo+"paste: sideways\n")
	status = a.waitStatus(t, "Config not applied", 30*time.Second)
	t.Logf("status with a rejected value: %q", status)
	if !strings.Contains(status, `key "paste": "sideways" is not allowed`) {
		t.Errorf("status %q does not name the key and value", status)
	}
	bad := a.waitIcon(t, func(ic []byte) bool { return !bytes.Equal(ic, idle) && !bytes.Equal(ic, warning) }, "the error icon")
	notes.wait(t, "Config file not applied", 10*time.Second)
	tg.clear(t)
	holdAndSay(t, wav)
	if got := tg.waitText(t, 60*time.Second); got == "" {
		t.Fatal("the dictation was not pasted with the last good settings")
	}
	status = a.waitStatus(t, "ready", 30*time.Second)
	if !strings.Contains(status, "Config not applied") || !bytes.Equal(a.icon(t), bad) {
		t.Errorf("after a dictation: status %q; want the rejected file still shown, as an error", status)
	}
	writeConfig(t, a.config, string(good))
	a.waitStatusWithout(t, "Config not applied", 30*time.Second)
	a.waitIcon(t, func(ic []byte) bool { return bytes.Equal(ic, idle) }, "the idle icon")
}

func writeConfig(t testing.TB, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// icon is the tray icon's pixels now.
func (a *runningApp) icon(t testing.TB) []byte {
	t.Helper()
	ic, err := a.menu.Icon()
	if err != nil || len(ic) == 0 {
		t.Fatalf("tray icon: %v (%d pixmaps)", err, len(ic))
	}
	return ic[0].ARGB
}

// waitIcon waits until the icon's pixels satisfy ok and returns them.
func (a *runningApp) waitIcon(t testing.TB, ok func([]byte) bool, what string) []byte {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if ic := a.icon(t); ok(ic) {
			return ic
		}
		if time.Now().After(deadline) {
			s, _ := a.menu.Status()
			t.Fatalf("the tray never showed %s (status %q)", what, s)
		}
	}
}

// waitStatusWithout waits until the status line says "ready" without gone.
func (a *runningApp) waitStatusWithout(t testing.TB, gone string, limit time.Duration) string {
	t.Helper()
	var s string
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if s, _ = a.menu.Status(); strings.Contains(s, "ready") && !strings.Contains(s, gone) {
			return s
		}
	}
	t.Fatalf("tray status %q still says %q", s, gone)
	return ""
}

// logCount is how many lines of the app's log contain s.
func (a *runningApp) logCount(t testing.TB, s string) int {
	t.Helper()
	b, err := os.ReadFile(a.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), s)
}
