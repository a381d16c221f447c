package config

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// Keys of the hands-free stop and of the spoken send.
const (
	KeyStopAfterSilence = "hotkeys.stop_after_silence"
	KeySendPhrases      = "commands.send"

	// MinStopAfterSilence and MaxStopAfterSilence bound
	// hotkeys.stop_after_silence when it is on: a shorter pause is one
	// between words, and a minute of silence is a recording forgotten.
	MinStopAfterSilence = 500 * time.Millisecond
	MaxStopAfterSilence = time.Minute

	handsfreeDocAnchor = "docs/configuration.md#hands-free-stop-and-spoken-send"
)

// DefaultSendPhrases are the English spoken forms that press Enter when said
// at the end of a dictation.
var DefaultSendPhrases = []string{"send it", "press enter"}

// HandsFree is how much silence after speech ends a recording that no key
// holds (hotkeys.stop_after_silence in toggle mode, and in auto mode after a
// tap); 0: none ends so.
func (h Hotkeys) HandsFree() time.Duration {
	if h.Mode == choice.Hold {
		return 0 // the key's release ends it
	}
	return h.StopAfterSilence
}

// Send is whether a dictation in the profile called profile ("" for none)
// ends with Enter: the profile's send when it says, otherwise always with
// the paste mode paste-enter (the profile's or the config's) and when said
// with any other.
func (c Config) Send(profile string) choice.SendMode {
	paste := c.Paste
	if p, ok := c.Profiles.Find(profile); ok && profile != "" {
		if p.Send != nil {
			return *p.Send
		}
		set(&paste, p.Paste)
	}
	if paste == choice.PasteEnter {
		return choice.SendAlways
	}
	return choice.SendWhenSaid
}

// SentBy finds a send phrase (commands.send) said at the very end of text,
// a transcript as heard, in a dictation for the profile called profile whose
// send mode looks for one (when_said, always). It counts only as a sentence
// of its own after at least one other: "See you at noon. Send it." is "See
// you at noon." and Enter; "I will send it." and "Send it." alone are text.
// Case and the punctuation after the phrase do not matter.
func (c Config) SentBy(profile, text string) (rest string, said bool) {
	if c.Send(profile) == choice.SendNever {
		return text, false
	}
	words := wordSpans(text)
	for _, p := range c.Commands.Send.Items() {
		phrase := strings.Fields(CommandKey(p))
		n := len(phrase)
		if n == 0 || len(words) <= n {
			continue // never the whole utterance
		}
		tail := words[len(words)-n:]
		match := true
		for i, w := range tail {
			if CommandKey(text[w[0]:w[1]]) != phrase[i] {
				match = false
				break
			}
		}
		before := text[words[len(words)-n-1][1]:tail[0][0]]
		if match && strings.ContainsAny(before, ".!?;:…\n。！？") {
			return strings.TrimRightFunc(text[:tail[0][0]], unicode.IsSpace), true
		}
	}
	return text, false
}

// wordSpans are the byte spans of text's words as CommandKey reads them.
func wordSpans(text string) [][2]int {
	var spans [][2]int
	start := -1
	for i, r := range text {
		in := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’'
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			spans = append(spans, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		spans = append(spans, [2]int{start, len(text)})
	}
	return spans
}

func handsfreeFields() []field {
	return []field{
		{key: KeyStopAfterSilence, ptr: func(c *Config) any { return &c.Hotkeys.StopAfterSilence },
			allowed: fmt.Sprintf("0 to turn it off, or a duration from %s to %s, such as 2s (toggle mode, and auto mode after a tap; see %s)",
				formatDuration(MinStopAfterSilence), formatDuration(MaxStopAfterSilence), handsfreeDocAnchor),
			hint: "0 or such a duration",
			check: func(v any, _ Options) error {
				if d := v.(time.Duration); d != 0 && (d < MinStopAfterSilence || d > MaxStopAfterSilence) {
					return errNotAllowed
				}
				return nil
			}},
		{key: KeySendPhrases, ptr: func(c *Config) any { return &c.Commands.Send },
			allowed: fmt.Sprintf("a list of phrases of 1 to %d words, such as [send it, press enter], or [] to turn the spoken send off (see %s)", MaxCommandWords, handsfreeDocAnchor),
			hint:    "such a list"},
	}
}

// toSendMode reads a profile's send (or its old auto_send: true is always,
// false never).
func toSendMode(k string, v any) (choice.SendMode, error) {
	if k == "auto_send" {
		b, ok := toBool(v)
		if !ok {
			return "", errors.New("use true or false (or send: never, when_said or always, its new name)")
		}
		if b {
			return choice.SendAlways, nil
		}
		return choice.SendNever, nil
	}
	s, ok := scalarString(v)
	if m := choice.SendMode(strings.ToLower(strings.TrimSpace(s))); ok && m.Valid() {
		return m, nil
	}
	return "", fmt.Errorf("use %s, %s or %s (see %s)", choice.SendNever, choice.SendWhenSaid, choice.SendAlways, handsfreeDocAnchor)
}
