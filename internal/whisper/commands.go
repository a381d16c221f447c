package whisper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/whisperkey/whisperkey/internal/wire"
)

// A spoken command ("scratch that") is checked by the model itself: the
// free decode of a short utterance and each command phrase are scored as
// forced text on the same encoded window, and a phrase whose
// log-probability comes within CommandMargin of the free decode's is what
// was said, however the free decode spelled it ("Stretch that.", "Scratch
// dat"). The phrase is scored written as Whisper writes a short utterance,
// capitalised and ended as the free decode ends ("?", "!", else a full
// stop): the mark after the phrase is unlikely when the audio goes on,
// which is what keeps "undo that change" from being taken for "undo that"
// (the engine's alignment scores text tokens only, not the end of the text).

// CommandMargin is how many nats of log-probability a command phrase may
// fall short of the free decode and still be taken. Measured on real speech
// (scripts/bench_commands.py, docs/benchmarks.md#spoken-commands-checked-by-the-model):
// a wrong undo costs the user their last dictation, a missed one a second
// try, so the margin sits well below the closest ordinary dictation.
const CommandMargin = 2.0

const (
	// commandMaxFrames bounds the utterances checked: a command is said on
	// its own in a second or two; longer speech is dictation.
	commandMaxFrames = 4 * SampleRate / HopLength
	// commandMaxWords bounds the free decode's words, for the same reason
	// (config.MaxCommandWords is the longest phrase; one more word allows
	// for a split or a filler).
	commandMaxWords = 6
	// commandMaxApart is how far, in edits per letter, a phrase may be from
	// the free decode's letters and still be scored. On the big real-speech
	// set it passes 235 of the 247 checks within the margin (the others are
	// digits against number words: "10", "ten") and spares 85 % of the
	// rest; espeak-ng's misheard "scratch that"s are 0.27–0.55 apart.
	commandMaxApart = 0.6
)

// CommandCheck is how a short utterance scored against Options.Commands.
type CommandCheck struct {
	// Scores holds each phrase's gap: the free decode's log-probability
	// minus the phrase's, in nats (smaller is closer; ≤ 0: the phrase is at
	// least as likely as what the decoder wrote). A phrase shorter than the
	// utterance by more than a word is not scored.
	Scores []PhraseScore `json:"scores"`
	// Taken is the phrase taken for what was said, "" for none: the closest
	// one within CommandMargin.
	Taken string `json:"taken,omitempty"`
}

// PhraseScore is one command phrase's gap to the free decode.
type PhraseScore struct {
	Phrase string  `json:"phrase"`
	Gap    float64 `json:"gap"`
}

// commandWindow is the window a result's text was decoded on, kept for the
// command check: its encoder output is in the worker's cache.
type commandWindow struct {
	win    wire.Window
	sot    []int
	frames int // of the window's frames, those holding audio
}

// checkCommands sets res.Command when opt asks for a check, res is a short
// utterance decoded on one window (at), and the engine can score forced
// text. A check that fails leaves the text as it is: it is logged, and the
// dictation goes on as typed text. Only the context's end is an error.
func (t *Transcriber) checkCommands(ctx context.Context, at *commandWindow, res *Result, opt Options) error {
	if len(opt.Commands) == 0 || at == nil || at.frames > commandMaxFrames || res.Text == "" ||
		len(strings.Fields(res.Text)) > commandMaxWords {
		return nil
	}
	if t.aligner == nil {
		// This model cannot score forced text (no alignment heads, or an
		// engine without alignment): the command's words alone decide.
		return nil
	}
	start := time.Now()
	c, err := t.scoreCommands(ctx, at, res, opt.Commands)
	res.Timings.Commands = time.Since(start)
	res.Timings.Total += res.Timings.Commands
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t.log.Warn("spoken command check failed; the words are taken as text", "err", err)
		return nil
	}
	res.Command = c
	// The phrases are the config's, not what was said: they may be logged.
	t.log.Debug("spoken command check", "taken", c.Taken, "scores", c.Scores, "took", res.Timings.Commands)
	return nil
}

