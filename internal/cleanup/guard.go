package cleanup

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/textproc"
)

// linesAsked is an instruction that wants its answer on several lines: the
// list mode's ("one item per line"), or a spoken "make this a bulleted list".
var linesAsked = regexp.MustCompile(`(?i)\b(?:lists?|lines?|newlines?|paragraphs?|bullet(?:s|ed)?|items|numbered|steps|e-?mail|letter|poem)\b`)

// AsksForLines reports whether instruction asks for an answer on several
// lines (a list, paragraphs, an email): then its answer may write line
// breaks that were never dictated. Every other answer may not, since under
// paste: type each one is an Enter, which runs a terminal's line.
func AsksForLines(instruction string) bool { return linesAsked.MatchString(instruction) }

// checkBreaks refuses an answer s with more line breaks than raw asks for
// (textproc.DictatedBreaks), unless instruction asks for lines; whose says
// what raw is in the message ("dictated", "selected").
func checkBreaks(raw, instruction, s, whose string) error {
	if AsksForLines(instruction) {
		return nil
	}
	if n, want := strings.Count(s, "\n"), textproc.DictatedBreaks(raw); n > want {
		return fmt.Errorf("%w: it added line breaks (%d, %s %d); say \"new line\" where one belongs, or ask for a list",
			ErrNotRewrite, n, whose, want)
	}
	return nil
}

// letterRun is a word as far as scripts go: letters and the marks on them.
var letterRun = regexp.MustCompile(`[\p{L}\p{M}]+`)

// checkScripts refuses an answer s with a word that mixes scripts (a
// Cyrillic "о" or a Greek "ο" inside a Latin word reads the same and is
// another word to a computer) unless raw has that very word, and, when
// sameScripts is set, an answer with letters of a script raw has none of.
// The errors name the scripts, never the text: they go to the log.
func checkScripts(raw, s string, sameScripts bool) error {
	heard := map[string]bool{}
	for _, w := range letterRun.FindAllString(strings.ToLower(raw), -1) {
		heard[w] = true
	}
	for _, w := range letterRun.FindAllString(strings.ToLower(s), -1) {
		if a, b, mixed := mixedScripts(w); mixed && !heard[w] {
			return fmt.Errorf("%w: a word in it mixes %s and %s letters (a look-alike letter)", ErrNotRewrite, a, b)
		}
	}
	if !sameScripts {
		return nil
	}
	scripts := map[string]bool{}
	for _, r := range raw {
		if sc := family(scriptOf(r)); sc != "" {
			scripts[sc] = true
		}
	}
	if len(scripts) == 0 {
		return nil // nothing to compare with: digits, marks
	}
	for _, r := range s {
		if sc := family(scriptOf(r)); sc != "" && !scripts[sc] {
			return fmt.Errorf("%w: it has %s letters, which the text had none of", ErrNotRewrite, sc)
		}
	}
	return nil
}

// mixedScripts reports whether the letters of word w come from more than
// one script, and two of them, except the mixes a language writes: Latin
// with the Japanese, Chinese (Bopomofo) or Korean scripts and Han, as
// Unicode's "highly restrictive" identifier profile (UTS #39) allows.
func mixedScripts(w string) (a, b string, mixed bool) {
	seen := map[string]bool{}
	var order []string
	for _, r := range w {
		if sc := scriptOf(r); sc != "" && !seen[sc] {
			seen[sc] = true
			order = append(order, sc)
		}
	}
	if len(order) < 2 {
		return "", "", false
	}
	for _, allowed := range [][]string{{"Latin", "Han", "Hiragana", "Katakana"}, {"Latin", "Han", "Bopomofo"}, {"Latin", "Han", "Hangul"}} {
		within := true
		for _, sc := range order {
			within = within && slices.Contains(allowed, sc)
		}
		if within {
			return "", "", false
		}
	}
	return order[0], order[1], true
}

// family merges the scripts one language writes together: Japanese kana
// and Han (as script does), Bopomofo with Han.
func family(sc string) string {
	switch sc {
	case "Hiragana", "Katakana", "Bopomofo":
		return "Han"
	}
	return sc
}

// commonScripts are looked at first: most text is in one of them.
var commonScripts = []string{"Latin", "Cyrillic", "Greek", "Han", "Hiragana", "Katakana", "Hangul", "Arabic", "Hebrew",
	"Devanagari", "Thai", "Armenian", "Georgian"}

// scriptOf names the Unicode script of letter r; "" for anything but a
// letter, and for the letters every script shares (Common, Inherited).
func scriptOf(r rune) string {
	if !unicode.IsLetter(r) {
		return ""
	}
	if r < 0x80 {
		return "Latin"
	}
	for _, name := range commonScripts {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	for name, t := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && unicode.Is(t, r) {
			return name
		}
	}
	return ""
}
