package models

import (
	"strings"
	"testing"
)

func TestCannotTranslate(t *testing.T) {
	cases := []struct {
		name string
		want string // part of the reason; "" when it translates or only the loaded model can tell
	}{
		{"base", ""},
		{"small", ""},
		{"large-v3", ""},
		{"base.en", "English-only"},
		{"distil-large-v3", "English-only"},
		{"distil-small.en", "English-only"},
		{"large-v3-turbo", "trained without translation"},
		{"someone/whisper-small-ct2", ""},
		{"someone/whisper-small.en", "English-only"},
		{"deepdml/faster-whisper-large-v3-turbo-ct2", "trained without translation"},
		{"/models/my-folder", ""},
	}
	for _, c := range cases {
		got := CannotTranslate(c.name)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("CannotTranslate(%q) = %q, want one saying %q", c.name, got, c.want)
		}
	}
	dirs := []struct {
		dir          string
		multilingual bool
		want         string
	}{
		{"/cache/Systran--faster-whisper-base", true, ""},
		{"/cache/Systran--faster-whisper-base.en", false, "base.en is an English-only model"},
		{"/cache/mobiuslabsgmbh--faster-whisper-large-v3-turbo", true, "large-v3-turbo was trained without translation"},
		{"/home/me/my-model", false, "my-model is an English-only model"},
		{"/home/me/my-model", true, ""},
	}
	for _, d := range dirs {
		got := CannotTranslateDir(d.dir, d.multilingual)
		if (d.want == "") != (got == "") || !strings.Contains(got, d.want) {
			t.Errorf("CannotTranslateDir(%q, %v) = %q, want one saying %q", d.dir, d.multilingual, got, d.want)
		}
	}
}