// scoreCommands scores res's text and each phrase on at's window.
func (t *Transcriber) scoreCommands(ctx context.Context, at *commandWindow, res *Result, phrases []string) (*CommandCheck, error) {
	eng, ectx, err := t.engineFor(ctx)
	if err != nil {
		return nil, err
	}
	al, ok := eng.(Aligner)
	if !ok {
		return nil, errors.New("the engine in use cannot score forced text")
	}
	said := len(strings.Fields(res.Text))
	var near []string
	for _, p := range phrases {
		// The alignment scores no end of text, so the words after a phrase
		// cost the phrase nothing ("Scratch that. I meant Tuesday."): a
		// phrase is checked only against an utterance of its length, give
		// or take a word ("Oh, scratch that."). And only when its letters
		// are near what was written ("Crash mat!", "Prachnet." for
		// "scratch that"): scoring costs a decoder pass over the window
		// each, which most dictations, nothing like any phrase, are spared.
		apart := lettersApart(res.Text, p)
		if apart == 0 {
			// The decode wrote the phrase itself: nothing to score.
			return &CommandCheck{Scores: []PhraseScore{{Phrase: p}}, Taken: p}, nil
		}
		if said <= len(strings.Fields(p))+1 && apart <= commandMaxApart {
			near = append(near, p)
		}
	}
	c := &CommandCheck{}
	if len(near) == 0 {
		return c, nil
	}
	var free []int
	for _, s := range res.Segments {
		for _, id := range s.Tokens {
			if id < t.tok.EOT() {
				free = append(free, id)
			}
		}
	}
	heard, err := t.forcedLogProb(ectx, al, at, free)
	if err != nil {
		return nil, fmt.Errorf("score the decode: %w", err)
	}
	best := math.Inf(1)
	for _, p := range near {
		ids, err := t.tok.Encode(" " + commandForm(p, res.Text))
		if err != nil {
			return nil, fmt.Errorf("command phrase %q: %w", p, err)
		}
		lp, err := t.forcedLogProb(ectx, al, at, ids)
		if err != nil {
			return nil, fmt.Errorf("score %q: %w", p, err)
		}
		gap := heard - lp
		c.Scores = append(c.Scores, PhraseScore{Phrase: p, Gap: gap})
		if gap <= CommandMargin && gap < best {
			best, c.Taken = gap, p
		}
	}
	return c, nil
}

// forcedLogProb is the log-probability of text tokens ids forced after at's
// start sequence.
func (t *Transcriber) forcedLogProb(ctx context.Context, al Aligner, at *commandWindow, ids []int) (float64, error) {
	if len(ids) == 0 {
		return 0, errors.New("no text to score")
	}
	r, err := al.Align(ctx, at.win, wire.AlignRequest{StartSequence: at.sot, TextTokens: ids, NumFrames: at.frames, MedianFilterWidth: medianFilterWidth})
	if err != nil {
		return 0, err
	}
	if len(r.TextTokenProbs) < len(ids) {
		return 0, fmt.Errorf("engine scored %d of %d tokens", len(r.TextTokenProbs), len(ids))
	}
	var sum float64
	for _, p := range r.TextTokenProbs[:len(ids)] {
		sum += math.Log(max(float64(p), 1e-30))
	}
	return sum, nil
}

// commandForm is phrase as Whisper writes a short utterance said on its
// own: capitalised, ended with heard's closing mark when it is "?" or "!",
// with a full stop otherwise (never with none: see above).
func commandForm(phrase, heard string) string {
	p := strings.TrimRight(strings.TrimSpace(phrase), ".!?")
	r, n := utf8.DecodeRuneInString(p)
	if n == 0 {
		return p
	}
	end := "."
	if h := strings.TrimSpace(heard); strings.HasSuffix(h, "?") || strings.HasSuffix(h, "!") {
		end = h[len(h)-1:]
	}
	return string(unicode.ToUpper(r)) + p[n:] + end
}

// lettersApart is the edit distance between a's and b's letters and digits,
// lower-cased, per letter of the longer.
func lettersApart(a, b string) float64 {
	keep := func(s string) []rune {
		var out []rune
		for _, r := range strings.ToLower(s) {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				out = append(out, r)
			}
		}
		return out
	}
	x, y := keep(a), keep(b)
	if n := max(len(x), len(y)); n > 0 {
		return float64(editDistance(x, y)) / float64(n)
	}
	return 0
}
