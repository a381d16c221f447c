package textproc

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize returns text as plain characters: what an engine or a server
// writes is words, never commands for the terminal or window it is pasted
// into, so nothing in it may move the cursor, press Enter or reorder what
// the user sees. It removes
//
//   - terminal escape sequences whole (CSI such as ESC [ 3 1 m, and OSC, DCS,
//     APC, PM and SOS strings such as a window title up to BEL or ST), in
//     their ESC and their C1 forms, so no "[31m" is left among the words;
//   - every other C0 and C1 control and DEL; a run of line breaks and tabs
//     (TAB, LF, VT, FF, CR, NEL, U+2028, U+2029) inside the text becomes one
//     space with the spaces around it, so the words on either side stay
//     apart, and vanishes at either end;
//   - the format characters (Unicode Cf): the bidi embeddings, overrides
//     and isolates U+202A–U+202E and U+2066–U+2069 (they show text in
//     another order than it is pasted), and the invisible ones that hide or
//     split words: U+200B, U+2060–U+2064, U+FEFF, the soft hyphen, the tag
//     characters U+E0000–U+E007F;
//   - bytes that are not UTF-8.
//
// It keeps ZWNJ and ZWJ (U+200C, U+200D: Persian and Indic spelling and
// emoji need them) and the direction marks LRM, RLM and ALM (U+200E,
// U+200F, U+061C): a mark only sets the direction of the punctuation or
// digits beside it in right-to-left text and cannot reorder a run of text
// as an override can. Line breaks in the output come only from the text
// settings (spoken punctuation, replacements), which run after this.
func Sanitize(text string) string { return sanitize(text, false) }

// SanitizeLines is Sanitize keeping line feeds, a CR-LF as one: the step
// every text takes on its way into a window (output.Paster), whatever
// produced it. A lone CR is no line break there: it becomes a space, as in
// Sanitize. Which line feeds may reach it at all is up to the producers: the
// engines' text has none, the text settings write them where the user said
// "new line", and an AI answer that adds some is refused (internal/cleanup).
func SanitizeLines(text string) string { return sanitize(text, true) }

// sanitize is Sanitize, keeping line feeds (and a CR-LF as one) when keepLF
// is set.
func sanitize(text string, keepLF bool) string {
	if isPlain(text, keepLF) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	brk := false   // a line break or tab waits to become a space
	space := false // the last rune written is a space
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
		case r == '\x1b':
			size = escapeLen(text[i:])
		case isC1Introducer(r):
			size += controlString(text[i+size:], r == csi)
		case keepLF && r == '\n':
			b.WriteByte('\n')
			brk, space = false, false
		case isBreak(r):
			brk = true
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r) && !keptFormat(r):
		case brk && r == ' ' && space:
			// The spaces around a break collapse into one.
		default:
			if brk && b.Len() > 0 && r != ' ' && !space {
				b.WriteByte(' ')
			}
			brk, space = false, r == ' '
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// isPlain reports text that Sanitize leaves as it is, which is all
// ordinary text: checked first, it spares the copy.
func isPlain(text string, keepLF bool) bool {
	for _, r := range text {
		if keepLF && r == '\n' {
			continue
		}
		if r == utf8.RuneError || unicode.IsControl(r) || isBreak(r) || unicode.Is(unicode.Cf, r) && !keptFormat(r) {
			return false
		}
	}
	return true
}

func isBreak(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', '\u0085', '\u2028', '\u2029':
		return true
	}
	return false
}

func keptFormat(r rune) bool {
	switch r {
	case '\u200c', '\u200d', '\u200e', '\u200f', '\u061c':
		return true
	}
	return false
}

// The C1 controls that open a sequence (ECMA-48): CSI, and the ones that
// open a control string ended by ST or BEL.
const (
	csi = '\u009b'
	dcs = '\u0090'
	sos = '\u0098'
	osc = '\u009d'
	pm  = '\u009e'
	apc = '\u009f'
)

func isC1Introducer(r rune) bool {
	switch r {
	case csi, dcs, sos, osc, pm, apc:
		return true
	}
	return false
}

// escapeLen is the length of the escape sequence at the start of s, which
// starts with ESC: ESC [ … (CSI), ESC ] P X ^ _ … (a control string), or
// ESC, intermediates 0x20–0x2F and one final byte 0x30–0x7E. An ESC that
// starts none of these is one byte long.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + controlString(s[2:], true)
	case ']', 'P', 'X', '^', '_':
		return 2 + controlString(s[2:], false)
	}
	n := 1
	for n < len(s) && s[n] >= 0x20 && s[n] <= 0x2f {
		n++
	}
	if n < len(s) && s[n] >= 0x30 && s[n] <= 0x7e {
		return n + 1
	}
	return 1
}

// controlString is the length of the body of a sequence whose introducer
// is already read. A CSI body is parameter bytes 0x30–0x3F, intermediate
// bytes 0x20–0x2F and one final byte 0x40–0x7E; it ends early at any other
// byte, which is left to the caller. A control string runs to BEL, ESC \
// or U+009C (ST), or to the end of s: a terminal would swallow all of that
// too.
func controlString(s string, isCSI bool) int {
	if isCSI {
		n := 0
		for n < len(s) && s[n] >= 0x30 && s[n] <= 0x3f {
			n++
		}
		for n < len(s) && s[n] >= 0x20 && s[n] <= 0x2f {
			n++
		}
		if n < len(s) && s[n] >= 0x40 && s[n] <= 0x7e {
			n++
		}
		return n
	}
	for n := 0; n < len(s); n++ {
		switch {
		case s[n] == '\a':
			return n + 1
		case s[n] == '\x1b' && n+1 < len(s) && s[n+1] == '\\':
			return n + 2
		case strings.HasPrefix(s[n:], "\u009c"):
			return n + len("\u009c")
		}
	}
	return len(s)
}
