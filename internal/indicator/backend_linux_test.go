//go:build linux

package indicator

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/wlwire"
)

// gnomeLike is a compositor that answers the registry as GNOME's does for
// the indicator: a compositor and shared memory, no layer shell.
func gnomeLike(t *testing.T) string {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "wayland-0")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	serve := func(c net.Conn) {
		defer c.Close()
		req := make([]byte, 24) // get_registry, then sync
		if _, err := io.ReadFull(c, req); err != nil {
			return
		}
		reg, done := binary.LittleEndian.Uint32(req[8:]), binary.LittleEndian.Uint32(req[20:])
		var out []byte
		event := func(obj uint32, args ...[]byte) {
			var body []byte
			for _, a := range args {
				body = append(body, a...)
			}
			h := wlwire.Uint(obj, uint32(8+len(body))<<16)
			out = append(append(out, h...), body...)
		}
		for i, iface := range []string{"wl_compositor", "wl_shm", "wl_seat", "xdg_wm_base"} {
			event(reg, wlwire.Uint(uint32(i+1)), wlwire.String(iface), wlwire.Uint(1))
		}
		event(done, wlwire.Uint(0))
		_, _ = c.Write(out)
		_, _ = io.Copy(io.Discard, c)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return socket
}

func TestNoLayerShell(t *testing.T) {
	_, err := openLayer(Config{Margin: 48}, slog.New(slog.DiscardHandler), gnomeLike(t))
	if !errors.Is(err, errNoLayerShell) {
		t.Fatalf("openLayer on a compositor without layer shell: %v, want errNoLayerShell", err)
	}
}

// Which backend New takes for each session (session.IndicatorRoute decides;
// this checks the indicator follows it).
func TestBackendChoice(t *testing.T) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		testenv.Require(t, "a D-Bus session bus (DBUS_SESSION_BUS_ADDRESS) for the notification stand-in",
			"scripts/testenv.sh go test ./internal/indicator/")
	}
	testenv.RequireX(t)
	gnome, gone, display := gnomeLike(t), filepath.Join(t.TempDir(), "none"), os.Getenv("DISPLAY")
	tests := []struct {
		name string
		env  map[string]string
		want string // the backend's type
	}{
		{"GNOME on Wayland: notifications", map[string]string{"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": gnome}, "*indicator.noticeWindow"},
		{"GNOME with XWayland: still notifications", map[string]string{"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": gnome, "DISPLAY": display}, "*indicator.noticeWindow"},
		{"Wayland compositor gone, no XWayland: notifications", map[string]string{"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": gone}, "*indicator.noticeWindow"},
		{"Wayland compositor gone, XWayland there: the X11 window", map[string]string{"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": gone, "DISPLAY": display}, "*indicator.x11Window"},
		{"X11 session: the X11 window", map[string]string{"XDG_SESSION_TYPE": "x11", "WAYLAND_DISPLAY": gnome, "DISPLAY": display}, "*indicator.x11Window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Config{Getenv: func(k string) string { return tt.env[k] }}.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			b, err := newOSWindow(cfg, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer b.close()
			if got := typeName(b); got != tt.want {
				t.Errorf("backend %s, want %s", got, tt.want)
			}
		})
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
