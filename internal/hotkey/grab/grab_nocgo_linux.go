//go:build !cgo

package grab

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// osState is empty: the X11 grabber is written against Xlib through cgo.
type osState struct{}

func newOSState(*slog.Logger) (*osState, error) { return &osState{}, nil }

func (s *osState) close() error                   { return nil }
func (s *osState) resumed() <-chan hotkey.Renewal { return nil }

func (s *osState) grab(c hotkey.Combo) (hotkey.Grab, error) {
	return nil, fmt.Errorf("register %s: global hotkeys need a build with cgo (CGO_ENABLED=1): %w", c, errors.ErrUnsupported)
}

func (s *osState) comboDown(hotkey.Combo) (bool, error) {
	return false, errors.ErrUnsupported
}
