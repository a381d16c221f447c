package desktop

import (
	"cmp"
	"log/slog"
	"sync"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// pasteOptions are the output options for a dictation in profile name.
func pasteOptions(cfg config.Config, name string, enter bool) output.Options {
	o := output.Options{PressEnter: enter}
	p, ok := cfg.Profiles.Find(name)
	if name == "" || !ok {
		return o
	}
	if p.Paste != nil {
		o.Mode = *p.Paste
	}
	if p.AutoSend != nil {
		switch mode := cmp.Or(o.Mode, cfg.Paste); {
		case *p.AutoSend:
			o.PressEnter = true
		case mode == choice.PasteEnter:
			o.Mode = choice.Paste // the profile turns the mode's Enter off; the hotkey's stays
		}
	}
	return o
}

// profileTracker picks each dictation's profile from the window focused at
// key-down (app.Chooser) and remembers the last one for the tray.
type profileTracker struct {
	focused func() (output.Window, error)
	current func() config.Config
	log     *slog.Logger

	mu   sync.Mutex
	last string // the profile chosen last; "" for the defaults
}

// Choose is app.Chooser.
func (t *profileTracker) Choose() string {
	w, err := t.focused()
	if err != nil {
		t.log.Debug("no profile: the focused window is unknown", "err", err)
		return t.remember("")
	}
	p, ok := t.current().Profiles.For(config.Window{Class: w.Class, Instance: w.Instance, Title: w.Title, Exe: w.Exe})
	if !ok {
		t.log.Debug("no profile matches the focused window", "class", w.Class, "exe", w.Exe)
		return t.remember("")
	}
	// The window title is left out: it can hold what the user is writing.
	t.log.Debug("profile chosen", "profile", p.Name, "class", w.Class, "exe", w.Exe)
	return t.remember(p.Name)
}

func (t *profileTracker) remember(name string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last = name
	return name
}

// Last is the profile chosen for the latest dictation.
func (t *profileTracker) Last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

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
