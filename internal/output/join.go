package output

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Joiner fixes the boundary between consecutive dictations. Whisper starts its text
// with a space; that space is dropped, and one is put back only when the text continues
// the previous dictation: into the same window, within the window of time, after text
// that did not end in whitespace, and starting with a word (or an opening bracket or quote).
// Scripts written without spaces (Chinese, Japanese, Thai, …) never get one.
type Joiner struct {
	window time.Duration // <0: never join

	last       string
	lastTarget uint64
	lastAt     time.Time
	// before is the state before the last Join, for Revert.
	before *Joiner
}

// NewJoiner joins dictations that come within window of each other; window < 0 never joins.
func NewJoiner(window time.Duration) *Joiner { return &Joiner{window: window} }

// Join returns text as it should be delivered after the previous call, and remembers it.
// target identifies the focused window (0 when unknown: then any window counts as the same).
func (j *Joiner) Join(text string, target uint64, now time.Time) string {
	out := strings.TrimLeftFunc(text, unicode.IsSpace)
	if out == "" {
		return ""
	}
	if j.continues(target, now) && needsSpace(j.last, out) {
		out = " " + out
	}
	j.before = &Joiner{last: j.last, lastTarget: j.lastTarget, lastAt: j.lastAt}
	j.last, j.lastTarget, j.lastAt = out, target, now
	return out
}

// Revert forgets the last Join (its text was taken back out of the window):
// the next text continues the one before it, as if it had never come.
func (j *Joiner) Revert() {
	if b := j.before; b != nil {
		j.last, j.lastTarget, j.lastAt, j.before = b.last, b.lastTarget, b.lastAt, nil
	}
}

func (j *Joiner) continues(target uint64, now time.Time) bool {
	if j.window < 0 || j.last == "" || now.Sub(j.lastAt) > j.window || now.Before(j.lastAt) {
		return false
	}
	return target == 0 || j.lastTarget == 0 || target == j.lastTarget
}

func needsSpace(prev, next string) bool {
	p, _ := utf8.DecodeLastRuneInString(prev)
	n, _ := utf8.DecodeRuneInString(next)
	if unicode.IsSpace(p) || unicode.In(p, unicode.Ps, unicode.Pi) {
		return false // "(" or "“" opens what follows
	}
	if spaceless(p) || spaceless(n) {
		return false
	}
	return unicode.IsLetter(n) || unicode.IsDigit(n) || unicode.In(n, unicode.Ps, unicode.Pi)
}

// spaceless reports a rune from a script written without spaces between words.
func spaceless(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao,
		unicode.Khmer, unicode.Myanmar, unicode.Tibetan) || (r >= 0x3000 && r <= 0x303f) // CJK punctuation
}
