package whisper

import (
	"slices"

	"github.com/whisperkey/whisperkey/internal/wire"
)

// PriorSeconds is the longest clip the prior of the last dictations' languages
// applies to (Options.Recent). Detection on a longer clip is reliable: on the
// real-speech sets no clip over it left English (docs/benchmarks.md#language-prior).
const PriorSeconds = 6

// unseenScriptMin is the detection probability a short clip's language
// needs to be taken in a script none of the recent languages is written
// in: below it, the best language of a script the user has used wins
// (docs/benchmarks.md#language-prior).
const unseenScriptMin = 0.9

// Script is the writing system a Whisper language's transcripts are in.
// Languages of one script can be misheard for each other at no cost a
// reader notices; a clip written in a script the user never uses cannot be read.
func Script(code string) string {
	if s, ok := scripts[code]; ok {
		return s
	}
	return "latin"
}

// scripts names the script of each non-Latin Whisper language.
var scripts = map[string]string{
	"ru": "cyrillic", "uk": "cyrillic", "bg": "cyrillic", "sr": "cyrillic", "mk": "cyrillic", "be": "cyrillic",
	"kk": "cyrillic", "mn": "cyrillic", "tg": "cyrillic", "tt": "cyrillic", "ba": "cyrillic",
	"ar": "arabic", "fa": "arabic", "ur": "arabic", "ps": "arabic", "sd": "arabic",
	"he": "hebrew", "yi": "hebrew",
	"hi": "devanagari", "mr": "devanagari", "ne": "devanagari", "sa": "devanagari",
	"bn": "bengali", "as": "bengali", "pa": "gurmukhi", "gu": "gujarati", "ta": "tamil", "te": "telugu",
	"kn": "kannada", "ml": "malayalam", "si": "sinhala", "th": "thai", "lo": "lao", "km": "khmer",
	"my": "myanmar", "bo": "tibetan", "ka": "georgian", "hy": "armenian", "el": "greek", "am": "ethiopic",
	"zh": "han", "yue": "han", "ja": "japanese", "ko": "hangul",
}

// Languages limits, and Recent guides, the choice among detected languages.
//
// chooseLanguage picks the language to decode in from probs (the model's one
// detection pass, likeliest first) for a clip of seconds:
//   - with allowed (Options.Languages), the likeliest of those; when the model
//     knows none of them, the likeliest of all;
//   - else, for a clip under PriorSeconds with recent languages, the likeliest
//     unless it is written in a script none of recent is and is below
//     unseenScriptMin: then the likeliest in a script of recent;
//   - else the likeliest, as Whisper does.
//
// why says which rule changed the pick ("" when none did), for the log.
func chooseLanguage(probs []wire.LangProb, allowed, recent []string, seconds float64) (best wire.LangProb, why string) {
	best = probs[0]
	if len(allowed) > 0 {
		if i := slices.IndexFunc(probs, func(p wire.LangProb) bool { return slices.Contains(allowed, p.Language) }); i > 0 {
			return probs[i], "languages"
		}
		return best, ""
	}
	if len(recent) == 0 || seconds >= PriorSeconds || best.Probability >= unseenScriptMin {
		return best, ""
	}
	used := func(code string) bool {
		return slices.ContainsFunc(recent, func(r string) bool { return Script(r) == Script(code) })
	}
	if used(best.Language) {
		return best, ""
	}
	if i := slices.IndexFunc(probs, func(p wire.LangProb) bool { return used(p.Language) }); i > 0 {
		return probs[i], "recent script"
	}
	return best, ""
}
