package whisper

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// languageNames maps Whisper's language codes to the English names OpenAI's
// verbose_json answers use ("en" → "english").
var languageNames = map[string]string{
	"en": "english", "zh": "chinese", "de": "german", "es": "spanish", "ru": "russian", "ko": "korean",
	"fr": "french", "ja": "japanese", "pt": "portuguese", "tr": "turkish", "pl": "polish", "ca": "catalan",
	"nl": "dutch", "ar": "arabic", "sv": "swedish", "it": "italian", "id": "indonesian", "hi": "hindi",
	"fi": "finnish", "vi": "vietnamese", "he": "hebrew", "uk": "ukrainian", "el": "greek", "ms": "malay",
	"cs": "czech", "ro": "romanian", "da": "danish", "hu": "hungarian", "ta": "tamil", "no": "norwegian",
	"th": "thai", "ur": "urdu", "hr": "croatian", "bg": "bulgarian", "lt": "lithuanian", "la": "latin",
	"mi": "maori", "ml": "malayalam", "cy": "welsh", "sk": "slovak", "te": "telugu", "fa": "persian",
	"lv": "latvian", "bn": "bengali", "sr": "serbian", "az": "azerbaijani", "sl": "slovenian", "kn": "kannada",
	"et": "estonian", "mk": "macedonian", "br": "breton", "eu": "basque", "is": "icelandic", "hy": "armenian",
	"ne": "nepali", "mn": "mongolian", "bs": "bosnian", "kk": "kazakh", "sq": "albanian", "sw": "swahili",
	"gl": "galician", "mr": "marathi", "pa": "punjabi", "si": "sinhala", "km": "khmer", "sn": "shona",
	"yo": "yoruba", "so": "somali", "af": "afrikaans", "oc": "occitan", "ka": "georgian", "be": "belarusian",
	"tg": "tajik", "sd": "sindhi", "gu": "gujarati", "am": "amharic", "yi": "yiddish", "lo": "lao",
	"uz": "uzbek", "fo": "faroese", "ht": "haitian creole", "ps": "pashto", "tk": "turkmen", "nn": "nynorsk",
	"mt": "maltese", "sa": "sanskrit", "lb": "luxembourgish", "my": "myanmar", "bo": "tibetan", "tl": "tagalog",
	"mg": "malagasy", "as": "assamese", "tt": "tatar", "haw": "hawaiian", "ln": "lingala", "ha": "hausa",
	"ba": "bashkir", "jw": "javanese", "su": "sundanese", "yue": "cantonese",
}

// LanguageCode accepts a code ("en") or an English name ("english", as
// OpenAI's API writes languages), in any case, and returns the code; ok is
// false for anything else.
func LanguageCode(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if _, ok := languageNames[s]; ok {
		return s, true
	}
	for code, name := range languageNames {
		if name == s {
			return code, true
		}
	}
	return "", false
}

// LanguageTitle is the English name of a language code as a menu shows it,
// each word capitalised ("de" → "German", "ht" → "Haitian Creole"); an
// unknown code is returned as it is.
func LanguageTitle(code string) string {
	n, ok := languageNames[code]
	if !ok {
		return code
	}
	words := strings.Fields(n)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:] // the names are ASCII
	}
	return strings.Join(words, " ")
}

// LanguageName is the English name of a language code, as OpenAI's
// verbose_json answers write it ("en" → "english"); an unknown code is
// returned as it is.
func LanguageName(code string) string {
	if n, ok := languageNames[code]; ok {
		return n
	}
	return code
}

// ErrUnknownLanguage means a language was asked for that the model cannot
// decode in: the asker's mistake (a server answers 400), not the engine's.
var ErrUnknownLanguage = errors.New("the model does not know this language")

// ErrNoTranslate means the translate task was asked of an English-only
// model, which has no token for it.
var ErrNoTranslate = errors.New("this English-only model cannot translate; use a multilingual model such as base or small")

// LanguageError is ErrUnknownLanguage with what was asked and what the
// model knows, written as a message that says how to fix the request.
type LanguageError struct {
	Asked string   // as given, clipped by the caller when it came from a client
	Model string   // the model's name; "" says "this model"
	Known []string // the model's language codes
}

func (e *LanguageError) Unwrap() error { return ErrUnknownLanguage }

func (e *LanguageError) Error() string {
	model := "this model"
	if e.Model != "" {
		model = "the model " + e.Model
	}
	code, whisperLang := LanguageCode(e.Asked)
	if len(e.Known) == 1 && e.Known[0] == "en" {
		return fmt.Sprintf("language %q: %s knows only English (en); send en or leave the language out, or use a multilingual model (such as base or small) for other languages", e.Asked, model)
	}
	if whisperLang {
		// A code of another Whisper release.
		since := ""
		if code == "yue" {
			since = "; yue came with large-v3 models"
		}
		return fmt.Sprintf("language %q (%s): %s does not know it (it knows %d languages%s); leave the language out to detect it, or use a model that knows it",
			e.Asked, LanguageName(code), model, len(e.Known), since)
	}
	near := ""
	if c := closeLanguages(strings.ToLower(strings.TrimSpace(e.Asked)), e.Known); len(c) > 0 {
		near = " (close: " + strings.Join(c, ", ") + ")"
	}
	return fmt.Sprintf("language %q is not one of Whisper's language codes%s; send an ISO-639-1 code such as en, de or fr, or an English name such as german, or leave it out to detect it (WhisperKey's docs/configuration.md#language lists the %d that %s knows)",
		e.Asked, near, len(e.Known), model)
}

// ResolveLanguage decides the language to decode in: the code of asked (a
// code or an English name, in any case), "" when asked is "" or "auto"
// (detect it), or a *LanguageError when known, the model's codes
// (Transcriber.Languages), lacks it. A nil known stands for every Whisper
// language, for a caller that does not know the model. model names the
// model in the error. The server, the CLI and the transcriber all ask here,
// so each says the same.
func ResolveLanguage(asked, model string, known []string) (string, error) {
	if s := strings.TrimSpace(asked); s == "" || strings.EqualFold(s, "auto") {
		return "", nil
	}
	if known == nil {
		known = allLanguages()
	}
	code, ok := LanguageCode(asked)
	if !ok || !slices.Contains(known, code) {
		return "", &LanguageError{Asked: asked, Model: model, Known: slices.Clone(known)}
	}
	return code, nil
}

func allLanguages() []string {
	codes := make([]string, 0, len(languageNames))
	for c := range languageNames {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// closeLanguages are up to five of known that a mistyped s may have meant:
// a code one letter off, or a name that starts as s does.
func closeLanguages(s string, known []string) []string {
	var out []string
	for _, c := range slices.Sorted(slices.Values(known)) {
		name := LanguageName(c)
		if oneOff(s, c) || (len(s) >= 3 && strings.HasPrefix(name, s[:3])) {
			out = append(out, c+" ("+name+")")
		}
		if len(out) == 5 {
			break
		}
	}
	return out
}

// oneOff reports whether a and b differ in exactly one letter, both being
// as long.
func oneOff(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	diff := 0
	for i := range len(a) {
		if a[i] != b[i] {
			diff++
		}
	}
	return diff == 1
}
