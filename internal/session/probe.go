package session

import (
	"context"
	"os/exec"
	"runtime"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/whisperkey/whisperkey/internal/hotkey/evdev"
)

// Probe gathers the Facts of this session: the environment through getenv,
// the compositor's globals, the portal on the session bus, the readable
// input devices and the helper programs. It takes at most a few seconds.
func Probe(ctx context.Context, getenv func(string) string) Facts {
	f := Facts{
		XDGSessionType: getenv("XDG_SESSION_TYPE"), WaylandDisplay: getenv("WAYLAND_DISPLAY"),
		Display: getenv("DISPLAY"), CurrentDesktop: getenv("XDG_CURRENT_DESKTOP"),
		Tools: map[string]string{},
	}
	if runtime.GOOS != "linux" {
		return f // no Wayland, portal or evdev to ask about
	}
	if f.WaylandDisplay != "" {
		g, err := Globals(ctx, SocketPath(f.WaylandDisplay, getenv("XDG_RUNTIME_DIR")))
		if err != nil {
			f.WaylandErr = err.Error()
		} else if f.Globals = g; g == nil {
			f.Globals = []string{}
		}
	}
	f.GlobalShortcuts = portalVersion(ctx, "org.freedesktop.portal.GlobalShortcuts")
	f.InputDevices, f.Keyboards = evdev.Count(evdev.Dir)
	for _, tool := range []string{"wtype"} {
		if p, err := exec.LookPath(tool); err == nil {
			f.Tools[tool] = p
		}
	}
	return f
}

// portalVersion is the version property of a desktop portal interface, 0
// when there is no session bus, no portal, or the portal lacks it.
func portalVersion(ctx context.Context, iface string) uint32 {
	conn, err := dbus.ConnectSessionBus(dbus.WithContext(ctx))
	if err != nil {
		return 0
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var v dbus.Variant
	err = conn.Object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop").
		CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, iface, "version").Store(&v)
	if err != nil {
		return 0
	}
	n, _ := v.Value().(uint32)
	return n
}
