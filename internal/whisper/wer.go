package whisper

import (
	"slices"
	"strconv"
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
// reference and hypothesis, divided by the reference's word count. Numbers
// count the same spelled or in digits ("ten" = "10", "twenty five" = "25")
// and "mr" = "mister", as Whisper's own scoring normaliser has it: a reader
// of the text sees no error there.
func WordErrorRate(ref, hyp string) float64 {
	errs, words := WordErrors(ref, hyp)
	if words == 0 {
		return min(float64(errs), 1)
	}
	return float64(errs) / float64(words)
}

// WordErrors is WordErrorRate's edit distance and reference word count:
// summed over clips they give the pooled WER, in which each word counts once
// whatever the length of its clip.
func WordErrors(ref, hyp string) (errs, words int) {
	r, h := scoringWords(ref), scoringWords(hyp)
	if len(r) == 0 {
		return len(h), 0
	}
	return editDistance(r, h), len(r)
}

// editDistance is the Levenshtein distance between a and b: words for the
// WER, letters for the spoken-command check's first look.
func editDistance[T comparable](a, b []T) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// numberWord returns the value of a spelled number up to ninety.
func numberWord(w string) (int, bool) {
	ones := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
		"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	tens := []string{"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
	if n := slices.Index(ones, w); n >= 0 {
		return n, true
	}
	if n := slices.Index(tens, w); n >= 0 {
		return 20 + 10*n, true
	}
	return 0, false
}

// title spells out an abbreviated title.
func title(w string) (string, bool) {
	switch w {
	case "mr":
		return "mister", true
	case "mrs":
		return "missus", true
	case "dr":
		return "doctor", true
	}
	return "", false
}

// scoringWords is Normalize's words with numbers in digits and titles spelled.
func scoringWords(s string) []string {
	words := strings.Fields(Normalize(s))
	out := words[:0]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if t, ok := title(w); ok {
			w = t
		} else if n, ok := numberWord(w); ok {
			// "twenty five" is 25; "five five" stays two numbers.
			if u, ok := numberWord(wordAt(words, i+1)); ok && n >= 20 && u > 0 && u < 10 {
				n += u
				i++
			}
			w = strconv.Itoa(n)
		}
		out = append(out, w)
	}
	return out
}

func wordAt(words []string, i int) string {
	if i < len(words) {
		return words[i]
	}
	return ""
}
