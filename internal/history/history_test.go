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
	"unicode/utf8"

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

// What the app writes at its largest it reads back: DefaultMax entries of
// MaxTextBytes, text and as heard, and texts that JSON escapes six times
// over, for which the oldest entries are left out of the file.
func TestTheFileStaysUnderItsCap(t *testing.T) {
	tests := []struct {
		name     string
		text     string // repeated to the length of an entry
		wantKept int    // entries the file keeps
	}{
		{"longest texts", "Longest dictation ü. ", history.DefaultMax},
		{"texts JSON escapes", "<&>", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := history.Path(t.TempDir())
			h, err := history.New(history.Config{File: path}, quiet())
			if err != nil {
				t.Fatal(err)
			}
			long := strings.Repeat(tt.text, history.MaxTextBytes/len(tt.text)+10)
			for i := range history.DefaultMax {
				if _, err := h.AddEntry(history.Entry{Text: fmt.Sprint(i, long), Raw: long, At: time.Now()}); err != nil {
					t.Fatal(err)
				}
			}
			e := h.Entries()[0]
			if len(e.Text) > history.MaxTextBytes || len(e.Raw) > history.MaxTextBytes ||
				!strings.HasSuffix(e.Text, "…") || !utf8.ValidString(e.Text) || !strings.HasPrefix(e.Text, "19") {
				t.Errorf("a long text is kept as %d bytes ending %q, valid UTF-8: %v; want at most %d ending in …",
					len(e.Text), e.Text[len(e.Text)-8:], utf8.ValidString(e.Text), history.MaxTextBytes)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() > history.MaxFileBytes {
				t.Errorf("the file is %d bytes, over the cap of %d", st.Size(), history.MaxFileBytes)
			}
			read, err := history.Read(path)
			if err != nil {
				t.Fatalf("Read of what the app wrote: %v", err)
			}
			if len(read) != tt.wantKept || read[0].Text != e.Text {
				t.Errorf("the file holds %d entries (newest %.10q), want the newest %d", len(read), read[0].Text, tt.wantKept)
			}
		})
	}
}

// A file holds more entries than the app keeps only if something else wrote
// it: the newest DefaultMax are read, or Max.
func TestReadKeepsTheNewest(t *testing.T) {
	path := history.Path(t.TempDir())
	var b strings.Builder
	b.WriteString(`{"version": 1, "entries": [`)
	for i := 1500; i >= 1; i-- {
		fmt.Fprintf(&b, `{"id": "%d", "text": "dictation %d", "at": "2026-01-02T03:04:05Z"}`, i, i)
		if i > 1 {
			b.WriteByte(',')
		}
	}
	b.WriteString("]}\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	read, err := history.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != history.DefaultMax || read[0].Text != "dictation 1500" || read[19].Text != "dictation 1481" {
		t.Fatalf("Read: %d entries, %q … %q; want the newest 20, dictation 1500 … 1481", len(read), read[0].Text, read[len(read)-1].Text)
	}
	h, err := history.New(history.Config{File: path, Max: 5}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Entries(); len(got) != 5 || got[4].Text != "dictation 1496" {
		t.Fatalf("New with Max 5 kept %d entries: %+v", len(got), got)
	}
	if e, _ := h.Add("next", time.Now()); e.ID != "1501" {
		t.Errorf("the next ID is %q, want 1501", e.ID)
	}
}

// notAHistory is a case of TestReadRefusesWhatIsNotAHistory: make puts
// something that is no history at path, and the error names each of want.
type notAHistory struct {
	name string
	make func(t *testing.T, path string)
	want []string
}

// A history file that is not one is refused at once, saying what it is and
// what to do; the file is left as it is.
func TestReadRefusesWhatIsNotAHistory(t *testing.T) {
	tests := []notAHistory{
		{"a folder", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, []string{"not a regular file (a folder)", "move it away"}},
		{"over the cap", func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(history.MaxFileBytes + 1); err != nil {
				t.Fatal(err)
			}
		}, []string{"larger than 8 MiB", "keeps 20 dictations of at most 128 KiB", "move it away"}},
		{"entries not a list", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(`{"entries": {"a": 1}}`), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"not a list", "delete the file"}},
	}
	tests = append(tests, unixOnly...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := history.Path(t.TempDir())
			tt.make(t, path)
			before, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := history.New(history.Config{File: path}, quiet())
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("reading the history still runs after 30 s")
			}
			if err == nil {
				t.Fatal("New took it as a history")
			}
			for _, w := range append(tt.want, path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if after, err := os.Lstat(path); err != nil || after.Mode() != before.Mode() || after.Size() != before.Size() {
				t.Errorf("the file changed: %v", err)
			}
		})
	}
}

// A take transcribed again keeps its first text and the newest MaxAgain
// others, each found by its menu ID; a cancelled take (no text) is kept
// when its recording is, and its retry becomes its text; all of it survives
// a restart with a file.
func TestSetText(t *testing.T) {
	path := history.Path(t.TempDir())
	h, err := history.New(history.Config{File: path}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	take, _ := h.AddEntry(history.Entry{Text: "Hello their.", At: time.Now(), Audio: "a.wav", Model: "base"})
	if e, _ := h.AddEntry(history.Entry{At: time.Now(), Cancelled: true}); e.ID != "" {
		t.Errorf("a cancelled take with no recording was kept: %+v", e)
	}
	cancelled, _ := h.AddEntry(history.Entry{At: time.Now(), Cancelled: true, Audio: "b.wav"})
	for i := range history.MaxAgain + 1 {
		if _, ok, err := h.SetText(take.ID, history.Again{Text: fmt.Sprint("again ", i), Model: "small", Language: "de"}); !ok || err != nil {
			t.Fatalf("SetText: %v %v", ok, err)
		}
	}
	if _, ok, err := h.SetText(cancelled.ID, history.Again{Text: "Retried.", Model: "small", Language: "en"}); !ok || err != nil {
		t.Fatalf("SetText on the cancelled take: %v %v", ok, err)
	}
	if _, ok, _ := h.SetText("no such id", history.Again{Text: "x"}); ok {
		t.Error("SetText found an entry that is not kept")
	}
	restarted, err := history.New(history.Config{File: path}, quiet())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, want string
		ok       bool
	}{
		{take.ID, "Hello their.", true},
		{take.ID + history.AgainSuffix + "0", "again 1", true}, // the oldest was dropped
		{take.ID + history.AgainSuffix + fmt.Sprint(history.MaxAgain-1), fmt.Sprint("again ", history.MaxAgain), true},
		{take.ID + history.AgainSuffix + fmt.Sprint(history.MaxAgain), "", false},
		{take.ID + history.AgainSuffix + "x", "", false},
		{cancelled.ID, "Retried.", true},
	}
	for _, tt := range tests {
		e, ok := restarted.Get(tt.id)
		if ok != tt.ok || e.Text != tt.want {
			t.Errorf("Get(%q) = %q, %v; want %q, %v", tt.id, e.Text, ok, tt.want, tt.ok)
		}
	}
	if e, _ := restarted.Get(cancelled.ID); e.Cancelled || e.Model != "small" {
		t.Errorf("retried take %+v, want it no longer cancelled, with the model that transcribed it", e)
	}
}
