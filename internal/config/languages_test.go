package config

import (
	"slices"
	"strings"
	"testing"
)

func TestLanguagesKey(t *testing.T) {
	cannot := func(m string) string {
		if strings.HasSuffix(m, ".en") {
			return m + " is an English-only model and cannot translate"
		}
		return ""
	}
	cases := []struct {
		name, yaml string
		want       []string // the languages when loaded
		wantErr    string   // part of the error; "" for none
	}{
		{"a list", "languages: [en, de]", []string{"en", "de"}, ""},
		{"one line, as the environment gives it", "languages: en, sv", []string{"en", "sv"}, ""},
		{"empty", "languages: []", nil, ""},
		{"not a code", "languages: [en, german]", nil, `"german" is not a Whisper language code`},
		{"auto", "languages: [auto]", nil, "auto is not a language; leave languages empty ([]) to detect any language"},
		{"twice", "languages: [de, de]", nil, `"de" is listed twice`},
		{"translate with a model that translates", "model: base\nhotkeys:\n  translate: ctrl+alt+t", nil, ""},
		{"translate with an English-only model", "model: base.en\nhotkeys:\n  translate: ctrl+alt+t", nil,
			`key "hotkeys.translate": "ctrl+alt+t" is not allowed: base.en is an English-only model and cannot translate`},
		{"translate off with an English-only model", "model: base.en\nhotkeys:\n  translate: none", nil, ""},
		{"translate with model auto: checked at the press", "hotkeys:\n  translate: ctrl+alt+t", nil, ""},
		{"language key on the record key", "hotkeys:\n  language: ctrl+win", nil, "it is the same combination as hotkeys.record"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := loadWant(t, c.yaml, Options{CannotTranslate: cannot}, c.wantErr)
			if c.wantErr == "" && !slices.Equal(cfg.Decode.Languages.Items(), c.want) {
				t.Errorf("languages %q, want %q", cfg.Decode.Languages.Items(), c.want)
			}
		})
	}
}

func TestNextLanguage(t *testing.T) {
	two := NewList("en", "de")
	cases := []struct {
		cur       string
		languages List
		want      string
	}{
		{"auto", two, "en"},
		{"en", two, "de"},
		{"de", two, "auto"},
		{"fr", two, "auto"}, // set by hand, outside the list
		{"", two, "auto"},
		{"auto", List{}, "auto"},
		{"de", List{}, "auto"},
	}
	for _, c := range cases {
		if got := NextLanguage(c.cur, c.languages); got != c.want {
			t.Errorf("NextLanguage(%q, %q) = %q, want %q", c.cur, c.languages.Items(), got, c.want)
		}
	}
}
