//go:build !linux

package power

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
)

// osSession follows nothing: logind is Linux only.
type osSession struct{}

func newOSSession(*slog.Logger, func(bool)) (*osSession, error) {
	return nil, fmt.Errorf("no logind on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

func (*osSession) close() error { return nil }

func sessionOpen() (bool, error) {
	return false, fmt.Errorf("no logind on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
