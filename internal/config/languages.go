package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Keys of the user's languages and of the hotkeys that go with them.
const (
	// KeyLanguages lists the user's languages: detection picks the likeliest of them.
	KeyLanguages = "languages"
	// KeyTranslateHotkey is held like hotkeys.record; the words come out in English.
	KeyTranslateHotkey = "hotkeys.translate"
	// KeyLanguageHotkey sets language to the next of auto and languages.
	KeyLanguageHotkey = "hotkeys.language"
)

func languagesFields() []field {
	const combo = "modifiers ctrl, shift, alt, win and at most one key, joined with +, such as ctrl+win+t, or none to turn it off"
	return []field{
		{key: KeyLanguages, ptr: func(c *Config) any { return &c.Decode.Languages }, check: checkLanguages,
			allowed: "a list of Whisper language codes such as [en, de] (all codes: " + languageDocAnchor + "), or [] to detect any language",
			hint:    "such a list"},
		{key: KeyTranslateHotkey, ptr: func(c *Config) any { return &c.Hotkeys.Translate }, check: checkHotkey(true),
			allowed: combo, hint: "a key combination or none"},
		{key: KeyLanguageHotkey, ptr: func(c *Config) any { return &c.Hotkeys.Language }, check: checkHotkey(true),
			allowed: combo, hint: "a key combination or none"},
	}
}

// NextLanguage is the language hotkeys.language sets after cur: auto, then
// each of languages in turn, then auto again; a language not in the list
// is followed by auto.
func NextLanguage(cur string, languages List) string {
	ring := append([]string{"auto"}, languages.Items()...)
	i := slices.Index(ring, cur) // -1 (a language not listed) goes to auto
	return ring[(i+1)%len(ring)]
}

// checkTranslate refuses hotkeys.translate with a model that cannot
// translate, when the config names one (o.CannotTranslate says why);
// with model auto the app says so at the key press.
func checkTranslate(path string, c Config, locs map[string]loc, o Options) []error {
	if c.Hotkeys.Translate == HotkeyOff || o.CannotTranslate == nil || c.Engine.Model == "auto" {
		return nil
	}
	why := o.CannotTranslate(c.Engine.Model)
	if why == "" {
		return nil
	}
	f, _ := lookupField(KeyTranslateHotkey)
	e := valueError(path, f, locs, c.Hotkeys.Translate, errors.New(why))
	e.Fix = fmt.Sprintf("set %s to a model that translates, or %s to none", KeyModel, KeyTranslateHotkey)
	return []error{e}
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
