package session

import (
	"bytes"
	"context"
	"slices"
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
		doctor  []string            // words of doctor's text
	}{
		{name: "X11 desktop",
			f:       Facts{XDGSessionType: "x11", Display: ":0", CurrentDesktop: "XFCE"},
			used:    []string{RouteX11Grab, RoutePTT, RouteX11Paste, RouteX11Window},
			missing: map[string][]string{RoutePortal: {"xdg-desktop-portal"}, RouteEvdev: {"not needed on X11"}}},
		{name: "sway with wtype",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-1", CurrentDesktop: "sway", Globals: swayGlobals, Tools: wtype},
			used:    []string{RoutePTT, RouteDataControl, RouteVirtualKeyboard, RouteLayerShell},
			missing: map[string][]string{RouteX11Grab: {"DISPLAY is not set"}, RouteX11Paste: {"DISPLAY is not set"}},
			notes:   map[string][]string{RouteRemoteDesktop: {"not needed"}},
			summary: []string{"bind `whisperkey ptt`"}},
		{name: "sway without wtype: paste works, typing is told",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-1", Display: ":0", CurrentDesktop: "sway", Globals: swayGlobals},
			used:    []string{RouteX11Grab, RoutePTT, RouteDataControl, RouteVirtualKeyboard, RouteX11Paste, RouteLayerShell},
			notes:   map[string][]string{RouteVirtualKeyboard: {"paste: type needs wtype", "apt install wtype"}},
			summary: []string{"X11 windows only"}},
		{name: "GNOME: no data-control, no virtual keyboard, portal offered",
			f: Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-0", Display: ":0", CurrentDesktop: "GNOME",
				Globals: []string{"wl_compositor", "wl_seat"}, GlobalShortcuts: 1, Tools: wtype},
			used: []string{RouteX11Grab, RoutePortal, RoutePTT, RouteX11Paste, RouteNotification},
			missing: map[string][]string{RouteDataControl: {"GNOME does not", "through XWayland"},
				RouteVirtualKeyboard: {"no virtual-keyboard protocol", "Ctrl+V"},
				RouteLayerShell:      {"no layer-shell protocol", "notifications"}},
			notes: map[string][]string{RoutePortal: {"version 1", "Settings → Apps"},
				RoutePTT: {"beside the portal", "Custom Shortcuts"}},
			summary: []string{"GlobalShortcuts portal", "no virtual-keyboard protocol"}},
		{name: "GNOME 48: the portal's shortcut, Ctrl+V through RemoteDesktop",
			f: Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-0", Display: ":0", CurrentDesktop: "GNOME",
				Globals: []string{"wl_compositor", "wl_seat"}, GlobalShortcuts: 1, RemoteDesktop: 2},
			used:    []string{RouteX11Grab, RoutePortal, RoutePTT, RouteRemoteDesktop, RouteX11Paste, RouteNotification},
			missing: map[string][]string{RouteVirtualKeyboard: {"RemoteDesktop portal presses Ctrl+V instead"}},
			notes:   map[string][]string{RouteRemoteDesktop: {"version 2", "asks you once"}},
			summary: []string{"GlobalShortcuts portal"}},
		{name: "KDE Plasma on Wayland: the portal's shortcut",
			f: Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-0", CurrentDesktop: "KDE",
				Globals: swayGlobals, GlobalShortcuts: 2, Tools: wtype},
			used:    []string{RoutePortal, RoutePTT, RouteDataControl, RouteVirtualKeyboard, RouteLayerShell},
			notes:   map[string][]string{RoutePortal: {"version 2", "System Settings"}, RouteRemoteDesktop: {"not needed"}},
			summary: []string{"your desktop's shortcut"}},
		{name: "KDE on X11: the portal is not needed",
			f:     Facts{XDGSessionType: "x11", Display: ":0", CurrentDesktop: "KDE", GlobalShortcuts: 2},
			used:  []string{RouteX11Grab, RoutePTT, RouteX11Paste, RouteX11Window},
			notes: map[string][]string{RoutePortal: {"not needed"}}},
		{name: "Wayland without XWayland and no data-control",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-0", Globals: []string{"wl_seat"}, Tools: wtype},
			used:    []string{RoutePTT, RouteNotification},
			missing: map[string][]string{RouteDataControl: {"enable XWayland"}, RouteRemoteDesktop: {"xdg-desktop-portal-gnome"}}},
		{name: "compositor does not answer",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-9", WaylandErr: "connect: no such file"},
			used:    []string{RoutePTT, RouteNotification},
			missing: map[string][]string{RouteDataControl: {"cannot ask the compositor", "no such file"}, RouteVirtualKeyboard: {"cannot ask"}}},
		{name: "compositor does not answer, XWayland there: the X11 indicator",
			f:    Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-9", Display: ":0", WaylandErr: "connect: refused"},
			used: []string{RouteX11Grab, RoutePTT, RouteX11Paste, RouteX11Window}},
		{name: "input group on X11: the X grab stays",
			f:     Facts{XDGSessionType: "x11", Display: ":0", InputDevices: 3, Keyboards: 1},
			used:  []string{RouteX11Grab, RoutePTT, RouteX11Paste, RouteX11Window},
			notes: map[string][]string{RouteEvdev: {"1 keyboard(s) readable", "not needed on X11"}}},
		// evdev: the last resort on Wayland, when keyboards are readable.
		{name: "sway, in the input group: the keyboards are read",
			f: Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-1", CurrentDesktop: "sway", Globals: swayGlobals,
				Tools: wtype, InputDevices: 7, Keyboards: 2},
			used: []string{RoutePTT, RouteEvdev, RouteDataControl, RouteVirtualKeyboard, RouteLayerShell},
			notes: map[string][]string{RouteEvdev: {"reading 2 keyboard(s)", "every window", "every program you run read every key",
				"ignored while the screen is locked or another user's session is in front"}},
			summary: []string{"hotkeys of config.yaml work in every window"},
			doctor:  []string{"✔ evdev", "✘ x11-grab"}},
		{name: "GNOME with XWayland, in the input group: evdev instead of the X grab",
			f: Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-0", Display: ":0", CurrentDesktop: "GNOME",
				Globals: []string{"wl_compositor", "wl_seat"}, InputDevices: 4, Keyboards: 1,
				LockUnknown: "connect to the system bus: no such file"},
			used: []string{RoutePTT, RouteEvdev, RouteX11Paste, RouteNotification},
			notes: map[string][]string{RouteX11Grab: {"not needed", "read directly"},
				RouteEvdev: {"cannot tell when the screen is locked (connect to the system bus: no such file)", "lock screen", "another user's session"}},
			summary: []string{"every window", "no virtual-keyboard protocol"},
			doctor:  []string{"✔ evdev", "· x11-grab"}},
		{name: "Wayland, only a gamepad readable (uaccess): no keyboard, the fix is told",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-1", CurrentDesktop: "sway", Globals: swayGlobals, Tools: wtype, InputDevices: 1},
			used:    []string{RoutePTT, RouteDataControl, RouteVirtualKeyboard, RouteLayerShell},
			missing: map[string][]string{RouteEvdev: {"1 input device(s) readable but no keyboard", "sudo usermod -aG input $USER", "log out and in", "every key you type"}},
			summary: []string{"bind `whisperkey ptt`"},
			doctor:  []string{"✘ evdev"}},
		{name: "Wayland, no input device readable: the fix and its price",
			f:       Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-1", CurrentDesktop: "Hyprland", Globals: swayGlobals, Tools: wtype},
			used:    []string{RoutePTT, RouteDataControl, RouteVirtualKeyboard, RouteLayerShell},
			missing: map[string][]string{RouteEvdev: {"cannot read the keyboards", "sudo usermod -aG input $USER", "log out and in", "every key you type, passwords too", "portal"}}},
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
			for _, w := range tt.doctor {
				if !strings.Contains(b.String(), w) {
					t.Errorf("doctor text lacks %q:\n%s", w, b.String())
				}
			}
			if got, want := r.Uses(RouteEvdev), slices.Contains(tt.used, RouteEvdev); got != want {
				t.Errorf("Uses(evdev) = %v, want %v", got, want)
			}
		})
	}
}

// Where the portal carries the hotkey, evdev is not used even with keyboards readable.
func TestEvdevYieldsToPortal(t *testing.T) {
	f := Facts{XDGSessionType: "wayland", WaylandDisplay: "wayland-0", CurrentDesktop: "KDE", GlobalShortcuts: 1, InputDevices: 3, Keyboards: 1}
	tests := []struct {
		portalUsed bool
		used       bool
		note       string
	}{
		{portalUsed: false, used: true, note: "reading 1 keyboard(s)"},
		{portalUsed: true, used: false, note: "the GlobalShortcuts portal is used"},
	}
	for _, tt := range tests {
		e := evdevRoute(f, tt.portalUsed)
		if e.Used != tt.used || !e.Available || !strings.Contains(e.Note, tt.note) {
			t.Errorf("portal used %v: %+v, want used %v and a note saying %q", tt.portalUsed, e, tt.used, tt.note)
		}
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
