package session

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

var swayGlobals = []string{"wl_compositor", "wl_seat", "zwlr_data_control_manager_v1", "zwp_virtual_keyboard_manager_v1", "zwlr_layer_shell_v1"}

func TestKindAndDesktop(t *testing.T) {
	tests := []struct {
		name    string
		f       Facts
		kind    Type
		desktop Desktop
	}{
		{"XDG_SESSION_TYPE wins", Facts{XDGSessionType: "wayland", Display: ":0"}, Wayland, Other},
		{"x11 session with a stray WAYLAND_DISPLAY", Facts{XDGSessionType: "x11", WaylandDisplay: "wayland-0", Display: ":0"}, X11, Other},
		{"tty session type: the displays decide", Facts{XDGSessionType: "tty", WaylandDisplay: "wayland-1", Display: ":1"}, Wayland, Other},
		{"only DISPLAY", Facts{Display: ":0"}, X11, Other},
		{"nothing", Facts{}, None, Other},
		{"Ubuntu's GNOME", Facts{XDGSessionType: "wayland", CurrentDesktop: "ubuntu:GNOME"}, Wayland, GNOME},
		{"Plasma", Facts{XDGSessionType: "wayland", CurrentDesktop: "KDE"}, Wayland, KDE},
		{"sway", Facts{WaylandDisplay: "wayland-1", CurrentDesktop: "sway"}, Wayland, Sway},
		{"Hyprland", Facts{WaylandDisplay: "wayland-1", CurrentDesktop: "Hyprland"}, Wayland, Hyprland},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Kind(); got != tt.kind {
				t.Errorf("Kind = %s, want %s", got, tt.kind)
			}
			if got := tt.f.Desktop(); got != tt.desktop {
				t.Errorf("Desktop = %s, want %s", got, tt.desktop)
			}
		})
	}
}

// The routes chosen for each kind of session, and what the user is told
// when one is missing: the package or setting that fixes it.
func TestRoutes(t *testing.T) {
	wtype := map[string]string{"wtype": "/usr/bin/wtype"}
	tests := []struct {
		name string
		f    Facts
		// used are the routes WhisperKey takes; missing maps a route that
		// is not available to words its note must hold.
		used    []string
		missing map[string][]string
		notes   map[string][]string // words a route's note must hold, available or not
		summary []string            // words of the tray's line; nil: no line
	}{
		{name: "X11 desktop",
			f:       Facts{XDGSessionType: "x11", Display: ":0", CurrentDesktop: "XFCE"},
			used:    []string{RouteX11Grab, RoutePTT, RouteX11Paste, RouteX11Window},
			missing: map[string][]string{RoutePortal: {"xdg-desktop-portal"}, RouteEvdev: {"usermod -aG input"}}},
		{name: "sway with wtype",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-1", CurrentDesktop: "sway", Globals: swayGlobals, Tools: wtype},
			used:    []string{RoutePTT, RouteDataControl, RouteVirtualKeyboard, RouteLayerShell},
			missing: map[string][]string{RouteX11Grab: {"DISPLAY is not set"}, RouteX11Paste: {"DISPLAY is not set"}, RouteX11Window: {"DISPLAY is not set"}},
			summary: []string{"bind `whisperkey ptt`"}},
		{name: "sway without wtype: paste works, typing is told",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-1", Display: ":0", CurrentDesktop: "sway", Globals: swayGlobals},
			used:    []string{RouteX11Grab, RoutePTT, RouteDataControl, RouteVirtualKeyboard, RouteX11Paste, RouteLayerShell},
			notes:   map[string][]string{RouteVirtualKeyboard: {"paste: type needs wtype", "apt install wtype"}},
			summary: []string{"X11 windows only"}},
		{name: "GNOME: no data-control, no virtual keyboard, portal offered",
			f: Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-0", Display: ":0", CurrentDesktop: "GNOME",
				Globals: []string{"wl_compositor", "wl_seat"}, GlobalShortcuts: 1, Tools: wtype},
			used: []string{RouteX11Grab, RoutePTT, RouteX11Paste, RouteNotification},
			missing: map[string][]string{RouteDataControl: {"GNOME does not", "through XWayland"},
				RouteVirtualKeyboard: {"no virtual-keyboard protocol", "Ctrl+V"},
				RouteLayerShell:      {"no layer-shell protocol", "notifications"}},
			summary: []string{"no virtual-keyboard protocol"}},
		{name: "Wayland without XWayland and no data-control",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-0", Globals: []string{"wl_seat"}, Tools: wtype},
			used:    []string{RoutePTT, RouteNotification},
			missing: map[string][]string{RouteDataControl: {"enable XWayland"}}},
		{name: "compositor does not answer",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-9", WaylandErr: "connect: no such file"},
			used:    []string{RoutePTT, RouteNotification},
			missing: map[string][]string{RouteDataControl: {"cannot ask the compositor", "no such file"}, RouteVirtualKeyboard: {"cannot ask"}, RouteLayerShell: {"cannot ask"}}},
		{name: "compositor does not answer, XWayland there: the X11 indicator",
			f:    Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-9", Display: ":0", WaylandErr: "connect: refused"},
			used: []string{RouteX11Grab, RoutePTT, RouteX11Paste, RouteX11Window}},
		{name: "input group",
			f:    Facts{XDGSessionType: "x11", Display: ":0", InputDevices: 3},
			used: []string{RouteX11Grab, RoutePTT, RouteX11Paste, RouteX11Window}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Evaluate(tt.f)
			var used []string
			for _, rt := range r.Routes {
				if rt.Used {
					used = append(used, rt.Name)
					if !rt.Available {
						t.Errorf("%s used but not available", rt.Name)
					}
				}
				for _, w := range tt.notes[rt.Name] {
					if !strings.Contains(rt.Note, w) {
						t.Errorf("%s note %q does not say %q", rt.Name, rt.Note, w)
					}
				}
				if words, ok := tt.missing[rt.Name]; ok {
					if rt.Available {
						t.Errorf("%s available, want missing", rt.Name)
					}
					for _, w := range words {
						if !strings.Contains(rt.Note, w) {
							t.Errorf("%s note %q does not say %q", rt.Name, rt.Note, w)
						}
					}
				}
			}
			if strings.Join(used, ",") != strings.Join(tt.used, ",") {
				t.Errorf("used %v, want %v", used, tt.used)
			}
			if r.Type != Wayland && r.Summary != "" {
				t.Errorf("summary %q, want none", r.Summary)
			}
			for _, w := range tt.summary {
				if !strings.Contains(r.Summary, w) {
					t.Errorf("summary %q does not say %q", r.Summary, w)
				}
			}
			var b bytes.Buffer
			r.Print(&b)
			if !strings.Contains(b.String(), "Desktop session: "+string(r.Type)) {
				t.Errorf("doctor text lacks the session type:\n%s", b.String())
			}
		})
	}
}

