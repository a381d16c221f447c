package session

import (
	"context"
	"os/exec"
	"runtime"

	"github.com/whisperkey/whisperkey/internal/hotkey/evdev"
	"github.com/whisperkey/whisperkey/internal/portal"
	"github.com/whisperkey/whisperkey/internal/power"
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
	v := portal.Versions(ctx, portal.IfaceGlobalShortcuts, portal.IfaceRemoteDesktop)
	f.GlobalShortcuts, f.RemoteDesktop = v[0], v[1]
	f.InputDevices, f.Keyboards = evdev.Count(evdev.Dir)
	if f.Keyboards > 0 {
		if _, err := power.SessionOpen(); err != nil {
			f.LockUnknown = err.Error()
		}
	}
	for _, tool := range []string{"wtype"} {
		if p, err := exec.LookPath(tool); err == nil {
			f.Tools[tool] = p
		}
	}
	return f
}
