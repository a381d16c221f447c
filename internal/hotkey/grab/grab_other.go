//go:build !windows && !(linux && cgo)

package grab

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// osState is empty: global hotkeys are implemented for X11 (with cgo) and Windows only.
type osState struct{}

func newOSState(*slog.Logger) (*osState, error) { return &osState{}, nil }

func (s *osState) close() error           { return nil }
func (s *osState) resumed() <-chan string { return nil }

func (s *osState) registrations(hotkey.Combo) ([]reg, error) {
	return nil, fmt.Errorf("global hotkeys are not supported on %s (or in a build without cgo): %w", runtime.GOOS, errors.ErrUnsupported)
}

func (s *osState) comboDown(hotkey.Combo) (bool, error) {
	return false, errors.ErrUnsupported
}
