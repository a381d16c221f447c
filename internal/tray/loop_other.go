//go:build !windows && !darwin

package tray

import (
	"fmt"
	"log/slog"
	"os"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
)

// startLoop publishes the tray on the session bus, then calls onReady to
// build the menu. systray's D-Bus handlers run on godbus's goroutines, so no
// thread of ours has to run a loop. Nothing outside closes a D-Bus tray, so
// the second argument (called when something does) is unused.
func startLoop(onReady, _ func(), log *slog.Logger) (stop func(), err error) {
	// Check the bus first: without one systray only logs, and its end
	// function would then dereference a nil connection.
	probe, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return nil, fmt.Errorf("%w: %v (the tray needs a desktop session; check DBUS_SESSION_BUS_ADDRESS)", ErrNoSessionBus, err)
	}
	defer probe.Close()
	if err := probe.Auth(nil); err != nil {
		return nil, fmt.Errorf("%w: authenticate: %v", ErrNoSessionBus, err)
	}
	if err := probe.Hello(); err != nil {
		return nil, fmt.Errorf("%w: hello: %v", ErrNoSessionBus, err)
	}

	// The menu is built only after start has returned: before that, systray
	// still holds the properties of a previous run's closed connection, and
	// SetIcon panics on them.
	start, end := systray.RunWithExternalLoop(nil, nil)
	start()
	stop = func() {
		defer func() {
			// systray's end dereferences its connection, which is nil when
			// its start failed half way; there is nothing left to stop then.
			if r := recover(); r != nil {
				log.Warn("tray loop ended uncleanly", "panic", fmt.Sprint(r))
				systray.Quit()
			}
		}()
		end()
	}

	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", os.Getpid())
	if !hasOwner(probe, name) {
		return stop, fmt.Errorf("publish %s on the session bus failed (see the systray error above)", name)
	}
	if !hasOwner(probe, "org.kde.StatusNotifierWatcher") {
		log.Warn("no system tray host on this desktop; the icon stays invisible until one starts",
			"hint", "GNOME needs the AppIndicator extension; KDE, Xfce and Cinnamon have one built in")
	}
	onReady()
	return stop, nil
}

func hasOwner(conn *dbus.Conn, name string) bool {
	var ok bool
	err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&ok)
	return err == nil && ok
}
