package cleanup

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// translation is an instruction that asks for another language: its answer
// shares few words, or no script, with the selection, and that is right.
var translation = regexp.MustCompile(`(?i)\btranslat|\b(?:in|into|to) (?:english|german|french|spanish|italian|portuguese|dutch|polish|czech|russian|ukrainian|swedish|danish|norwegian|finnish|greek|turkish|arabic|hebrew|hindi|chinese|japanese|korean|thai|vietnamese|indonesian)\b`)

// Edit asks the model to change text (the selection) as the spoken
// instruction says, for the edit hotkey. With text "" (nothing selected,
// and the user allowed it) the answer to the instruction alone is wanted.
// It never fails: on any problem Result.Text is "" and Result.Err says why.
func (c *Client) Edit(ctx context.Context, instruction, text string) Result {
	start := time.Now()
	instruction = strings.TrimSpace(instruction)
	var answer string
	var err error
	if text == "" {
		answer, err = c.ask(ctx, "Write what the user asks for. Reply with that text only: no greeting, no comments.", instruction)
		if err == nil {
			answer, err = checkInsert(instruction, answer)
		}
	} else {
		answer, err = c.ask(ctx, "Rewrite the user's text as this instruction says: "+instruction+
			" Keep everything the instruction does not ask to change. Reply with the rewritten text only.", text)
		if err == nil {
			answer, err = CheckEdit(text, instruction, answer)
		}
	}
	res := Result{Text: answer, Err: err, Took: time.Since(start)}
	if err != nil {
		res.Text = ""
		// The reason only: neither the texts nor the key go to the log.
		c.log.Info("edit not used; the window is left as it was", "reason", err.Error(), "took", res.Took)
		return res
	}
	c.log.Debug("edit done", "took", res.Took, "chars_in", len(text), "chars_out", len(answer))
	return res
}

// CheckEdit strips the wrapping a chat model adds around its answer and tells
// whether what is left is text's edit as instruction asked: not empty, not a
// refusal, not far longer, no word mixing scripts, no line break text does
// not have unless instruction asks for lines (a list), and, unless a
// translation was asked for, in the same script and keeping a fair share of
// text's words. An unrelated reply (a chat answer, another paragraph) fails
// the last check; a rewrite that changes more words than a cleanup may (more
// formal, a list) passes.
func CheckEdit(text, instruction, answer string) (string, error) {
	s, err := unwrap(text, answer)
	if err != nil {
		return "", err
	}
	tn, an := utf8.RuneCountInString(strings.TrimSpace(text)), utf8.RuneCountInString(s)
	if an > 3*tn+200 {
		return "", fmt.Errorf("%w: it was %d characters for %d selected", ErrNotRewrite, an, tn)
	}
	if err := checkBreaks(text, instruction, s, "selected"); err != nil {
		return "", err
	}
	if translation.MatchString(instruction) {
		return s, checkScripts(text, s, false)
	}
	if err := checkScripts(text, s, true); err != nil {
		return "", err
	}
	if ts, as := script(text), script(s); ts != as && ts != "" && as != "" {
		return "", fmt.Errorf("%w: it was in another script (%s, selected %s)", ErrNotRewrite, as, ts)
	}
	if tw := words(text); len(tw) >= 3 && shared(tw, words(s)) < 0.3 {
		return "", fmt.Errorf("%w: it kept few of the selected words (a reply, or another text)", ErrNotRewrite)
	}
	return s, nil
}

// checkInsert is the check of an answer to an instruction alone: there is
// no text to compare it with, so only the wrapping, a refusal, a runaway
// length, line breaks the instruction did not ask for and a word mixing
// scripts are caught.
func checkInsert(instruction, answer string) (string, error) {
	s, err := unwrap("", answer)
	if err != nil {
		return "", err
	}
	if utf8.RuneCountInString(s) > 4000 {
		return "", fmt.Errorf("%w: it was %d characters long", ErrNotRewrite, utf8.RuneCountInString(s))
	}
	if err := checkBreaks(instruction, instruction, s, "asked for"); err != nil {
		return "", err
	}
	if err := checkScripts("", s, false); err != nil {
		return "", err
	}
	return s, nil
}
