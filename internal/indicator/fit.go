package indicator

import (
	"strings"
	"unicode/utf8"
)

// tail is the newest words of text that fit in width pixels as measure
// (the renderer's own font metrics) gives them, led by "…" when older words
// are left out: live text shows what was said last. The cut falls between
// words; only a last word wider than the whole space is cut inside, keeping
// its end. "" when not even "…" fits.
func tail(measure func(string) int, text string, width int) string {
	text = strings.Join(strings.Fields(text), " ")
	if measure(text) <= width {
		return text
	}
	words := strings.Fields(text)
	best := ""
	for i := len(words) - 1; i >= 0; i-- {
		s := "…" + strings.Join(words[i:], " ")
		if measure(s) > width {
			break
		}
		best = s
	}
	if best != "" {
		return best
	}
	// A single word wider than the space: its end, which is the newest.
	last := words[len(words)-1]
	for len(last) > 0 {
		_, n := utf8.DecodeRuneInString(last)
		last = last[n:]
		if s := "…" + last; measure(s) <= width {
			return s
		}
	}
	if measure("…") <= width {
		return "…"
	}
	return ""
}

// head is s shortened at its end with "…" until measure finds it at most
// width pixels wide: a name keeps its start.
func head(measure func(string) int, s string, width int) string {
	if measure(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 {
		r = r[:len(r)-1]
		if t := string(r) + "…"; measure(t) <= width {
			return t
		}
	}
	return ""
}

// Room for the text beside the level bar while recording, in pixels, out of
// the avail between the dot and the right edge.
const (
	labelGap = 10 // between the bar and the text
	liveBarW = 36 // the level bar beside live text: short, still visible
)

// recordingLabel is v's text fitted beside the level bar: live text gets
// all but a short bar and keeps its newest words; a profile's name gets half
// and keeps its start.
func recordingLabel(measure func(string) int, v view, avail int) string {
	if v.text == "" {
		return ""
	}
	if v.live {
		return tail(measure, v.text, avail-liveBarW-labelGap)
	}
	return head(measure, v.text, avail/2)
}
