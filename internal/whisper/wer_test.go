package whisper

import (
	"math"
	"testing"
)

func TestWordErrorRate(t *testing.T) {
	cases := []struct {
		name     string
		ref, hyp string
		want     float64
	}{
		{"identical after normalising", "Hello, World!", "hello world", 0},
		{"apostrophes kept as words", "Don't stop.", "dont stop", 0},
		{"one substitution", "the cat sat", "the hat sat", 1.0 / 3},
		{"one deletion", "the cat sat", "the sat", 1.0 / 3},
		{"one insertion", "the cat sat", "the big cat sat", 1.0 / 3},
		{"numbers spelled or in digits", "Ten of clubs, five five", "10 of clubs 5, 5", 0},
		{"compound number", "twenty five minutes", "25 minutes", 0},
		{"a number is still a word", "seven of clubs", "11 of clubs", 1.0 / 3},
		{"titles", "Mister John Dashwood", "Mr. John Dashwood", 0},
		{"empty both", "", "", 0},
		{"empty reference", "", "words", 1},
		{"empty hypothesis", "a b", "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := WordErrorRate(tc.ref, tc.hyp); math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("WER(%q, %q) = %v, want %v", tc.ref, tc.hyp, got, tc.want)
			}
		})
	}
}
