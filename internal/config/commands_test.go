package config

import (
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/tabletest"
)

func TestCommandsMatchOnlyTheWholeUtterance(t *testing.T) {
	c := Defaults().Commands
	tabletest.Check(t, "Match", c.Match, []tabletest.Case[string, Command]{
		{Name: "as whisper writes it", In: " Scratch that.", Want: CommandUndo},
		{Name: "other form", In: "Undo that!", Want: CommandUndo},
		{Name: "shouted with commas", In: "SCRATCH, THAT!!", Want: CommandUndo},
		{Name: "lower case, no period", In: "scratch that", Want: CommandUndo},
		{Name: "extra spaces and a quote", In: "  « scratch   that » ", Want: CommandUndo},
		{Name: "inside a sentence", In: "Please scratch that line from the report."},
		{Name: "one word more", In: "scratch that please"},
		{Name: "one word less", In: "scratch"},
		{Name: "empty", In: ""},
		{Name: "only punctuation", In: " ... "},
		{Name: "other words", In: "The coffee machine is broken."},
	})
	own := Commands{Undo: NewList("Weg damit", "don't keep it")}
	for text, want := range map[string]Command{"Weg damit.": CommandUndo, "Don't keep it!": CommandUndo, "scratch that": ""} {
		if got := own.Match(text); got != want {
			t.Errorf("user's list: Match(%q) = %q, want %q", text, got, want)
		}
	}
	if got := (Commands{}).Match("scratch that"); got != "" {
		t.Errorf("an empty list matched %q", got)
	}
}

func TestLoadChecksSpokenCommands(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       string // "" loads; otherwise part of the error
	}{
		{"defaults", "", ""},
		{"own phrases", "commands:\n  undo: [weg damit, scratch that]", ""},
		{"turned off", "commands:\n  undo: []", ""},
		{"no words", "commands:\n  undo: [\"...\"]", `"..." has no words`},
		{"too long", "commands:\n  undo: [please remove the last thing i said]", "has 7 words; a spoken command has at most 5"},
		{"twice in other spelling", "commands:\n  undo: [scratch that, Scratch that!]", `"Scratch that!" is listed twice`},
		{"not a list of text", "commands:\n  undo: [{a: b}]", `key "commands.undo"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := loadWant(t, tc.yaml, Options{}, tc.want)
			if tc.want == "" && tc.name == "turned off" && len(cfg.Commands.Undo.Items()) != 0 {
				t.Fatalf("commands.undo: [] left %q", cfg.Commands.Undo.Items())
			}
		})
	}
}

func TestUndoHotkeysMustDiffer(t *testing.T) {
	_, _, err := Load(writeConfig(t, "hotkeys:\n  record: ctrl+shift+f9\n  undo: ctrl+shift+f9\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), `it is the same combination as hotkeys.record`) {
		t.Fatalf("Load error %v, want the undo key named as the record key's twin", err)
	}
	cfg, _, err := Load(writeConfig(t, "hotkeys:\n  paste_again: \"\"\n"), Options{})
	if err != nil || cfg.Hotkeys.PasteAgain != HotkeyOff || cfg.Hotkeys.Undo != HotkeyOff {
		t.Fatalf("empty paste_again: %+v, %v; want both off", cfg.Hotkeys, err)
	}
}
