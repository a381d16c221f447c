package whisper

import "strings"

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
