package desktop

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// The config's problems, as the real loader reports them, become the
// tray's lines: the file's line, the key and the suggestion or the fix.
func TestConfigProblems(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		wantState tray.State
		want      []string
	}{
		{name: "a good file", file: "model: base\n"},
		{name: "an old key name still works", file: "initial_prompt: Hi.\n"},
		{name: "a typo", file: "audio:\n  pre_rol: false\n", wantState: tray.StateWarning,
			want: []string{`config.yaml:2: unknown key "audio.pre_rol" is ignored; did you mean "audio.pre_roll"?`}},
		{name: "a rejected value and a typo", file: "device: gpu\nmodle: base\n", wantState: tray.StateError,
			want: []string{`config.yaml:1: key "device": "gpu" is not allowed (allowed: auto, cpu, cuda, rocm)`,
				`config.yaml:2: unknown key "modle" is ignored; did you mean "model"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, warns, err := config.Load(path, config.Options{})
			n := configProblems(err, warns)
			if n.active() != (len(tt.want) > 0) || n.state != tt.wantState || len(n.lines) != len(tt.want) {
				t.Fatalf("notice = %+v, want state %q and %d lines", n, tt.wantState, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(n.lines[i], w) {
					t.Errorf("line %d = %q, want it to start %q", i, n.lines[i], w)
				}
			}
		})
	}
}

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
		d.noteConfig(nil, s.warns)
		if len(note.got) != s.told || len(d.cfgNotice.items()) != s.lines {
			t.Fatalf("step %d: %d notifications %q and %d menu lines, want %d and %d", i, len(note.got), note.got, len(d.cfgNotice.items()), s.told, s.lines)
		}
	}
	if want := []string{`config.yaml:3: unknown key "audio.pre_rol" is ignored; did you mean "audio.pre_roll"?`}; !reflect.DeepEqual(d.cfgNotice.lines, want) {
		t.Errorf("lines = %q, want %q", d.cfgNotice.lines, want)
	}
	if !strings.Contains(note.got[1], `did you mean "audio.pre_roll"?`) {
		t.Errorf("notification %q does not name the key and the suggestion", note.got[1])
	}
}

// A file with more problems than the menu has lines for says how many more.
func TestConfigLinesFitTheMenu(t *testing.T) {
	n := configNotice{state: tray.StateWarning}
	for i := range tray.MaxConfigLines + 3 {
		n.lines = append(n.lines, "line "+string(rune('a'+i)))
	}
	items := n.items()
	if len(items) != tray.MaxConfigLines || items[len(items)-1].Label != "…and 4 more: open the config file" {
		t.Errorf("items = %+v", items)
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
		d.noteConfig(s.err, s.warns)
		if s.warns == nil {
			continue
		}
		if told++; len(note.got) != told || note.got[told-1].Unthrottled != s.at {
			t.Fatalf("%s: %d notifications, the last unthrottled: %v; want %d, %v", s.name, len(note.got), len(note.got) > 0 && note.got[len(note.got)-1].Unthrottled, told, s.at)
		}
	}
}
