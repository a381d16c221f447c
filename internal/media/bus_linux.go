package media

import "github.com/godbus/dbus/v5"

// connect opens a private connection to the session bus, where MPRIS players live.
func connect() (*dbus.Conn, error) { return dbus.ConnectSessionBus() }