// How the indicator shows, from what the session offers; the indicator
// package takes its backend from the same function.
func TestIndicatorRoute(t *testing.T) {
	tests := []struct {
		name                                string
		wayland, reachable, layerShell, x11 bool
		want                                string
	}{
		{"X11 session", false, false, false, true, RouteX11Window},
		{"X11 session, a stray Wayland compositor", false, true, true, true, RouteX11Window},
		{"sway, KDE, Hyprland", true, true, true, false, RouteLayerShell},
		{"sway with XWayland: still the layer surface", true, true, true, true, RouteLayerShell},
		{"GNOME", true, true, false, true, RouteNotification},
		{"GNOME without XWayland", true, true, false, false, RouteNotification},
		{"compositor unreachable, XWayland there", true, false, false, true, RouteX11Window},
		{"compositor unreachable, no XWayland", true, false, false, false, RouteNotification},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IndicatorRoute(tt.wayland, tt.reachable, tt.layerShell, tt.x11); got != tt.want {
				t.Errorf("IndicatorRoute = %s, want %s", got, tt.want)
			}
		})
	}
}

// Each desktop's note names where its binding goes.
func TestBindingHints(t *testing.T) {
	for d, want := range map[Desktop]string{Sway: "bindsym --release", Hyprland: "bindr", GNOME: "Custom Shortcuts", KDE: "Add Command", Other: "docs/wayland.md"} {
		f := Facts{XDGSessionType: "wayland", CurrentDesktop: string(d)}
		for _, rt := range Evaluate(f).Routes {
			if rt.Name == RoutePTT && !strings.Contains(rt.Note, want) {
				t.Errorf("%s: ptt note %q does not say %q", d, rt.Note, want)
			}
		}
	}
}

func TestSocketPath(t *testing.T) {
	for _, tt := range []struct{ display, runtime, want string }{
		{"wayland-1", "/run/user/1000", "/run/user/1000/wayland-1"},
		{"/tmp/w/wayland-1", "", "/tmp/w/wayland-1"},
		{"wayland-1", "", ""},
		{"", "/run/user/1000", ""},
	} {
		if got := SocketPath(tt.display, tt.runtime); got != tt.want {
			t.Errorf("SocketPath(%q, %q) = %q, want %q", tt.display, tt.runtime, got, tt.want)
		}
	}
	if _, err := Globals(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "WAYLAND_DISPLAY") {
		t.Errorf("Globals without a display: %v", err)
	}
}
