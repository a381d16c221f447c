package e2e

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/history"
)

// whisperkey history prints what the app kept on disk, oldest first, and says how to
// keep dictations when none are. A history kept where older versions kept it (the
// cache folder) is moved to the state folder.
func TestHistoryCLI(t *testing.T) {
	cache, state := t.TempDir(), t.TempDir()
	t.Setenv("WHISPERKEY_CACHE", cache) // the child inherits them
	t.Setenv("XDG_STATE_HOME", state)

	r := whisperkey(t, "history")
	if r.code != 0 || !strings.Contains(r.stdout, "No dictations are kept on disk") || !strings.Contains(r.stdout, "history.keep_on_disk: true") {
		t.Fatalf("empty history: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	old := history.Path(cache) // as an older version left it
	h, err := history.New(history.Config{File: old}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 25, 4, 0, 0, 0, time.Local)
	for i, s := range []string{"first dictation", "second dictation"} {
		if _, err := h.Add(s, at.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.AddEntry(history.Entry{Text: "Meet on Tuesday.", Raw: "um meet on uh Tuesday", Profile: "mail",
		Cleanup: "clean", At: at.Add(2 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	r = whisperkey(t, "history")
	want := "2026-11-25 04:00:00  first dictation\n2026-11-25 04:01:00  second dictation\n" +
		"2026-11-25 04:02:00  [mail, clean]  Meet on Tuesday.\n                     as heard: um meet on uh Tuesday\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("history: code %d, stdout %q, want %q (stderr %q)", r.code, r.stdout, want, r.stderr)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the old history file is still in the cache folder (%v)", err)
	}
	if got, err := history.Read(history.Path(filepath.Join(state, "whisperkey"))); err != nil || len(got) != 3 {
		t.Errorf("the state folder's history: %d entries, %v; want the 3 moved there", len(got), err)
	}
	if r = whisperkey(t, "history", "extra"); r.code != 2 || !strings.Contains(r.stderr, "takes no arguments") {
		t.Errorf("history extra: code %d, stderr %q", r.code, r.stderr)
	}
}
