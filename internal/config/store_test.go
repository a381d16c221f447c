package config

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/choice"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// exampleFile copies config.example.yaml into a temp dir, as EnsureFile does on first run.
func exampleFile(t *testing.T) string {
	t.Helper()
	example, err := os.ReadFile("../../config.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "whisperkey", "config.yaml")
	if created, err := EnsureFile(path, example); err != nil || !created {
		t.Fatalf("EnsureFile = %v, %v", created, err)
	}
	return path
}

func newStore(t *testing.T, path string) *Store {
	t.Helper()
	s, err := New(path, Options{Debounce: 20 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func watch(t *testing.T, s *Store) <-chan Change {
	t.Helper()
	ch := s.Subscribe()
	if err := s.Watch(t.Context()); err != nil {
		t.Fatal(err)
	}
	return ch
}

// nextChange waits for a change that satisfies ok, skipping others (an editor's save
// may be seen in steps). The deadline only keeps a broken watcher from hanging the test.
func nextChange(t *testing.T, ch <-chan Change, ok func(Change) bool) Change {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case c := <-ch:
			if ok(c) {
				return c
			}
		case <-deadline:
			t.Fatal("no matching config change arrived")
		}
	}
}

func replaceInFile(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLiveEdit(t *testing.T) {
	path := exampleFile(t)
	s := newStore(t, path)
	ch := watch(t, s)

	replaceInFile(t, path, "\nmodel: auto", "\nmodel: small")
	c := nextChange(t, ch, func(c Change) bool { return c.New.Engine.Model == "small" })
	if !c.NeedsEngineRestart || c.Err != nil || c.Old.Engine.Model != choice.ModelAuto {
		t.Errorf("model change = %+v, want NeedsEngineRestart from auto", c)
	}
	if s.Current().Engine.Model != "small" {
		t.Errorf("Current().Engine.Model = %q", s.Current().Engine.Model)
	}

	// Save the way many editors do: write a new file, then rename it over the old one.
	data, _ := os.ReadFile(path)
	tmp := filepath.Join(filepath.Dir(path), "config.yaml~")
	if err := os.WriteFile(tmp, bytes.Replace(data, []byte("\nsounds: true"), []byte("\nsounds: false"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	c = nextChange(t, ch, func(c Change) bool { return !c.New.Sounds })
	if c.NeedsEngineRestart {
		t.Error("turning sounds off must not restart the engine")
	}
}

func TestBadEditKeepsLastGoodConfig(t *testing.T) {
	path := exampleFile(t)
	s := newStore(t, path)
	ch := watch(t, s)
	good := s.Current()

	replaceInFile(t, path, "\nmodel: auto", "\nmodel: auto\n  oops: [")
	c := nextChange(t, ch, func(c Change) bool { return c.Err != nil })
	var e *Error
	if !errors.As(c.Err, &e) || e.File != path || e.Line == 0 || !strings.Contains(c.Err.Error(), "keeps running on the last good config") {
		t.Errorf("syntax error = %v; want file, line and that the last good config is kept", c.Err)
	}
	if c.New != good || s.Current() != good || s.Err() == nil {
		t.Error("a broken file replaced the last good config")
	}

	replaceInFile(t, path, "\n  oops: [", "")
	replaceInFile(t, path, "\ndevice: auto", "\ndevice: gpu")
	c = nextChange(t, ch, func(c Change) bool { return c.Err != nil && strings.Contains(c.Err.Error(), `"gpu"`) })
	if !errors.Is(c.Err, ErrInvalid) || s.Current() != good {
		t.Errorf("invalid value: err %v, current changed: %v", c.Err, s.Current() != good)
	}

	// Going back to the same good values still clears the error.
	replaceInFile(t, path, "\ndevice: gpu", "\ndevice: auto")
	c = nextChange(t, ch, func(c Change) bool { return c.Err == nil })
	if c.New != good || s.Err() != nil {
		t.Errorf("after the fix: %+v, Err %v", c, s.Err())
	}
}

// A misspelt key changes no setting, yet subscribers hear of it (the app
// shows it) and of its fix.
func TestUnknownKeyIsAChange(t *testing.T) {
	path := exampleFile(t)
	s := newStore(t, path)
	ch := watch(t, s)
	good := s.Current()

	replaceInFile(t, path, "\n  pre_roll: false", "\n  pre_rol: true")
	c := nextChange(t, ch, func(c Change) bool { return len(c.Warnings) > 0 })
	if w := c.Warnings[0]; w.Key != "audio.pre_rol" || w.Suggestion != "audio.pre_roll" || w.Line == 0 || c.Err != nil {
		t.Errorf("warning = %+v (err %v), want audio.pre_rol on its line with the suggestion audio.pre_roll", w, c.Err)
	}
	if c.New != good || c.NeedsEngineRestart || len(s.Warnings()) != 1 {
		t.Errorf("an ignored key changed the settings: %+v", c)
	}

	replaceInFile(t, path, "\n  pre_rol: true", "\n  pre_roll: false")
	c = nextChange(t, ch, func(c Change) bool { return len(c.Warnings) == 0 })
	if c.Err != nil || c.New != good || len(s.Warnings()) != 0 {
		t.Errorf("after the fix: %+v, warnings %v", c, s.Warnings())
	}
}

func TestInvalidFileAtStartUsesDefaults(t *testing.T) {
	s := newStore(t, writeConfig(t, "device: gpu\nmodle: x\n"))
	if s.Current() != Defaults() || !errors.Is(s.Err(), ErrInvalid) || len(s.Warnings()) != 1 {
		t.Errorf("Current %+v, Err %v, Warnings %v", s.Current(), s.Err(), s.Warnings())
	}
}

func TestSetKeepsCommentsAndLayout(t *testing.T) {
	path := exampleFile(t)
	before, _ := os.ReadFile(path)
	s := newStore(t, path)
	ch := s.Subscribe()

	sets := []struct {
		key   string
		value any
		line  string // the line as it must now read
	}{
		{KeyModel, "small", "model: small"},
		{KeyDevice, choice.DeviceCUDA, "device: cuda"},
		{KeyCPUThreads, 4, "cpu_threads: 4"},
		{KeyPrompt, "Notes: ROCm, CUDA", `prompt: 'Notes: ROCm, CUDA'`},
		{KeyCancel, HotkeyOff, "  cancel: none"},
		{KeyMode, choice.Toggle, "  mode: toggle"},
		{KeyPaste, choice.Clipboard, "paste: clipboard"},
		{KeyInputDevice, "USB Mic (2)", "  input_device: USB Mic (2)"},
		{KeyMaxDuration, 2 * time.Minute, "  max_duration: 2m"},
		{KeyPreRoll, true, "  pre_roll: true"},
		{KeySounds, false, "sounds: false"},
	}
	for _, st := range sets {
		if err := s.Set(st.key, st.value); err != nil {
			t.Fatalf("Set(%s, %v): %v", st.key, st.value, err)
		}
	}
	after, _ := os.ReadFile(path)
	oldLines, newLines := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	if len(oldLines) != len(newLines) {
		t.Fatalf("Set changed the number of lines: %d → %d", len(oldLines), len(newLines))
	}
	changed := map[string]bool{}
	for i := range oldLines {
		if oldLines[i] != newLines[i] {
			if strings.HasPrefix(strings.TrimSpace(oldLines[i]), "#") {
				t.Errorf("comment line %d changed: %q → %q", i+1, oldLines[i], newLines[i])
			}
			changed[newLines[i]] = true
		}
	}
	for _, st := range sets {
		if !changed[st.line] {
			t.Errorf("no changed line reads %q", st.line)
		}
	}
	if len(changed) != len(sets) {
		t.Errorf("%d lines changed, want %d", len(changed), len(sets))
	}

	// Round trip: the file now loads to what was set, and Current agrees.
	cfg, warns, err := Load(path, Options{})
	if err != nil || len(warns) > 0 {
		t.Fatalf("Load after Set: %v %v", err, warns)
	}
	want := Defaults()
	want.Engine.Model, want.Engine.Device, want.Engine.CPUThreads = "small", choice.DeviceCUDA, 4
	want.Decode.Prompt = "Notes: ROCm, CUDA"
	want.Hotkeys.Cancel, want.Hotkeys.Mode, want.Paste = HotkeyOff, choice.Toggle, choice.Clipboard
	want.Audio.InputDevice, want.Audio.MaxDuration, want.Audio.PreRoll, want.Sounds = "USB Mic (2)", 2*time.Minute, true, false
	if cfg != want || s.Current() != want {
		t.Errorf("after Set\n load    %+v\n current %+v\n want    %+v", cfg, s.Current(), want)
	}
	// The subscriber did not read along: it gets one change from the start to now.
	c := <-ch
	if c.Old != Defaults() || c.New != want || !c.NeedsEngineRestart {
		t.Errorf("merged change = %+v", c)
	}
	select {
	case c := <-ch:
		t.Errorf("unexpected second change %+v", c)
	default:
	}
}

func TestSetAddsMissingKeys(t *testing.T) {
	tests := []struct {
		name string
		file string
		key  string
		val  any
		want string
	}{
		{"no file yet", "", KeySounds, false, "sounds: false\n"},
		{"top-level key", "model: base # mine\n", KeyLogLevel, "debug", "model: base # mine\nlog_level: debug\n"},
		{"new group", "model: base", KeyRecord, "f9", "model: base\nhotkeys:\n  record: f9\n"},
		{"existing group", "audio:\n    pre_roll: true   # keep\n\n# end\n", KeyMinDuration, 500 * time.Millisecond,
			"audio:\n    pre_roll: true   # keep\n    min_duration: 500ms\n\n# end\n"},
		{"empty group", "hotkeys:\n# later\n", KeyMode, choice.Toggle, "hotkeys:\n  mode: toggle\n# later\n"},
		{"keeps CRLF", "model: base\r\nsounds: true\r\n", KeySounds, false, "model: base\r\nsounds: false\r\n"},
		{"quoted value with comment", "model: \"base\"  # which\n", KeyModel, "small", "model: small  # which\n"},
		{"text that needs quotes", "", KeyInitialPrompt, "yes", "initial_prompt: \"yes\"\n"},
		{"flow style falls back to re-encoding", "{model: base, sounds: true}\n", KeySounds, false, "{model: base, sounds: false}\n"},
		{"the tray's AI cleanup toggle", "cleanup:\n  url: http://127.0.0.1:8080\n  enabled: false\n", KeyCleanupEnabled, true,
			"cleanup:\n  url: http://127.0.0.1:8080\n  enabled: true\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if tt.file != "" {
				if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s := newStore(t, path)
			if err := s.Set(tt.key, tt.val); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want {
				t.Errorf("file\n%q\nwant\n%q", got, tt.want)
			}
			if _, _, err := Load(path, Options{}); err != nil {
				t.Errorf("file does not load: %v", err)
			}
		})
	}
}

func TestSetRejects(t *testing.T) {
	path := exampleFile(t)
	s := newStore(t, path)
	before, _ := os.ReadFile(path)
	if err := s.Set(KeyDevice, "gpu"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "allowed: auto, cpu, cuda, rocm") {
		t.Errorf("Set(device, gpu) = %v", err)
	}
	if err := s.Set(KeyBeamSize, "wide"); !errors.Is(err, ErrInvalid) {
		t.Errorf("Set(beam_size, wide) = %v", err)
	}
	if err := s.Set("modle", "small"); err == nil {
		t.Error("Set accepted an unknown key")
	}
	t.Setenv("WHISPERKEY_MODEL", "tiny")
	if err := s.Set(KeyModel, "small"); err == nil || !strings.Contains(err.Error(), "unset WHISPERKEY_MODEL") {
		t.Errorf("Set of an environment-set key = %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a rejected Set changed the file")
	}

	broken := writeConfig(t, "model: [\n")
	if err := newStore(t, broken).Set(KeySounds, false); !errors.Is(err, ErrInvalid) {
		t.Errorf("Set on a broken file = %v", err)
	}
	if after, _ := os.ReadFile(broken); string(after) != "model: [\n" {
		t.Error("Set rewrote a file it could not parse")
	}
}

func TestCloseStopsEverything(t *testing.T) {
	s := newStore(t, exampleFile(t))
	ch := watch(t, s)
	if err := s.Watch(t.Context()); err == nil {
		t.Error("second Watch succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, ok := <-ch; ok {
		t.Error("subscriber channel still open after Close")
	}
	if _, ok := <-s.Subscribe(); ok {
		t.Error("Subscribe after Close returned an open channel")
	}
	if err := s.Set(KeySounds, false); !errors.Is(err, ErrClosed) {
		t.Errorf("Set after Close = %v", err)
	}
	if err := s.Watch(t.Context()); !errors.Is(err, ErrClosed) {
		t.Errorf("Watch after Close = %v", err)
	}
}

func TestWatchEndsWithContext(t *testing.T) {
	s := newStore(t, exampleFile(t))
	ctx, cancel := context.WithCancel(t.Context())
	if err := s.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-s.done // the goroutine ends on its own; goleak checks nothing is left
}

func TestEnsureFileKeepsExisting(t *testing.T) {
	path := writeConfig(t, "model: small\n")
	if created, err := EnsureFile(path, []byte("model: auto\n")); created || err != nil {
		t.Fatalf("EnsureFile = %v, %v", created, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "model: small\n" {
		t.Errorf("EnsureFile overwrote the file: %q", got)
	}
}
