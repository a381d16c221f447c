package config

import (
	"fmt"
	"slices"
	"strings"
)

// KeyLanguages lists the user's languages: detection picks the likeliest of them.
const KeyLanguages = "languages"

func languagesFields() []field {
	return []field{{key: KeyLanguages, ptr: func(c *Config) any { return &c.Decode.Languages }, check: checkLanguages,
		allowed: "a list of Whisper language codes such as [en, de] (all codes: " + languageDocAnchor + "), or [] to detect any language",
		hint:    "such a list"}}
}

// checkLanguages accepts a list of distinct Whisper language codes.
func checkLanguages(v any, _ Options) error {
	codes := strings.Fields(whisperLanguages)
	var seen []string
	for _, s := range v.(List).Items() {
		switch {
		case s == "auto":
			return fmt.Errorf("auto is not a language; leave languages empty ([]) to detect any language")
		case !slices.Contains(codes, s):
			return fmt.Errorf("%q is not a Whisper language code", s)
		case slices.Contains(seen, s):
			return fmt.Errorf("%q is listed twice", s)
		}
		seen = append(seen, s)
	}
	return nil
}

// ValidateLanguages checks a list as the languages key does, for the
// command line's --languages.
func ValidateLanguages(l List) error { return checkLanguages(l, Options{}) }
