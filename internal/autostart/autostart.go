package autostart

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Name is the entry's name: the Run key's value name (as the installer writes it) and
// the application name in the desktop entry.
const Name = "WhisperKey"

// ErrUnsupported means this system has no start-at-login mechanism we know.
var ErrUnsupported = errors.New("start at login is not supported here")

// Autostart is the start-at-login entry for one executable.
type Autostart struct {
	exe string
	os  osEntry
}

// New returns the entry that starts exe (an absolute path: the login session has no
// working directory of ours) at login.
func New(exe string) (*Autostart, error) {
	if !filepath.IsAbs(exe) {
		return nil, fmt.Errorf("start at login: %q is not an absolute path to the program", exe)
	}
	e, err := newOSEntry()
	if err != nil {
		return nil, err
	}
	return &Autostart{exe: exe, os: e}, nil
}

// Enabled reports whether the program starts at login now (the user may have changed
// it in the system settings since we last did).
func (a *Autostart) Enabled() (bool, error) { return a.os.enabled() }

// Set turns starting at login on or off. Turning it on again rewrites the entry, so
// it follows the program when it moved.
func (a *Autostart) Set(on bool) error {
	if on {
		return a.os.enable(a.exe)
	}
	return a.os.disable()
}

// Where says where the entry lives, for messages: a file path or a registry key.
func (a *Autostart) Where() string { return a.os.where() }
