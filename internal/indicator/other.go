//go:build !linux && !windows

package indicator

import (
	"fmt"
	"log/slog"
	"runtime"
)

// osWindow where no indicator exists: macOS.
type osWindow struct{}

func newOSWindow(Config, *slog.Logger) (*osWindow, error) {
	return nil, fmt.Errorf("%w: not built for %s", ErrUnavailable, runtime.GOOS)
}

func (*osWindow) show(view, bool) {}
func (*osWindow) draw(view)       {}
func (*osWindow) hide()           {}
func (*osWindow) bounds() Rect    { return Rect{} }
func (*osWindow) close() error    { return nil }
