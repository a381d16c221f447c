package history_test

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/history"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestLabel(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello world.", "Hello world."},
		{"  two\nlines\tand tabs ", "two lines and tabs"},
		{strings.Repeat("a", 40), strings.Repeat("a", 40)},
		{strings.Repeat("a", 41), strings.Repeat("a", 39) + "…"},
		{"The quick brown fox jumps over the lazy dog again and again", "The quick brown fox jumps over the lazy…"},
		{strings.Repeat("ü", 50), strings.Repeat("ü", 39) + "…"},
	}
	for _, tt := range tests {
		if got := history.Label(tt.in, history.LabelLength); got != tt.want {
			t.Errorf("Label(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeepsTheLastTwentyNewestFirst(t *testing.T) {
	h, err := history.New(history.Config{}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := 1; i <= 25; i++ {
		if _, err := h.Add(fmt.Sprintf("dictation %d", i), t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Add("   ", t0); err != nil { // blank: ignored
		t.Fatal(err)
	}
	got := h.Entries()
	if len(got) != history.DefaultMax {
		t.Fatalf("%d entries, want %d", len(got), history.DefaultMax)
	}
	if got[0].Text != "dictation 25" || got[19].Text != "dictation 6" {
		t.Errorf("entries run %q … %q, want dictation 25 … dictation 6", got[0].Text, got[19].Text)
	}
	e, ok := h.Get(got[3].ID)
	if !ok || e.Text != "dictation 22" {
		t.Errorf("Get(%q) = %+v, %v", got[3].ID, e, ok)
	}
	if _, ok := h.Get("no-such-id"); ok {
		t.Error("Get of an unknown id found something")
	}
}

func TestMemoryOnlyWritesNothing(t *testing.T) {
	dir := t.TempDir()
	h, err := history.New(history.Config{}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Add("secret words", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(history.Path(dir)); !os.IsNotExist(err) {
		t.Errorf("history file exists without keep_on_disk: %v", err)
	}
}

func TestKeepOnDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := history.Path(dir)
	h, err := history.New(history.Config{File: path}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	for _, s := range []string{"first", "second", "third"} {
		if _, err := h.Add(s, at); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v, want 0600", st.Mode().Perm())
	}
	// A restart finds them, and new IDs do not collide with kept ones.
	h2, err := history.New(history.Config{File: path}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	e, err := h2.Add("fourth", at)
	if err != nil {
		t.Fatal(err)
	}
	var texts, ids []string
	for _, e := range h2.Entries() {
		texts, ids = append(texts, e.Text), append(ids, e.ID)
	}
	if strings.Join(texts, ",") != "fourth,third,second,first" {
		t.Errorf("after restart: %q", texts)
	}
	if e.ID != "4" || strings.Join(ids, ",") != "4,3,2,1" {
		t.Errorf("ids %q, want 4,3,2,1", ids)
	}
	read, err := history.Read(path)
	if err != nil || len(read) != 4 || !read[3].At.Equal(at) {
		t.Errorf("Read = %+v, %v", read, err)
	}
	if err := history.Forget(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("file still there after Forget: %v", err)
	}
	if err := history.Forget(path); err != nil {
		t.Errorf("Forget of a missing file: %v", err)
	}
}

func TestBadFileIsAClearError(t *testing.T) {
	path := filepath.Join(t.TempDir(), history.FileName)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := history.New(history.Config{File: path}, quiet())
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "delete the file") {
		t.Errorf("error = %v; want one naming %s and how to fix it", err, path)
	}
}

// An undone dictation stays in the list, marked, across a restart.
func TestMarkUndone(t *testing.T) {
	path := history.Path(t.TempDir())
	h, err := history.New(history.Config{File: path}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	first, _ := h.Add("Keep this one.", time.Now())
	second, _ := h.Add("Scratch this one.", time.Now())
	if err := h.MarkUndone(second.ID); err != nil {
		t.Fatal(err)
	}
	if err := h.MarkUndone("no such id"); err != nil {
		t.Fatalf("unknown id: %v", err)
	}
	again, err := history.New(history.Config{File: path}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	got := again.Entries()
	if len(got) != 2 || !got[0].Undone || got[1].Undone || got[1].ID != first.ID {
		t.Fatalf("entries after restart: %+v", got)
	}
	if l := got[0].Label(); l != "(undone) Scratch this one." {
		t.Fatalf("label %q", l)
	}
}
