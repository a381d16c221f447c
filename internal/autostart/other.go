//go:build darwin

package autostart

import "fmt"

// osEntry on macOS: not supported yet (it wants a LaunchAgent plist or SMAppService).
type osEntry struct{}

func newOSEntry() (osEntry, error)     { return osEntry{}, fmt.Errorf("%w on macOS yet", ErrUnsupported) }
func (osEntry) where() string          { return "" }
func (osEntry) enabled() (bool, error) { return false, ErrUnsupported }
func (osEntry) enable(string) error    { return ErrUnsupported }
func (osEntry) disable() error         { return ErrUnsupported }
