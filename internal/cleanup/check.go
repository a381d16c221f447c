package cleanup

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/textproc"
)

var (
	// fence is a Markdown code block around the whole answer.
	fence = regexp.MustCompile("(?s)^```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)\n?```$")
	// preamble is a first line that announces the text instead of being it:
	// "Here is the cleaned text:", "Sure! Here's the rewrite:", "Corrected text:".
	preamble = regexp.MustCompile(`(?i)^(?:(?:sure|certainly|of course|okay|ok)[!,.]?\s*)?` +
		`(?:here(?:'s| is| are)\b[^\n:]*|(?:the )?(?:cleaned|clean|corrected|rewritten|revised|edited|formal|final)(?:[ -]up)?(?: version| text)?(?: of [^\n:]*)?)\s*:\s*`)
	// refusal opens an answer that declines instead of rewriting.
	refusal = regexp.MustCompile(`(?i)^(?:i'?m sorry|i am sorry|sorry, |i can(?:no|')t|i cannot|i won'?t|as an ai\b|i'm unable|i am unable)`)
	word    = regexp.MustCompile(`[\p{L}\p{N}']+`)
)

// fillers are left out when comparing a rewrite with the dictation: a
// cleanup is meant to drop them.
var fillers = map[string]bool{"um": true, "uh": true, "erm": true, "er": true, "ah": true, "hmm": true,
	"like": true, "so": true, "well": true, "you": true, "know": true, "mean": true, "okay": true,
	"the": true, "and": true, "a": true, "an": true, "to": true, "of": true, "i": true}

// Check strips the wrapping a chat model adds around a rewrite (a code fence,
// a "Here is the text:" line, quotes) and the controls (textproc.SanitizeLines),
// and tells whether what is left is a rewrite of raw as instruction (the
// mode's) asks: not empty, not a refusal, not much longer or shorter, in the
// same script with no word mixing scripts, no line break raw did not dictate
// unless instruction asks for lines, and made mostly of raw's words. On error
// the caller keeps raw.
func Check(raw, instruction, answer string) (string, error) {
	s, err := unwrap(raw, answer)
	if err != nil {
		return "", err
	}
	if err := checkBreaks(raw, instruction, s, "dictated"); err != nil {
		return "", err
	}
	rn, an := utf8.RuneCountInString(strings.TrimSpace(raw)), utf8.RuneCountInString(s)
	if an > 2*rn+40 {
		return "", fmt.Errorf("%w: it was %d characters for %d dictated", ErrNotRewrite, an, rn)
	}
	if rn >= 40 && 4*an < rn {
		return "", fmt.Errorf("%w: it was %d characters for %d dictated", ErrNotRewrite, an, rn)
	}
	if rs, as := script(raw), script(s); rs != as && rs != "" && as != "" {
		return "", fmt.Errorf("%w: it was in another script (%s, dictated %s)", ErrNotRewrite, as, rs)
	}
	if err := checkScripts(raw, s, true); err != nil {
		return "", err
	}
	rw, aw := words(raw), words(s)
	if len(aw) >= 3 && shared(aw, rw) < 0.5 {
		return "", fmt.Errorf("%w: most of its words were not dictated (another language, or a reply)", ErrNotRewrite)
	}
	if len(rw) >= 3 && shared(rw, aw) < 0.5 {
		return "", fmt.Errorf("%w: it left out most of the dictated words", ErrNotRewrite)
	}
	return s, nil
}

// unwrap is strip's answer, or why it is no text at all: empty, or a
// refusal (unless raw, the text to rewrite, reads like one itself).
func unwrap(raw, answer string) (string, error) {
	// The checks judge what would be pasted (output.Paster sanitizes the
	// same way): an escape sequence is no word, and its payload is gone.
	s := strip(raw, textproc.SanitizeLines(answer))
	switch {
	case s == "":
		return "", fmt.Errorf("%w: it was empty", ErrNotRewrite)
	case refusal.MatchString(s) && !refusal.MatchString(strings.TrimSpace(raw)):
		return "", fmt.Errorf("%w: %w", ErrNotRewrite, ErrRefused)
	}
	return s, nil
}

func strip(raw, s string) string {
	s = strings.TrimSpace(s)
	if m := fence.FindStringSubmatch(s); m != nil {
		s = strings.TrimSpace(m[1])
	}
	// A preamble the speaker said ("Here is my plan: …") stays.
	if loc := preamble.FindStringIndex(s); loc != nil &&
		!strings.Contains(strings.ToLower(raw), strings.ToLower(strings.TrimRight(s[:loc[1]], ": \t\n"))) {
		s = strings.TrimSpace(s[loc[1]:])
		if m := fence.FindStringSubmatch(s); m != nil {
			s = strings.TrimSpace(m[1])
		}
	}
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}} {
		if len(s) > 2 && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) && !strings.HasPrefix(strings.TrimSpace(raw), q[0]) {
			s = strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
		}
	}
	return s
}

// words are the lower-case words of s other than fillers, cut to five
// letters so "meet" and "meeting" or "Tuesday" and "Tuesday's" count as one.
func words(s string) []string {
	var out []string
	for _, w := range word.FindAllString(strings.ToLower(s), -1) {
		w = strings.Trim(w, "'")
		if w == "" || fillers[w] {
			continue
		}
		if r := []rune(w); len(r) > 5 {
			w = string(r[:5])
		}
		out = append(out, w)
	}
	return out
}

// shared is the share of a's words found in b.
func shared(a, b []string) float64 {
	in := map[string]bool{}
	for _, w := range b {
		in[w] = true
	}
	n := 0
	for _, w := range a {
		if in[w] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// script names the writing system most letters of s are in ("" for none).
func script(s string) string {
	tables := []struct {
		name string
		t    *unicode.RangeTable
	}{{"Latin", unicode.Latin}, {"Cyrillic", unicode.Cyrillic}, {"Greek", unicode.Greek},
		{"Han", unicode.Han}, {"Hiragana", unicode.Hiragana}, {"Katakana", unicode.Katakana},
		{"Hangul", unicode.Hangul}, {"Arabic", unicode.Arabic}, {"Hebrew", unicode.Hebrew},
		{"Devanagari", unicode.Devanagari}, {"Thai", unicode.Thai}}
	counts := make([]int, len(tables))
	for _, r := range s {
		for i, t := range tables {
			if unicode.Is(t.t, r) {
				counts[i]++
				break
			}
		}
	}
	best, bestN := "", 0
	for i, n := range counts {
		if n > bestN {
			best, bestN = tables[i].name, n
		}
	}
	if best == "Hiragana" || best == "Katakana" {
		best = "Han" // Japanese mixes kana and kanji; count them as one
	}
	return best
}
