package feedback

import (
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// NextLanguage is the language hotkeys.language sets in cfg: after auto,
// each of the user's languages in turn, then auto again.
func NextLanguage(cfg config.Config) string {
	return config.NextLanguage(cfg.Decode.Language, cfg.Decode.Languages)
}

// LanguageNote ends the tray's ready line with the language set, when one
// is (" · language de"), so the language hotkey's choice is seen.
func LanguageNote(cfg config.Config) string {
	if l := cfg.Decode.Language; l != "" && l != "auto" {
		return " · language " + l
	}
	return ""
}

// languageCommands are the Voice commands lines of the language keys.
func languageCommands(cfg config.Config) []tray.Item {
	key := func(k string) string {
		if k == "" || k == config.HotkeyOff {
			return ""
		}
		return k
	}
	lang := "Switch the language: off (" + config.KeyLanguageHotkey + ")"
	if k := key(cfg.Hotkeys.Language); k != "" {
		lang = "Switch the language: press " + k + " (auto"
		for _, c := range cfg.Decode.Languages.Items() {
			lang += ", " + c
		}
		lang += ")"
	}
	tr := "Dictate in English from any language: off (" + config.KeyTranslateHotkey + ")"
	if k := key(cfg.Hotkeys.Translate); k != "" {
		tr = "Dictate in English from any language: hold " + k
	}
	return []tray.Item{{ID: "language", Label: lang}, {ID: "translate", Label: tr}}
}

// recordingLabel is the indicator's text while recording: the profile and
// the language asked for, each when there is one.
func recordingLabel(profile, language string) string {
	switch {
	case profile != "" && language != "":
		return profile + " · " + language
	case language != "":
		return language
	}
	return profile
}

// UserLanguagesFirst is what the Language menu lists after the configured
// language (LanguageItems' recent): the user's languages (the languages
// key), then those of the recent dictations.
func UserLanguagesFirst(cfg config.Config, recent []string) []string {
	return append(cfg.Decode.Languages.Items(), recent...)
}
