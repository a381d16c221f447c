package session

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/whisperkey/whisperkey/internal/wlwire"
)

// SocketPath is the Wayland display socket: WAYLAND_DISPLAY itself when it
// is absolute, else under XDG_RUNTIME_DIR; "" when there is none.
func SocketPath(waylandDisplay, runtimeDir string) string {
	switch {
	case waylandDisplay == "":
		return ""
	case filepath.IsAbs(waylandDisplay):
		return waylandDisplay
	case runtimeDir == "":
		return ""
	}
	return filepath.Join(runtimeDir, waylandDisplay)
}

// Globals asks the compositor at socket for the interfaces it offers.
func Globals(ctx context.Context, socket string) ([]string, error) {
	c, err := wlwire.Dial(ctx, socket)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	dl := time.Now().Add(2 * time.Second)
	if t, ok := ctx.Deadline(); ok && t.Before(dl) {
		dl = t
	}
	_ = c.SetDeadline(dl)
	_, globals, err := c.Registry()
	if err != nil {
		return nil, fmt.Errorf("read the compositor's globals: %w", err)
	}
	var names []string
	for _, g := range globals {
		names = append(names, g.Interface)
	}
	return names, nil
}
