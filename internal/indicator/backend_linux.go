//go:build linux

package indicator

import (
	"errors"
	"log/slog"

	"github.com/whisperkey/whisperkey/internal/session"
)

// newOSWindow picks how the indicator shows, as session.IndicatorRoute
// says doctor reports it: a layer surface on a Wayland compositor that
// offers one, else a notification; the X11 window in an X11 session (and
// on Wayland when the compositor cannot be reached but XWayland is there).
func newOSWindow(cfg Config, log *slog.Logger) (backend, error) {
	env := cfg.Getenv
	f := session.Facts{XDGSessionType: env("XDG_SESSION_TYPE"), WaylandDisplay: env("WAYLAND_DISPLAY"), Display: env("DISPLAY")}
	wayland := f.Kind() == session.Wayland
	var layer *layerWindow
	var err error
	if wayland {
		layer, err = openLayer(cfg, log, session.SocketPath(f.WaylandDisplay, env("XDG_RUNTIME_DIR")))
	}
	route := session.IndicatorRoute(wayland, err == nil || errors.Is(err, errNoLayerShell), err == nil, f.Display != "")
	if err != nil {
		log.Info("indicator", "route", route, "layer_shell", err)
	} else {
		log.Info("indicator", "route", route)
	}
	switch route {
	case session.RouteLayerShell:
		return layer, nil
	case session.RouteNotification:
		return newNotice(log)
	}
	return newX11(cfg, log)
}
