//go:build !linux

package evdev

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// Dir is where Linux keeps its event devices; other systems have none.
const Dir = "/dev/input"

// Grabber reads nothing: only Linux has event devices.
type Grabber struct{}

// Count finds nothing: only Linux has event devices.
func Count(string) (readable, keyboards int) { return 0, 0 }

// New fails: only Linux has event devices.
func New(*slog.Logger) (*Grabber, error) {
	return nil, fmt.Errorf("reading keyboards directly (evdev) is Linux only, not %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

// Grab fails: New never returns a Grabber here.
func (*Grabber) Grab(c hotkey.Combo) (hotkey.Grab, error) {
	return nil, fmt.Errorf("register %s: %w", c, errors.ErrUnsupported)
}

// SetOpen does nothing.
func (*Grabber) SetOpen(bool) {}

// Keyboards is empty.
func (*Grabber) Keyboards() []string { return nil }

// Close does nothing.
func (*Grabber) Close() error { return nil }
