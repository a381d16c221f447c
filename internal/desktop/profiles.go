package desktop

import (
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// IDs of the Profiles submenu's fixed items; a profile's item is its name
// after profileItemPrefix.
const (
	profileItemPrefix = "profile:"
	profileItemNone   = "none"
	profileItemEdit   = "edit"
	profileItemAI     = "cleanup"
)

// profileItems is the Profiles submenu: each profile (the last matched one
// checked), "Edit profiles…" and the AI cleanup toggle.
func (d *desk) profileItems() []tray.Item {
	cfg := d.store.Current()
	last := ""
	if d.profiles != nil {
		last = d.profiles.Last()
	}
	items := []tray.Item{{ID: profileItemNone, Label: "No profile (the defaults)", Checked: last == ""}}
	for _, name := range cfg.Profiles.Names() {
		items = append(items, tray.Item{ID: profileItemPrefix + name, Label: name, Checked: name == last})
	}
	items = append(items, tray.Item{ID: profileItemEdit, Label: "Edit profiles…"})
	ai := tray.Item{ID: profileItemAI, Label: "AI cleanup", Checked: cfg.Cleanup.Enabled}
	if cfg.Cleanup.URL == "" {
		ai.Label, ai.Checked = "AI cleanup (set cleanup.url first)", false
	}
	return append(items, ai)
}

// onProfileAction handles a click in the Profiles submenu: the AI cleanup
// toggle flips cleanup.enabled; anything else opens the config file, where
// the profiles are.
func (d *desk) onProfileAction(id string) {
	if id != profileItemAI {
		d.open(d.opt.ConfigPath)
		return
	}
	cfg := d.store.Current()
	if cfg.Cleanup.URL == "" {
		d.open(d.opt.ConfigPath)
		return
	}
	if err := d.store.Set(config.KeyCleanupEnabled, !cfg.Cleanup.Enabled); err != nil {
		d.status(tray.StateError, err.Error())
	}
}
