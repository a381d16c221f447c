package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Profiles: the same spoken sentence into two windows that differ only in
// WM_CLASS comes out as each window's profile says: the "terminal" gets it
// typed, in lower case and without the final period; the other window (no
// profile) gets the sentence as heard.
func TestProfilesFollowTheFocusedWindow(t *testing.T) {
	desktopSession(t)
	a := startApp(t, `profiles:
  - name: terminal
    match: {class: [wkterm]}
    output: {case: lower, strip_final_period: true}
    paste: type
cleanup:
  url: http://127.0.0.1:9
`)
	wav := micWAV(t, dictated)
	term := openTarget(t, "-name", "wkterm")
	editor := openTarget(t, "-name", "wkeditor") // opened last: it has the focus

	holdAndSay(t, wav)
	got := editor.waitText(t, 30*time.Second)
	if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
		t.Fatalf("editor got %q (WER %.2f), want %q", got, wer, dictated)
	}
	if !strings.HasSuffix(strings.TrimSpace(got), ".") || strings.ToLower(got) == got {
		t.Errorf("editor got %q: with no profile it keeps the capitals and the period", got)
	}
	if s := term.text(t); s != "" {
		t.Fatalf("the terminal got %q while the editor had the focus", s)
	}

	term.focus(t)
	holdAndSay(t, wav)
	typed := term.waitText(t, 60*time.Second) // typing is slower than a paste
	if wer := whisper.WordErrorRate(dictated, typed); typed == "" || wer > 0.15 {
		t.Fatalf("terminal got %q (WER %.2f), want %q", typed, wer, dictated)
	}
	if strings.ToLower(typed) != typed || strings.HasSuffix(strings.TrimSpace(typed), ".") {
		t.Errorf("terminal got %q; its profile wants lower case and no final period", typed)
	}
	if s := editor.text(t); s != got {
		t.Errorf("the editor changed to %q while the terminal had the focus", s)
	}
	// The tray's Profiles menu ticks the profile that matched last, and its
	// AI cleanup toggle turns cleanup on in the file.
	profiles := a.submenu(t, "Profiles")
	checked := ""
	for _, n := range profiles.Shown() {
		if n.Checked && n.Label != "AI cleanup" {
			checked = n.Label
		}
	}
	if checked != "terminal" {
		t.Errorf("Profiles menu %v ticks %q, want terminal", profiles.Labels(), checked)
	}
	if err := a.menu.Click("Profiles", "AI cleanup"); err != nil {
		t.Fatal(err)
	}
	waitFile(t, a.config, "enabled: true")

	log, err := os.ReadFile(a.log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `"profile":"terminal"`) {
		t.Errorf("the log does not name the terminal profile:\n%s", log)
	}
	for _, w := range []string{"coffee", "floor", "broken"} { // words of the dictation no log line has
		if strings.Contains(strings.ToLower(string(log)), w) {
			t.Errorf("the log holds the dictated word %q", w)
		}
	}
	t.Logf("editor %q, terminal %q", got, typed)
}

// AI cleanup that fails (the server answers 500) never costs the dictation:
// the text as heard is pasted and a notification says why.
func TestCleanupFailureStillPastes(t *testing.T) {
	desktopSession(t)
	notes := startNotificationServer(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"model not loaded"}}`, http.StatusInternalServerError)
	}))
	defer srv.Close()
	startApp(t, "cleanup:\n  enabled: true\n  url: "+srv.URL+"\n  timeout: 1s\n")
	wav := micWAV(t, dictated)
	tg := openTarget(t)
	holdAndSay(t, wav)
	got := tg.waitText(t, 30*time.Second)
	if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
		t.Fatalf("target got %q (WER %.2f), want %q", got, wer, dictated)
	}
	t.Logf("pasted %q; notified %q", got, notes.wait(t, "Pasted as heard", 10*time.Second))
}
