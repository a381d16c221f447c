package whisper

import (
	"errors"
	"strings"
	"testing"
)

func TestResolveLanguage(t *testing.T) {
	multilingual := allLanguages()[:0:0]
	for _, c := range allLanguages() {
		if c != "yue" { // base and the models before large-v3
			multilingual = append(multilingual, c)
		}
	}
	cases := []struct {
		name, asked string
		known       []string
		want        string // the code; "" to detect
		says        []string
	}{
		{"detect", "auto", []string{"en"}, "", nil},
		{"left out", " ", multilingual, "", nil},
		{"code", "de", multilingual, "de", nil},
		{"name in any case", "German", multilingual, "de", nil},
		{"every Whisper language when the model is not known", "yue", nil, "yue", nil},
		{"English-only model, code", "de", []string{"en"}, "", []string{`"de"`, "the model m knows only English (en)"}},
		{"English-only model, English", "english", []string{"en"}, "en", nil},
		{"a later release's language", "yue", multilingual, "", []string{`"yue" (cantonese)`, "does not know it", "99 languages", "large-v3"}},
		{"made up", "xx", multilingual, "", []string{"not one of Whisper's language codes", "such as en, de or fr", "docs/configuration.md#language"}},
		{"a letter off", "dd", multilingual, "", []string{"close: da (danish), de (german)"}},
		{"a misspelt name", "germn", multilingual, "", []string{"close: de (german)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ResolveLanguage(c.asked, "m", c.known)
			if c.says == nil {
				if err != nil || got != c.want {
					t.Fatalf("ResolveLanguage(%q) = %q, %v; want %q", c.asked, got, err, c.want)
				}
				return
			}
			if !errors.Is(err, ErrUnknownLanguage) {
				t.Fatalf("ResolveLanguage(%q) = %q, %v; want ErrUnknownLanguage", c.asked, got, err)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q lacks %q", err, s)
				}
			}
		})
	}
}
