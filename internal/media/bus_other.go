//go:build !linux

package media

import (
	"errors"

	"github.com/godbus/dbus/v5"
)

// connect fails outside Linux: players there are not on a D-Bus (Windows'
// media session is WinRT, not built yet; config.MediaNote says so).
func connect() (*dbus.Conn, error) {
	return nil, errors.New("media control works on Linux only for now")
}
