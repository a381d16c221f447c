package autostart

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// RunKey is the per-user key Windows starts programs from at sign-in; the installer's
// "Start WhisperKey when I sign in" checkbox writes the same value.
const RunKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// osEntry on Windows: the value Name under HKCU\RunKey, holding the quoted program path.
type osEntry struct{}

func newOSEntry() (osEntry, error) { return osEntry{}, nil }

func (osEntry) where() string { return `HKCU\` + RunKey + `\` + Name }

func (osEntry) enabled() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, RunKey, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("start at login: open HKCU\\%s: %w", RunKey, err)
	}
	defer k.Close()
	v, _, err := k.GetStringValue(Name)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("start at login: read %s: %w", Name, err)
	}
	return v != "", nil
}

func (osEntry) enable(exe string) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, RunKey, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("start at login: open HKCU\\%s: %w", RunKey, err)
	}
	defer k.Close()
	if err := k.SetStringValue(Name, `"`+exe+`"`); err != nil {
		return fmt.Errorf("start at login: write %s: %w", Name, err)
	}
	return nil
}

func (osEntry) disable() error {
	k, err := registry.OpenKey(registry.CURRENT_USER, RunKey, registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("start at login: open HKCU\\%s: %w", RunKey, err)
	}
	defer k.Close()
	if err := k.DeleteValue(Name); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("start at login: delete %s: %w", Name, err)
	}
	return nil
}
