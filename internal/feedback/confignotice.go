package feedback

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// ConfigNotice is what the tray says about the config file while it has
// problems: a rejected file (the last good settings stay in use) or keys
// the app does not know (their lines do nothing, so a typo changes nothing).
// It stays until the file is fixed: every ready line shows it again.
type ConfigNotice struct {
	// State is StateError for a rejected file, StateWarning for unknown keys.
	State tray.State
	// lines are the problems, one a line, each naming the file's line and
	// the key, with the suggestion or the fix.
	lines []string
}

// ConfigProblems phrases the problems of the config's last load: err
// rejected the file, warns are the keys it does not know.
func ConfigProblems(err error, warns []config.Warning) ConfigNotice {
	var n ConfigNotice
	if err != nil {
		n.State = tray.StateError
		errs := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok { // errors.Join: one per problem
			errs = j.Unwrap()
		}
		for _, e := range errs {
			text := e.Error()
			var ce *config.Error
			if errors.As(e, &ce) && ce.File != "" {
				text = strings.Replace(text, ce.File, filepath.Base(ce.File), 1)
			}
			n.lines = append(n.lines, text)
		}
	}
	for _, w := range warns {
		if !w.Unknown {
			continue // a key under its old name still works
		}
		if n.State == "" {
			n.State = tray.StateWarning
		}
		w.File = filepath.Base(w.File)
		n.lines = append(n.lines, w.String())
	}
	return n
}

func (n ConfigNotice) Active() bool { return len(n.lines) > 0 }

// Headline starts the status line while the file has problems.
func (n ConfigNotice) Headline() string {
	h := n.lines[0]
	if len(n.lines) > 1 {
		h += fmt.Sprintf(" (%d more in the menu)", len(n.lines)-1)
	}
	if n.State == tray.StateError {
		return "Config not applied, the last good settings stay: " + h
	}
	return h
}

// Items are the tray's config lines: as many as the menu has room for, the
// last saying how many more the file has.
func (n ConfigNotice) Items() []tray.Item {
	var items []tray.Item
	for i, l := range n.lines {
		if i == tray.MaxConfigLines-1 && len(n.lines) > tray.MaxConfigLines {
			items = append(items, tray.Item{Label: fmt.Sprintf("…and %d more: open the config file", len(n.lines)-i)})
			break
		}
		items = append(items, tray.Item{Label: l})
	}
	return items
}

// NoteConfig takes the problems of the config's last load, err and warns,
// for the tray, and tells them in a notification once: not again while the
// file (at path) stays the same, again at once when it was fixed and breaks
// anew or is rejected now. A file that goes from one problem to another of
// its kind (an editor saving as the key is typed) is told at the notifier's
// usual pace.
func (f *Feedback) NoteConfig(err error, warns []config.Warning, path string) {
	n := ConfigProblems(err, warns)
	if !n.Active() {
		if f.cfg.Active() {
			f.log.Info("config file fixed", "file", path)
		}
		f.cfg, f.cfgTold = n, ""
		return
	}
	was := f.cfg
	f.cfg = n
	if told := strings.Join(n.lines, "\n"); told != f.cfgTold {
		m := notify.ConfigProblem(strings.Join(n.lines, "; "), n.State == tray.StateError)
		m.Unthrottled = !was.Active() || (n.State == tray.StateError && was.State != tray.StateError)
		f.cfgTold = told
		f.Tell(m)
	}
}

// ConfigNotice is the config file's problems now, shown until it is fixed.
func (f *Feedback) ConfigNotice() ConfigNotice { return f.cfg }

// HotkeyProblem tells why a hotkey cannot be used as a notification once per
// distinct problem: re-registering after a resume or a layout change meets
// the same conflict again, and the user was told.
func (f *Feedback) HotkeyProblem(err error) {
	if f.hotkeyTold == nil {
		f.hotkeyTold = map[string]bool{}
	}
	if !f.hotkeyTold[err.Error()] {
		f.hotkeyTold[err.Error()] = true
		f.Tell(notify.HotkeyProblem(err.Error()))
	}
}

// Lines are the problems, one a line.
func (n ConfigNotice) Lines() []string { return n.lines }
