package textproc

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Replacement rewrites one word or phrase: From matches case-insensitively
// and only as whole words; To is written as is and may hold newlines.
type Replacement struct {
	From string `yaml:"from" json:"from"`
	To   string `yaml:"to" json:"to"`
}

// Letter cases of Options.Case.
const (
	CaseAsSpoken = "as_spoken" // as the model wrote it
	CaseLower    = "lower"     // all lower case (replacements still write To as is)
)

// Options say how to shape the text. The zero value changes nothing but
// the controls Apply strips.
type Options struct {
	// SpokenPunctuation turns "comma", "new line", "question mark" and the
	// like into the characters.
	SpokenPunctuation bool
	// Replacements apply in order, each to the result of the one before.
	Replacements []Replacement
	// Case is CaseAsSpoken ("" too) or CaseLower.
	Case string
	// StripFinalPeriod drops the period that ends a one-sentence text (chat style).
	StripFinalPeriod bool
	// TrailingSpace ends the text with a space, so the next dictation joins it.
	TrailingSpace bool
}

// Processor applies one Options; it is immutable and safe for concurrent use.
type Processor struct {
	opt  Options
	repl []compiled
}

type compiled struct {
	re *regexp.Regexp
	to string
}

// New checks o and prepares its replacements.
func New(o Options) (*Processor, error) {
	switch o.Case {
	case "", CaseAsSpoken, CaseLower:
	default:
		return nil, fmt.Errorf("case %q is not one of %s, %s", o.Case, CaseAsSpoken, CaseLower)
	}
	p := &Processor{opt: o}
	for i, r := range o.Replacements {
		words := strings.Fields(r.From)
		if len(words) == 0 {
			return nil, fmt.Errorf("replacement %d (to %q): from is empty; write the word or phrase to replace", i+1, r.To)
		}
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		// Words of a phrase may be split by any run of spaces.
		re, err := regexp.Compile(`(?i)` + strings.Join(words, `\s+`))
		if err != nil {
			return nil, fmt.Errorf("replacement %d (from %q): %w", i+1, r.From, err)
		}
		p.repl = append(p.repl, compiled{re: re, to: r.To})
	}
	return p, nil
}

// Apply returns text shaped by the options: first what Sanitize strips is
// stripped, but for line feeds (the engines' text has none left, and an AI
// rewrite's list keeps its lines), then spoken punctuation, case,
// replacements (so their To keeps its capitals), the final period and the
// trailing space.
func (p *Processor) Apply(text string) string {
	text = sanitize(text, true)
	if p.opt.SpokenPunctuation {
		text = spokenPunctuation(text)
	}
	if p.opt.Case == CaseLower {
		text = strings.ToLower(text)
	}
	for _, r := range p.repl {
		text = replaceWhole(text, r)
	}
	if p.opt.StripFinalPeriod {
		text = stripFinalPeriod(text)
	}
	if p.opt.TrailingSpace && text != "" {
		if last, _ := utf8.DecodeLastRuneInString(text); !unicode.IsSpace(last) {
			text += " "
		}
	}
	return text
}

// replaceWhole replaces the matches of r that are whole words: no letter or
// digit right before or after.
func replaceWhole(text string, r compiled) string {
	var b strings.Builder
	pos := 0 // text[:pos] is already in b
	for from := 0; from <= len(text); {
		loc := r.re.FindStringIndex(text[from:])
		if loc == nil {
			break
		}
		start, end := from+loc[0], from+loc[1]
		if end == start || !isBoundary(text, start, end) {
			_, size := utf8.DecodeRuneInString(text[start:])
			from = start + max(size, 1)
			continue
		}
		before := text[pos:start]
		after := end
		// To brings its own spacing at either end when it starts or ends
		// with a space or line break.
		if strings.HasPrefix(r.to, "\n") || strings.HasPrefix(r.to, " ") {
			before = strings.TrimRight(before, " \t")
		}
		if strings.HasSuffix(r.to, "\n") || strings.HasSuffix(r.to, " ") {
			for after < len(text) && (text[after] == ' ' || text[after] == '\t') {
				after++
			}
		}
		b.WriteString(before)
		b.WriteString(r.to)
		pos, from = after, after
	}
	b.WriteString(text[pos:])
	return b.String()
}

func isBoundary(text string, start, end int) bool {
	if r, _ := utf8.DecodeLastRuneInString(text[:start]); start > 0 && isWordRune(r) {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(text[end:]); end < len(text) && isWordRune(r) {
		return false
	}
	return true
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// stripFinalPeriod drops a single final "." when the text is one sentence:
// one line, and no ".", "!" or "?" followed by a space before the end.
func stripFinalPeriod(text string) string {
	body := strings.TrimRightFunc(text, unicode.IsSpace)
	tail := text[len(body):]
	if !strings.HasSuffix(body, ".") || strings.HasSuffix(body, "..") || strings.Contains(body, "\n") {
		return text
	}
	inner := body[:len(body)-1]
	for i := 0; i+1 < len(inner); i++ {
		if strings.IndexByte(".!?", inner[i]) >= 0 && unicode.IsSpace(rune(inner[i+1])) {
			return text
		}
	}
	return inner + tail
}
