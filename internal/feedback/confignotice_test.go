package feedback

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/config"
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
			n := ConfigProblems(err, warns)
			if n.Active() != (len(tt.want) > 0) || n.State != tt.wantState || len(n.lines) != len(tt.want) {
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

// A file with more problems than the menu has lines for says how many more.
func TestConfigLinesFitTheMenu(t *testing.T) {
	n := ConfigNotice{State: tray.StateWarning}
	for i := range tray.MaxConfigLines + 3 {
		n.lines = append(n.lines, "line "+string(rune('a'+i)))
	}
	items := n.Items()
	if len(items) != tray.MaxConfigLines || items[len(items)-1].Label != "…and 4 more: open the config file" {
		t.Errorf("items = %+v", items)
	}
}
