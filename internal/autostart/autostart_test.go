package autostart_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/whisperkey/whisperkey/internal/autostart"
)

// The start-at-login toggle creates the entry and removes it again; see the
// per-OS tests for what the entry holds.
func TestToggleCreatesAndRemoves(t *testing.T) {
	isolate(t)
	exe := filepath.Join(t.TempDir(), "Whisper Key", "whisperkey")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	a, err := autostart.New(exe)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		on   bool
	}{
		{"on", true},
		{"on again", true},
		{"off", false},
		{"off again", false},
		{"on after off", true},
		{"off at the end", false},
	}
	for _, s := range steps {
		if err := a.Set(s.on); err != nil {
			t.Fatalf("%s: Set(%v): %v", s.name, s.on, err)
		}
		got, err := a.Enabled()
		if err != nil || got != s.on {
			t.Fatalf("%s: Enabled() = %v, %v; want %v", s.name, got, err, s.on)
		}
		if got := entryExe(t, a); s.on && got != exe || !s.on && got != "" {
			t.Fatalf("%s: the entry starts %q; want %q", s.name, got, map[bool]string{true: exe}[s.on])
		}
	}
}

func TestRelativePathRejected(t *testing.T) {
	if _, err := autostart.New("whisperkey"); err == nil {
		t.Error("New accepted a relative program path")
	}
}
