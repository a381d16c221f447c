package desktop

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/notify"
)

// A broken file is notified once however often it is reloaded, and again
// once it was fixed and breaks anew; the menu keeps its lines till the fix.
func TestConfigProblemToldOnce(t *testing.T) {
	d := testDesk(t, "http://127.0.0.1:1")
	path := filepath.Join(t.TempDir(), "config.yaml")
	store, err := config.New(path, config.Options{}, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	d.store = store
	note := &fakeNotifier{}
	d.fb.SetNotifier(note)
	typo := []config.Warning{{File: path, Line: 3, Key: "audio.pre_rol", Suggestion: "audio.pre_roll", Unknown: true}}
	steps := []struct {
		warns []config.Warning
		told  int
		lines int
	}{
		{typo, 1, 1},
		{typo, 1, 1}, // the same file reloaded
		{nil, 1, 0},  // fixed
		{typo, 2, 1}, // broken anew
	}
	for i, s := range steps {
		d.fb.NoteConfig(nil, s.warns, path)
		if len(note.got) != s.told || len(d.fb.ConfigNotice().Items()) != s.lines {
			t.Fatalf("step %d: %d notifications %q and %d menu lines, want %d and %d", i, len(note.got), note.got, len(d.fb.ConfigNotice().Items()), s.told, s.lines)
		}
	}
	if want := []string{`config.yaml:3: unknown key "audio.pre_rol" is ignored; did you mean "audio.pre_roll"?`}; !reflect.DeepEqual(d.fb.ConfigNotice().Lines(), want) {
		t.Errorf("lines = %q, want %q", d.fb.ConfigNotice().Lines(), want)
	}
	if !strings.Contains(note.got[1], `did you mean "audio.pre_roll"?`) {
		t.Errorf("notification %q does not name the key and the suggestion", note.got[1])
	}
}

// messages keeps the notifications it is given.
type messages struct{ got []notify.Message }

func (n *messages) Notify(m notify.Message) bool { n.got = append(n.got, m); return true }
func (n *messages) Close() error                 { return nil }

// A problem after a good file, or a file rejected now, is told at once; a
// file going from one typo to another (an editor saving while the key is
// typed) is told at the notifier's pace.
func TestConfigProblemPace(t *testing.T) {
	d := testDesk(t, "http://127.0.0.1:1")
	store, err := config.New(filepath.Join(t.TempDir(), "config.yaml"), config.Options{}, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	d.store = store
	note := &messages{}
	d.fb.SetNotifier(note)
	typo := func(key string) []config.Warning {
		return []config.Warning{{File: "config.yaml", Line: 3, Key: key, Unknown: true}}
	}
	rejected := &config.Error{File: "config.yaml", Line: 1, Key: "paste", Value: "x", Allowed: "paste, clipboard", Fix: "set paste to one of them"}
	steps := []struct {
		name  string
		err   error
		warns []config.Warning
		at    bool // told at once
	}{
		{"a typo in a good file", nil, typo("audio.pre_r"), true},
		{"the typo goes on", nil, typo("audio.pre_rol"), false},
		{"and a value is rejected", rejected, typo("audio.pre_rol"), true},
		{"fixed", nil, nil, false},
		{"broken anew", nil, typo("audio.pre_rol"), true},
	}
	told := 0
	for _, s := range steps {
		d.fb.NoteConfig(s.err, s.warns, d.store.Path())
		if s.warns == nil {
			continue
		}
		if told++; len(note.got) != told || note.got[told-1].Unthrottled != s.at {
			t.Fatalf("%s: %d notifications, the last unthrottled: %v; want %d, %v", s.name, len(note.got), len(note.got) > 0 && note.got[len(note.got)-1].Unthrottled, told, s.at)
		}
	}
}
