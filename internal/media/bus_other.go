//go:build !linux

package media

import (
	"errors"

	"github.com/godbus/dbus/v5"
)

// connect fails outside Linux: players there are not on a D-Bus. Windows
// uses the programs' audio sessions instead (sessions_windows.go) and never
// calls it; elsewhere config.MediaNote says media is left alone.
func connect() (*dbus.Conn, error) {
	return nil, errors.New("media control works on Linux and Windows only for now")
}
