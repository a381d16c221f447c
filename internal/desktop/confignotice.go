package desktop

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// configNotice is what the tray says about the config file while it has
// problems: a rejected file (the last good settings stay in use) or keys
// the app does not know (their lines do nothing, so a typo changes nothing).
// It stays until the file is fixed: every ready line shows it again.
type configNotice struct {
	// state is StateError for a rejected file, StateWarning for unknown keys.
	state tray.State
	// lines are the problems, one a line, each naming the file's line and
	// the key, with the suggestion or the fix.
	lines []string
}

// configProblems phrases the problems of the config's last load: err
// rejected the file, warns are the keys it does not know.
func configProblems(err error, warns []config.Warning) configNotice {
	var n configNotice
	if err != nil {
		n.state = tray.StateError
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
		if n.state == "" {
			n.state = tray.StateWarning
		}
		w.File = filepath.Base(w.File)
		n.lines = append(n.lines, w.String())
	}
	return n
}

func (n configNotice) active() bool { return len(n.lines) > 0 }

// headline starts the status line while the file has problems.
func (n configNotice) headline() string {
	h := n.lines[0]
	if len(n.lines) > 1 {
		h += fmt.Sprintf(" (%d more in the menu)", len(n.lines)-1)
	}
	if n.state == tray.StateError {
		return "Config not applied, the last good settings stay: " + h
	}
	return h
}

// items are the tray's config lines: as many as the menu has room for, the
// last saying how many more the file has.
func (n configNotice) items() []tray.Item {
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

// noteConfig takes the problems of the config's last load, err and warns,
// for the tray, and tells them in a notification once: not again while the
// file stays the same, again at once when it was fixed and breaks anew or
// is rejected now. A file that goes from one problem to another of its kind
// (an editor saving as the key is typed) is told at the notifier's usual
// pace. Called from the run loop.
func (d *desk) noteConfig(err error, warns []config.Warning) {
	n := configProblems(err, warns)
	if !n.active() {
		if d.cfgNotice.active() {
			d.log.Info("config file fixed", "file", d.store.Path())
		}
		d.cfgNotice, d.cfgTold = n, ""
		return
	}
	was := d.cfgNotice
	d.cfgNotice = n
	if told := strings.Join(n.lines, "\n"); told != d.cfgTold {
		m := notify.ConfigProblem(strings.Join(n.lines, "; "), n.state == tray.StateError)
		m.Unthrottled = !was.active() || (n.state == tray.StateError && was.state != tray.StateError)
		d.cfgTold = told
		d.fb.Tell(m)
	}
}
