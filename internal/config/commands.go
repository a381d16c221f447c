package config

import (
	"fmt"
	"strings"
	"unicode"
)

// KeyUndoPhrases lists the spoken forms of the undo command.
const (
	KeyUndoPhrases = "commands.undo"

	// MaxCommandWords bounds a spoken form: a command is a short utterance of
	// its own, and a long one could swallow a sentence meant as text.
	MaxCommandWords = 5

	commandsDocAnchor = "docs/configuration.md#spoken-commands"
)

// DefaultUndoPhrases are the English spoken forms of the undo command.
var DefaultUndoPhrases = []string{"scratch that", "undo that"}

// Commands holds the spoken forms of the commands that act on the last
// dictation. A form is recognised only when it is the whole utterance.
type Commands struct {
	Undo List // commands.undo; empty turns the spoken command off
	Send List // commands.send, said at the end of a dictation (handsfree.go); empty turns it off
}

// Command names a spoken command; "" is none.
type Command string

// CommandUndo removes the last dictation from the window it went to.
const CommandUndo Command = "undo"

// Match returns the command that text, a whole transcript, says: its words,
// ignoring case and punctuation, are one of a command's spoken forms.
// "Scratch that." matches; "please scratch that" does not.
func (c Commands) Match(text string) Command {
	key := CommandKey(text)
	if key == "" {
		return ""
	}
	for _, p := range c.Undo.Items() {
		if CommandKey(p) == key {
			return CommandUndo
		}
	}
	return ""
}

// CommandKey is the form text is compared in: lower case, the words alone,
// one space between them. Apostrophes inside a word stay ("don't").
func CommandKey(text string) string {
	f := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	})
	for i, w := range f {
		f[i] = strings.Trim(w, "'’")
	}
	return strings.Join(strings.Fields(strings.Join(f, " ")), " ")
}

func commandFields() []field {
	return []field{
		{key: KeyUndoPhrases, ptr: func(c *Config) any { return &c.Commands.Undo },
			allowed: fmt.Sprintf("a list of phrases of 1 to %d words, such as [scratch that, undo that], or [] to turn the spoken command off (see %s)", MaxCommandWords, commandsDocAnchor),
			hint:    "such a list"},
	}
}

// checkCommands rejects spoken phrases (the undo command's and the send's)
// that could never match, or that would take too much of what people dictate.
func checkCommands(path string, c Config, locs map[string]loc) []error {
	return append(checkPhrases(path, locs, KeyUndoPhrases, "a spoken command", c.Commands.Undo.Items()),
		checkPhrases(path, locs, KeySendPhrases, "a send phrase", c.Commands.Send.Items())...)
}

// checkPhrases is checkCommands for the phrases of key, each called kind
// in the message.
func checkPhrases(path string, locs map[string]loc, key, kind string, phrases []string) []error {
	f, _ := lookupField(key)
	var errs []error
	seen := map[string]bool{}
	for _, p := range phrases {
		k := CommandKey(p)
		var why error
		switch n := len(strings.Fields(k)); {
		case n == 0:
			why = fmt.Errorf("%q has no words", p)
		case n > MaxCommandWords:
			why = fmt.Errorf("%q has %d words; %s has at most %d, so sentences stay text", p, n, kind, MaxCommandWords)
		case seen[k]:
			why = fmt.Errorf("%q is listed twice", p)
		}
		seen[k] = true
		if why != nil {
			errs = append(errs, valueError(path, f, locs, "[…]", why))
		}
	}
	return errs
}
