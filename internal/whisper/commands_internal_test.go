package whisper

import (
	"math"
	"testing"
)

// A phrase is scored as Whisper writes a short utterance said on its own,
// ended as the decode heard it, and never without a closing mark.
func TestCommandForm(t *testing.T) {
	for _, tc := range []struct{ in, heard, want string }{
		{"scratch that", "Stretch that.", "Scratch that."},
		{"scratch that", "Stretch that", "Scratch that."},
		{"scratch that", "Scratch that!", "Scratch that!"},
		{" undo that! ", "Undo that?", "Undo that?"},
		{"Scratch that.", "", "Scratch that."},
		{"échange", "Échange", "Échange."},
		{"", "Hello.", ""},
	} {
		if got := commandForm(tc.in, tc.heard); got != tc.want {
			t.Errorf("commandForm(%q, %q) = %q, want %q", tc.in, tc.heard, got, tc.want)
		}
	}
}

// The first look that spares most dictations a scoring: letters, not words.
func TestLettersApart(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"Scratch that.", "scratch that", 0},
		{"Scratch not.", "scratch that", 3.0 / 11},
		{"Crash mat!", "scratch that", 5.0 / 11},
		{"Sounds good.", "scratch that", 10.0 / 11},
		{"", "", 0},
	} {
		if got := lettersApart(tc.a, tc.b); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("lettersApart(%q, %q) = %.3f, want %.3f", tc.a, tc.b, got, tc.want)
		}
	}
}
