//go:build linux && !cgo

package indicator

import (
	"fmt"
	"log/slog"
)

// newX11: the X11 window is drawn through Xlib, which needs cgo.
func newX11(Config, *slog.Logger) (backend, error) {
	return nil, fmt.Errorf("%w: the X11 indicator needs a build with cgo and libX11", ErrUnavailable)
}
