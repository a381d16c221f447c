package whisper

import (
	"strings"
	"unicode"
)

// Normalize lowercases text and keeps only letters, digits and single spaces,
// so transcripts compare by words rather than by punctuation or case.
func Normalize(s string) string {
	var b strings.Builder
	space := true
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			if r != '\'' {
				b.WriteRune(r)
			}
			space = false
		default:
			if !space {
				b.WriteByte(' ')
				space = true
			}
		}
	}
	return strings.TrimSpace(b.String())
}

// WordErrorRate is the word-level edit distance between the normalised
// reference and hypothesis, divided by the reference's word count.
func WordErrorRate(ref, hyp string) float64 {
	r, h := strings.Fields(Normalize(ref)), strings.Fields(Normalize(hyp))
	if len(r) == 0 {
		if len(h) == 0 {
			return 0
		}
		return 1
	}
	prev := make([]int, len(h)+1)
	cur := make([]int, len(h)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(h); j++ {
			cost := 1
			if r[i-1] == h[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(h)]) / float64(len(r))
}
