package server

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// clip quotes at most maxEcho bytes, whole characters only.
func TestClip(t *testing.T) {
	cases := []struct {
		name, in string
		keep     int // bytes of in kept; all of it when it fits
	}{
		{"short", "en", 2},
		{"exactly the cap", strings.Repeat("a", maxEcho), maxEcho},
		{"60,000 bytes", strings.Repeat("a", 60000), maxEcho},
		{"a character across the cap", strings.Repeat("a", maxEcho-1) + "é" + "tail", maxEcho - 1},
		{"four-byte characters", strings.Repeat("𝄞", 100), maxEcho},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := clip(tc.in)
			kept := strings.TrimSuffix(got, "…")
			if kept != tc.in[:tc.keep] || !utf8.ValidString(got) || (len(kept) < len(tc.in)) != strings.HasSuffix(got, "…") {
				t.Fatalf("clip kept %d bytes (%q…), want %d and a mark when cut", len(kept), got[:min(len(got), 20)], tc.keep)
			}
		})
	}
}
