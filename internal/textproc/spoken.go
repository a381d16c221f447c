package textproc

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// command is what a spoken punctuation phrase writes.
type command int

const (
	cmdMark       command = iota // a mark that sticks to the word before: , . ? ! :
	cmdNewLine                   // "\n"
	cmdParagraph                 // "\n\n"
	cmdOpenQuote                 // " that sticks to the word after
	cmdCloseQuote                // " that sticks to the word before
)

type spoken struct {
	kind command
	mark string // for cmdMark
}

// spokenCommand is what an English command phrase (lower case, words split
// by one space) writes.
func spokenCommand(phrase string) spoken {
	switch phrase {
	case "comma":
		return spoken{cmdMark, ","}
	case "period", "full stop":
		return spoken{cmdMark, "."}
	case "question mark":
		return spoken{cmdMark, "?"}
	case "exclamation mark", "exclamation point":
		return spoken{cmdMark, "!"}
	case "colon":
		return spoken{cmdMark, ":"}
	case "new line", "newline":
		return spoken{cmdNewLine, ""}
	case "new paragraph":
		return spoken{cmdParagraph, ""}
	case "open quote", "begin quote":
		return spoken{cmdOpenQuote, ""}
	}
	return spoken{cmdCloseQuote, ""} // close quote, end quote, unquote: the rest spokenRE finds
}

// spokenRE finds a command with the punctuation the model put around it
// (Whisper writes "First line, new line. Second line."): that punctuation is
// the model's guess where the speaker dictated their own, so it is dropped
// (except a "?" or "!" before a line break or closing quote).
// Longer phrases come first so "new paragraph" wins over a shorter overlap.
var spokenRE = regexp.MustCompile(`(?i)[\s,.;:!?]*\b(exclamation\s+mark|exclamation\s+point|question\s+mark|new\s+paragraph|new\s+line|newline|full\s+stop|open\s+quote|begin\s+quote|close\s+quote|end\s+quote|unquote|comma|period|colon)\b[,.;:!?]*`)

// spokenPunctuation writes the commands in text as characters: marks stick
// to the word before, a space follows them, and the word after ".", "?", "!"
// or a line break starts with a capital.
func spokenPunctuation(text string) string {
	matches := spokenRE.FindAllStringSubmatchIndex(text, -1)
	if matches == nil {
		return text
	}
	var w writer
	pos := 0
	for _, m := range matches {
		w.words(text[pos:m[0]])
		phrase := strings.ToLower(strings.Join(strings.Fields(text[m[2]:m[3]]), " "))
		c := spokenCommand(phrase)
		// A question or exclamation the model heard before a line break or a
		// closing quote is the speaker's, not a guess: keep it.
		if lead := text[m[0]:m[2]]; c.kind != cmdMark && c.kind != cmdOpenQuote {
			if i := strings.IndexAny(lead, "?!"); i >= 0 {
				w.command(spoken{cmdMark, lead[i : i+1]})
			}
		}
		w.command(c)
		pos = m[1]
	}
	w.words(text[pos:])
	return strings.TrimRightFunc(w.b.String(), func(r rune) bool { return r == ' ' })
}

// writer joins words and commands with the right spacing.
type writer struct {
	b         strings.Builder
	glue      bool // the next word follows without a space (after an opening quote or a line break)
	capital   bool // the next word starts with a capital
	afterWord bool // what was written last is a word or a mark that takes a space after it
}

func (w *writer) words(s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if w.afterWord && !w.glue {
		w.b.WriteByte(' ')
	}
	if w.capital {
		r, size := utf8.DecodeRuneInString(s)
		s = string(unicode.ToUpper(r)) + s[size:]
	}
	w.b.WriteString(s)
	w.glue, w.capital, w.afterWord = false, false, true
}

func (w *writer) command(c spoken) {
	switch c.kind {
	case cmdMark:
		w.b.WriteString(c.mark)
		w.capital = strings.ContainsAny(c.mark, ".?!")
		w.glue, w.afterWord = false, true
	case cmdNewLine, cmdParagraph:
		w.trimSpace()
		w.b.WriteString("\n")
		if c.kind == cmdParagraph {
			w.b.WriteString("\n")
		}
		w.glue, w.capital, w.afterWord = true, true, false
	case cmdOpenQuote:
		if w.afterWord && !w.glue {
			w.b.WriteByte(' ')
		}
		w.b.WriteByte('"')
		w.glue, w.afterWord = true, true
	case cmdCloseQuote:
		w.trimSpace()
		w.b.WriteByte('"')
		w.glue, w.afterWord = false, true
	}
}

func (w *writer) trimSpace() {
	s := strings.TrimRight(w.b.String(), " ")
	w.b.Reset()
	w.b.WriteString(s)
}

// DictatedBreaks is how many line breaks text asks for: its own line feeds
// and its spoken "new line" (one) and "new paragraph" (two) commands. An AI
// cleanup may write that many in its answer and no more (internal/cleanup):
// a line break the speaker never dictated is an Enter in a terminal.
func DictatedBreaks(text string) int {
	n := strings.Count(text, "\n")
	for _, m := range spokenRE.FindAllStringSubmatch(text, -1) {
		switch spokenCommand(strings.ToLower(strings.Join(strings.Fields(m[1]), " "))).kind {
		case cmdNewLine:
			n++
		case cmdParagraph:
			n += 2
		}
	}
	return n
}
