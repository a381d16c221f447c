package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/tray/traytest"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Issue #53 item 7 on the real app: with history.keep_audio_days each take's
// recording is kept in the state folder for the user alone; Recent retries a
// take cancelled with Esc, and transcribes a take again with another model
// (tiny.en after base), keeping both texts.
func TestRecentTranscribesATakeAgain(t *testing.T) {
	desktopSession(t)
	a := startApp(t, "history:\n  keep_audio_days: 1\n")
	tg := openTarget(t)
	wav := micWAV(t, dictated)
	holdAndSay(t, wav)
	first := tg.waitText(t, 60*time.Second)
	if wer := whisper.WordErrorRate(dictated, first); first == "" || wer > 0.15 {
		t.Fatalf("target got %q (WER %.2f), want %q", first, wer, dictated)
	}
	takes := filepath.Join(filepath.Dir(filepath.Dir(a.log)), "takes") // beside the logs, in the state folder
	kept, _ := filepath.Glob(filepath.Join(takes, "*.wav"))
	if len(kept) != 1 {
		t.Fatalf("kept recordings %v, want the one take", kept)
	}
	if fi, err := os.Stat(kept[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("kept recording %s: %v %v, want it readable by the user alone (0600)", kept[0], fi.Mode(), err)
	}

	// A take cancelled with Esc is listed, to be retried.
	cancelled := "Please water the plants on Friday."
	xdo(t, "keydown", "ctrl+shift+F9")
	time.Sleep(300 * time.Millisecond)
	say(t, micWAV(t, cancelled))
	xdo(t, "key", "Escape")
	time.Sleep(300 * time.Millisecond)
	xdo(t, "keyup", "ctrl+shift+F9")
	retry := a.waitRecent(t, func(l string) bool { return strings.HasPrefix(l, "(cancelled ") })
	if got := tg.text(t); got != first {
		t.Fatalf("the cancelled take reached the target: %q", got)
	}

	// The cancelled take, retried (on base, the model it was said to).
	setClipboard(t, clipFirst)
	if err := a.menu.Click("Recent", retry); err != nil {
		t.Fatal(err)
	}
	retried := waitClipboardChange(t, clipFirst)
	if wer := whisper.WordErrorRate(cancelled, retried); wer > 0.25 {
		t.Errorf("cancelled take retried as %q (WER %.2f), want %q", retried, wer, cancelled)
	}
	// Recent follows the paste: the desk loop redraws it from the app's events,
	// which nothing on the paste's path waits for.
	if _, ok := a.recentWhere(t, func(labels []string) bool {
		return hasPrefixOf(labels, retried) && !hasPrefix(labels, "(cancelled ")
	}, 30*time.Second); !ok {
		t.Errorf("Recent lists %q after the retry, want the retried text in the cancelled take's place", a.submenu(t, "Recent").Labels())
	}

	// Another model: the take transcribed again lists its text under the first.
	cfg, err := os.ReadFile(a.config)
	if err != nil {
		t.Fatal(err)
	}
	switched := strings.Replace(string(cfg), testenv.Model(t, "base"), testenv.Model(t, "tiny.en"), 1)
	if err := os.WriteFile(a.config, []byte(switched), 0o644); err != nil {
		t.Fatal(err)
	}
	waitRecord(t, a.log, "model switched", 1, 3*time.Minute)
	setClipboard(t, clipFirst)
	// The first dictation's item is the last "Transcribe again": Recent is newest first.
	var again *traytest.Node
	for _, n := range a.submenu(t, "Recent").Shown() {
		if strings.HasSuffix(n.Label, "Transcribe again") {
			again = &n
		}
	}
	if again == nil {
		t.Fatalf("Recent lists %q, with no item to transcribe a take again", a.submenu(t, "Recent").Labels())
	}
	if err := a.menu.ClickID(again.ID); err != nil {
		t.Fatal(err)
	}
	label := a.waitRecent(t, func(l string) bool { return strings.Contains(l, "again (") })
	if !strings.Contains(label, "tiny") {
		t.Errorf("Recent lists %q for the take again, want the model it used (tiny.en)", label)
	}
	againText := waitClipboardChange(t, clipFirst)
	if wer := whisper.WordErrorRate(dictated, againText); wer > 0.25 {
		t.Errorf("transcribed again as %q (WER %.2f), want %q", againText, wer, dictated)
	}
	labels := a.submenu(t, "Recent").Labels()
	if !hasPrefixOf(labels, first) {
		t.Errorf("Recent lists %q: the first text %q is gone", labels, first)
	}
	t.Logf("Recent after transcribing again: %q", labels)
}

// waitRecent waits for a Recent item whose label ok accepts, and returns it.
func (a *runningApp) waitRecent(t testing.TB, ok func(label string) bool) string {
	t.Helper()
	var found string
	labels, done := a.recentWhere(t, func(labels []string) bool {
		for _, l := range labels {
			if ok(l) {
				found = l
				return true
			}
		}
		return false
	}, 2*time.Minute)
	if !done {
		t.Fatalf("Recent lists %q, without the item wanted", labels)
	}
	return found
}

// recentWhere polls the Recent submenu until ok accepts its labels or within
// has passed, and returns the last labels read.
func (a *runningApp) recentWhere(t testing.TB, ok func(labels []string) bool, within time.Duration) ([]string, bool) {
	t.Helper()
	var labels []string
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		root, err := a.menu.Layout()
		if err != nil {
			t.Fatal(err)
		}
		recent, err := root.Find("Recent")
		if err != nil {
			continue
		}
		if labels = recent.Labels(); ok(labels) {
			return labels, true
		}
	}
	return labels, false
}

// waitClipboardChange waits for the clipboard to hold something other than was.
func waitClipboardChange(t testing.TB, was string) string {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if c := clipboardText(t); c != was {
			return c
		}
	}
	t.Fatalf("the clipboard still holds %q", was)
	return ""
}

// hasPrefixOf reports whether a label is the start of text (a label is cut
// with "…").
func hasPrefixOf(labels []string, text string) bool {
	for _, l := range labels {
		if l != "" && strings.HasPrefix(text, strings.TrimSuffix(l, "…")) {
			return true
		}
	}
	return false
}

// hasPrefix reports whether a label starts with prefix.
func hasPrefix(labels []string, prefix string) bool {
	for _, l := range labels {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
