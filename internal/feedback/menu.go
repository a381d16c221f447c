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
	var said []string
	for _, p := range cfg.Commands.Undo.Items() {
		said = append(said, "“"+p+"”")
	}
	undo := "Undo the last dictation: "
	switch u := key(cfg.Hotkeys.Undo); {
	case len(said) > 0 && u != "":
		undo += "say " + strings.Join(said, " or ") + ", or press " + u
	case len(said) > 0:
		undo += "say " + strings.Join(said, " or ")
	case u != "":
		undo += "press " + u
	default:
		undo += "off (" + config.KeyUndoPhrases + ", " + config.KeyUndo + ")"
	}
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
	return []tray.Item{{ID: "undo", Label: undo}, {ID: "paste-again", Label: again}, {ID: "edit", Label: edit},
		{ID: "record", Label: recordItem(cfg.Hotkeys.Record, cfg.Hotkeys.Mode)}}
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
