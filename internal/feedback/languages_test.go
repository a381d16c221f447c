package feedback

import (
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/config"
)

func TestLanguageLines(t *testing.T) {
	cfg := config.Defaults()
	cfg.Decode.Languages = config.NewList("en", "de")
	if got := NextLanguage(cfg); got != "en" {
		t.Errorf("NextLanguage from auto = %q, want en", got)
	}
	if got := LanguageNote(cfg); got != "" {
		t.Errorf("LanguageNote on auto = %q, want none", got)
	}
	cfg.Decode.Language = "de"
	if got := LanguageNote(cfg); got != " · language de" {
		t.Errorf("LanguageNote = %q", got)
	}
	for _, c := range []struct{ profile, lang, want string }{
		{"", "", ""}, {"terminal", "", "terminal"}, {"", "de", "de"}, {"terminal", "→ en", "terminal · → en"},
	} {
		if got := recordingLabel(c.profile, c.lang); got != c.want {
			t.Errorf("recordingLabel(%q, %q) = %q, want %q", c.profile, c.lang, got, c.want)
		}
	}
	// The user's languages come first in the Language menu, before the recent ones.
	top, _ := LanguageItems("auto", []string{"en", "de", "fr", "sv"}, UserLanguagesFirst(cfg, []string{"fr"}))
	var ids []string
	for _, it := range top {
		ids = append(ids, it.ID)
	}
	if got := strings.Join(ids, " "); got != "auto en de fr" {
		t.Errorf("Language menu starts %q, want auto en de fr", got)
	}
	cfg.Hotkeys.Language, cfg.Hotkeys.Translate = "ctrl+alt+l", "ctrl+alt+t"
	var lines []string
	for _, it := range CommandItems(cfg) {
		lines = append(lines, it.Label)
	}
	for _, want := range []string{"Switch the language: press ctrl+alt+l (auto, en, de)", "Dictate in English from any language: hold ctrl+alt+t"} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("Voice commands %q lack %q", lines, want)
		}
	}
}
