package whisper

import "testing"

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
