package whisper_test

import (
	"testing"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

func TestLanguageTitle(t *testing.T) {
	for _, tt := range []struct{ code, want string }{
		{"en", "English"},
		{"de", "German"},
		{"ht", "Haitian Creole"},
		{"yue", "Cantonese"},
		{"xx", "xx"}, // unknown: the code as it is
	} {
		if got := whisper.LanguageTitle(tt.code); got != tt.want {
			t.Errorf("LanguageTitle(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}
