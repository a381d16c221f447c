package feedback

import (
	"fmt"
	"slices"
	"strings"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/tray"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// CommandItems list what can be done with the last dictation and the
// selection, with the spoken forms and hotkeys of cfg, so the menu shows
// the words to say and the keys to press.
func CommandItems(cfg config.Config) []tray.Item {
	key := func(k string) string {
		if k == "" || k == config.HotkeyOff {
			return ""
		}
		return k
	}
	undo := "Undo the last dictation: " + phrasesOrKey("say", cfg.Commands.Undo.Items(), "press", key(cfg.Hotkeys.Undo),
		config.KeyUndoPhrases+", "+config.KeyUndo)
	again := "Paste it again: the menu item"
	if k := key(cfg.Hotkeys.PasteAgain); k != "" {
		again += ", or press " + k
	}
	edit := "Rewrite the selection: "
	switch k := key(cfg.Hotkeys.Edit); {
	case k == "":
		edit += "off (" + config.KeyEditHotkey + ")"
	case cfg.Cleanup.URL == "":
		edit += "hold " + k + " (needs " + config.KeyCleanupURL + ")"
	default:
		edit += "hold " + k + " and say what to do"
	}
	items := append([]tray.Item{{ID: "undo", Label: undo}, {ID: "paste-again", Label: again}, {ID: "edit", Label: edit},
		{ID: "record", Label: recordItem(cfg.Hotkeys.Record, cfg.Hotkeys.Mode)}},
		handsFreeItems(cfg, key(cfg.Hotkeys.AutoSend))...)
	return append(items, languageCommands(cfg)...)
}

// handsFreeItems are the spoken send and the stop after silence as set now.
func handsFreeItems(cfg config.Config, autoSend string) []tray.Item {
	send := "Press Enter after the text: " + phrasesOrKey("end with", cfg.Commands.Send.Items(), "dictate with", autoSend,
		config.KeySendPhrases+", "+config.KeyAutoSend)
	stop := "Stop by silence: "
	switch d := cfg.Hotkeys.StopAfterSilence; {
	case cfg.Hotkeys.HandsFree() > 0 && cfg.Hotkeys.Mode == choice.Auto:
		stop += "after " + d.String() + " of silence, once a tap started it"
	case cfg.Hotkeys.HandsFree() > 0:
		stop += "after " + d.String() + " of silence"
	case d > 0:
		stop += "toggle or auto mode only (" + config.KeyMode + ")"
	default:
		stop += "off (" + config.KeyStopAfterSilence + ")"
	}
	return []tray.Item{{ID: "send", Label: send}, {ID: "stop-after-silence", Label: stop}}
}

// phrasesOrKey says how a command is given: by saying one of phrases (after
// spoken), by key (after pressed), either, or that it is off, with the
// settings that would turn it on.
func phrasesOrKey(spoken string, phrases []string, pressed, key, settings string) string {
	var ways []string
	if len(phrases) > 0 {
		said := make([]string, len(phrases))
		for i, p := range phrases {
			said[i] = "“" + p + "”"
		}
		ways = append(ways, spoken+" "+strings.Join(said, " or "))
	}
	if key != "" {
		ways = append(ways, pressed+" "+key)
	}
	if len(ways) == 0 {
		return "off (" + settings + ")"
	}
	return strings.Join(ways, ", or ")
}

// LanguageItems are the Language menu: detection, the configured language
// and those of the recent dictations first, as far as the menu has room,
// then the rest of the model's languages, by name, in More languages.
func LanguageItems(configured string, languages, recent []string) (top, more []tray.Item) {
	if len(languages) == 0 {
		return []tray.Item{{ID: "auto", Label: "Detect automatically", Checked: configured == "auto" || configured == ""}}, nil
	}
	item := func(code string) tray.Item {
		return tray.Item{ID: code, Label: fmt.Sprintf("%s (%s)", whisper.LanguageTitle(code), code), Checked: code == configured}
	}
	top = []tray.Item{{ID: "auto", Label: "Detect automatically", Checked: configured == "auto" || configured == ""}}
	known := map[string]bool{}
	for _, code := range languages {
		known[code] = true
	}
	shown := map[string]bool{}
	for _, code := range append([]string{configured}, recent...) {
		if known[code] && !shown[code] && len(top) < tray.MaxLanguages {
			shown[code] = true
			top = append(top, item(code))
		}
	}
	for _, code := range languages {
		if !shown[code] {
			more = append(more, item(code))
		}
	}
	slices.SortStableFunc(more, func(a, b tray.Item) int { return strings.Compare(a.Label, b.Label) })
	return top, more
}

// recordItem says how the record hotkey works in mode (hotkeys.mode).
func recordItem(key string, mode choice.HotkeyMode) string {
	switch mode {
	case choice.Toggle:
		return "Dictate: press " + key + " to start, again to stop"
	case choice.Auto:
		return "Dictate: hold " + key + ", or tap it to start and again to stop (a double tap locks it on)"
	}
	return "Dictate: hold " + key + " while you speak"
}
