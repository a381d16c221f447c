//go:build !windows && !linux

package grab

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// osState is empty: x/hotkey works on macOS, but package hotkey has no macOS key codes yet.
type osState struct {
	log *slog.Logger
}

func newOSState(log *slog.Logger) (*osState, error) { return &osState{log: log}, nil }

func (s *osState) close() error                   { return nil }
func (s *osState) resumed() <-chan hotkey.Renewal { return nil }

func (s *osState) grab(c hotkey.Combo) (hotkey.Grab, error) {
	regs, err := s.registrations(c)
	if err != nil {
		return nil, fmt.Errorf("register %s: %w", c, err)
	}
	return grabRegs(s.log, c, regs)
}

func (s *osState) registrations(hotkey.Combo) ([]reg, error) {
	return nil, fmt.Errorf("global hotkeys are not supported on %s yet: %w", runtime.GOOS, errors.ErrUnsupported)
}

func (s *osState) comboDown(hotkey.Combo) (bool, error) {
	return false, errors.ErrUnsupported
}
