package session

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Type is the kind of graphical session.
type Type string

// The session types XDG_SESSION_TYPE names that matter here.
const (
	X11     Type = "x11"
	Wayland Type = "wayland"
	None    Type = "none" // a console or ssh login: no display at all
)

// Desktop names the compositor families whose setup steps differ.
type Desktop string

// Desktops with their own steps in docs/wayland.md.
const (
	GNOME    Desktop = "gnome"
	KDE      Desktop = "kde"
	Sway     Desktop = "sway"
	Hyprland Desktop = "hyprland"
	Other    Desktop = "other"
)

// Facts are what was found on this machine: the environment and the probes'
// answers. Routes is a pure function of them, so tests give them directly.
type Facts struct {
	// XDGSessionType, WaylandDisplay, Display and CurrentDesktop are the
	// environment variables XDG_SESSION_TYPE, WAYLAND_DISPLAY, DISPLAY and
	// XDG_CURRENT_DESKTOP.
	XDGSessionType, WaylandDisplay, Display, CurrentDesktop string
	// Globals are the Wayland interfaces the compositor offers; nil when
	// it was not asked (no Wayland display) and WaylandErr says why not.
	Globals    []string
	WaylandErr string
	// GlobalShortcuts is the version of the XDG GlobalShortcuts portal, 0
	// when the session bus offers none.
	GlobalShortcuts uint32
	// RemoteDesktop is the version of the XDG RemoteDesktop portal, 0 when
	// the session bus offers none.
	RemoteDesktop uint32
	// InputDevices is how many /dev/input/event* this user can read (evdev).
	InputDevices int
	// Keyboards is how many of them are keyboards: what the evdev route reads.
	Keyboards int
	// LockUnknown says why logind cannot tell whether this session is
	// locked or another user's is in front (no system bus, no session);
	// "" when it can. The evdev route shuts the keys there when it can.
	LockUnknown string
	// Tools maps the helper programs (wtype) to their path, "" when missing.
	Tools map[string]string
}

// Kind is the session type: XDG_SESSION_TYPE when it names x11 or wayland,
// else what the display variables say (WAYLAND_DISPLAY first: a Wayland
// session with XWayland has both).
func (f Facts) Kind() Type {
	switch strings.ToLower(f.XDGSessionType) {
	case "wayland":
		return Wayland
	case "x11":
		return X11
	}
	switch {
	case f.WaylandDisplay != "":
		return Wayland
	case f.Display != "":
		return X11
	}
	return None
}

// Desktop is the compositor family from XDG_CURRENT_DESKTOP (a
// colon-separated list, e.g. "ubuntu:GNOME").
func (f Facts) Desktop() Desktop {
	for _, d := range strings.Split(strings.ToLower(f.CurrentDesktop), ":") {
		switch d {
		case "gnome", "gnome-classic", "unity":
			return GNOME
		case "kde", "plasma":
			return KDE
		case "sway":
			return Sway
		case "hyprland":
			return Hyprland
		}
	}
	return Other
}

func (f Facts) offers(iface ...string) bool {
	return slices.ContainsFunc(iface, func(i string) bool { return slices.Contains(f.Globals, i) })
}

// Wayland interfaces the routes need.
const (
	ifaceVirtualKeyboard = "zwp_virtual_keyboard_manager_v1"
	ifaceDataControlExt  = "ext_data_control_manager_v1"
	ifaceDataControlWlr  = "zwlr_data_control_manager_v1"
	ifaceLayerShell      = "zwlr_layer_shell_v1"
)

// Route names.
const (
	RouteX11Grab         = "x11-grab"
	RoutePortal          = "global-shortcuts-portal"
	RoutePTT             = "ptt-command"
	RouteEvdev           = "evdev"
	RouteX11Paste        = "x11-paste"
	RouteDataControl     = "wayland-clipboard"
	RouteVirtualKeyboard = "virtual-keyboard"
	RouteRemoteDesktop   = "remote-desktop-portal"
	RouteLayerShell      = "layer-shell"
	RouteNotification    = "notification"
	RouteX11Window       = "x11-window"
)

// Route is one way to get the hotkey or to get text into the focused window.
type Route struct {
	Name string `json:"name"`
	// For is "hotkey", "paste" or "indicator".
	For       string `json:"for"`
	Available bool   `json:"available"`
	// Used: WhisperKey uses it now (a route found but not built yet is
	// available and not used).
	Used bool `json:"used"`
	// Note says what it does here, or what fixes it when missing.
	Note string `json:"note"`
}

// Report is what doctor and the tray show about the session.
type Report struct {
	Type    Type    `json:"type"`
	Desktop Desktop `json:"desktop"`
	Routes  []Route `json:"routes"`
	// Summary is one line for the tray: how to dictate in this session.
	Summary string `json:"summary"`
}

// Evaluate chooses the routes for f.
func Evaluate(f Facts) Report {
	r := Report{Type: f.Kind(), Desktop: f.Desktop()}
	r.Routes = append(hotkeyRoutes(f), pasteRoutes(f)...)
	r.Routes = append(r.Routes, indicatorRoutes(f)...)
	r.Summary = summary(f, r.Routes)
	return r
}

func hotkeyRoutes(f Facts) []Route {
	wl := f.Kind() == Wayland
	x := Route{Name: RouteX11Grab, For: "hotkey", Available: f.Display != "", Used: f.Display != ""}
	switch {
	case !x.Available:
		x.Note = "no X display (DISPLAY is not set)"
	case wl:
		x.Note = "through XWayland: fires only while an X11 window has the focus"
	default:
		x.Note = "global hotkey on the X display"
	}
	p := Route{Name: RoutePortal, For: "hotkey", Available: f.GlobalShortcuts > 0, Used: wl && f.GlobalShortcuts > 0}
	switch {
	case p.Used:
		p.Note = fmt.Sprintf("version %d: the record hotkey is a shortcut of your desktop; it asks you once to confirm or change the key (%s)", f.GlobalShortcuts, portalSettings(f.Desktop()))
	case p.Available:
		p.Note = fmt.Sprintf("offered (version %d); not needed: the X11 hotkey works in this session", f.GlobalShortcuts)
	default:
		p.Note = "not offered: it needs xdg-desktop-portal with a backend that has it (KDE Plasma 5.27+, GNOME 48+, xdg-desktop-portal-hyprland) and a session D-Bus"
	}
	c := Route{Name: RoutePTT, For: "hotkey", Available: true, Used: true}
	switch {
	case p.Used:
		c.Note = "works beside the portal's shortcut; if that one is refused, bind `whisperkey ptt` to a key: " + bindingHint(f.Desktop())
	case wl:
		c.Note = "bind `whisperkey ptt press` and `whisperkey ptt release` (or `toggle`) to a key in your desktop: " + bindingHint(f.Desktop())
	default:
		c.Note = "`whisperkey ptt press|release|toggle|cancel` drives the hotkey from scripts"
	}
	e := evdevRoute(f, p.Used)
	if e.Used {
		x.Used = false
		x.Note = "through XWayland: not needed, the keyboards are read directly (evdev)"
	}
	return []Route{x, p, c, e}
}

// evdevRoute reads the keyboards under /dev/input directly: the last
// resort on Wayland, used when keyboards are readable and the portal is
// not used. It carries the hotkeys of config.yaml into every window.
func evdevRoute(f Facts, portalUsed bool) Route {
	const caveat = "any program you run can then read every key you type, passwords too"
	fix := "sudo usermod -aG input $USER, then log out and in again (" + caveat +
		"; the GlobalShortcuts portal or a `whisperkey ptt` key binding needs no such right)"
	e := Route{Name: RouteEvdev, For: "hotkey", Available: f.Keyboards > 0}
	switch wl := f.Kind() == Wayland; {
	case e.Available && wl && !portalUsed:
		e.Used = true
		e.Note = fmt.Sprintf("reading %d keyboard(s) under /dev/input: the hotkeys of config.yaml work in every window; "+
			"the same right (the input group) lets every program you run read every key you type", f.Keyboards)
		if f.LockUnknown == "" {
			e.Note += "; keys are ignored while the screen is locked or another user's session is in front"
		} else {
			e.Note += "; cannot tell when the screen is locked (" + f.LockUnknown +
				"), so a hotkey pressed on the lock screen or in another user's session on this seat counts too"
		}
	case e.Available && wl:
		e.Note = fmt.Sprintf("%d keyboard(s) readable; not needed: the GlobalShortcuts portal is used", f.Keyboards)
	case e.Available:
		e.Note = fmt.Sprintf("%d keyboard(s) readable; not needed on X11, where the X grab works", f.Keyboards)
	case !wl:
		e.Note = "cannot read the keyboards under /dev/input; not needed on X11, where the X grab works"
	case f.InputDevices > 0:
		e.Note = fmt.Sprintf("%d input device(s) readable but no keyboard among them; to have the hotkeys of config.yaml in every window: %s", f.InputDevices, fix)
	default:
		e.Note = "cannot read the keyboards under /dev/input; to have the hotkeys of config.yaml in every window: " + fix
	}
	return e
}

func pasteRoutes(f Facts) []Route {
	var out []Route
	if f.Kind() == Wayland {
		dc := Route{Name: RouteDataControl, For: "paste", Available: f.offers(ifaceDataControlExt, ifaceDataControlWlr)}
		switch {
		case f.Globals == nil:
			dc.Note = "cannot ask the compositor: " + f.WaylandErr
		case dc.Available:
			dc.Used = true
			dc.Note = "the clipboard is saved, written and restored through the data-control protocol"
		case f.Display != "":
			dc.Note = "the compositor offers no data-control protocol (GNOME does not); the clipboard goes through XWayland"
		default:
			dc.Note = "the compositor offers no data-control protocol (GNOME does not), and there is no XWayland to fall back on: enable XWayland"
		}
		out = append(out, dc)
		vk := Route{Name: RouteVirtualKeyboard, For: "paste", Available: f.offers(ifaceVirtualKeyboard)}
		switch {
		case f.Globals == nil:
			vk.Note = "cannot ask the compositor: " + f.WaylandErr
		case !vk.Available && f.RemoteDesktop > 0:
			vk.Note = "the compositor offers no virtual-keyboard protocol (GNOME does not): the RemoteDesktop portal presses Ctrl+V instead, and types for paste: type"
		case !vk.Available:
			vk.Note = "the compositor offers no virtual-keyboard protocol (GNOME does not): the text is left on the clipboard for you to paste with Ctrl+V"
		case f.Tools["wtype"] == "":
			vk.Used = true
			vk.Note = "Ctrl+V into native Wayland windows; paste: type needs wtype: sudo apt install wtype (Fedora: dnf install wtype; Arch: pacman -S wtype)"
		default:
			vk.Used = true
			vk.Note = "Ctrl+V into native Wayland windows; paste: type through wtype (" + f.Tools["wtype"] + ")"
		}
		out = append(out, vk)
		rd := Route{Name: RouteRemoteDesktop, For: "paste", Available: f.RemoteDesktop > 0}
		switch {
		case vk.Used:
			rd.Note = "not needed: the virtual keyboard presses Ctrl+V"
		case !rd.Available:
			rd.Note = "not offered: without it no keystroke reaches Wayland windows; it needs xdg-desktop-portal with a backend that has it (xdg-desktop-portal-gnome, -kde) and a session D-Bus"
		case f.Globals == nil:
			rd.Note = "offered, but the compositor cannot be asked whether a virtual keyboard would do"
		default:
			rd.Used = true
			rd.Note = fmt.Sprintf("version %d: Ctrl+V (and paste: type's characters, those of your keyboard layout) into native Wayland windows through the desktop's remote control; it asks you once to allow it (\"Remote desktop\" / \"Allow remote interaction\")", f.RemoteDesktop)
		}
		out = append(out, rd)
	}
	xp := Route{Name: RouteX11Paste, For: "paste", Available: f.Display != "", Used: f.Display != ""}
	switch {
	case !xp.Available:
		xp.Note = "no X display (DISPLAY is not set)"
	case f.Kind() == Wayland:
		xp.Note = "XWayland windows: the X11 clipboard and XTest, with the read verified"
	default:
		xp.Note = "the X11 clipboard and XTest, with the read verified"
	}
	return append(out, xp)
}

// IndicatorRoute is how the recording indicator shows: a layer-shell
// surface on a Wayland compositor that offers one, else a notification;
// the X11 window in an X11 session, or on Wayland when the compositor
// cannot be asked and XWayland is there. The indicator package takes the
// same decision from what it finds when it connects.
func IndicatorRoute(wayland, reachable, layerShell, haveX bool) string {
	switch {
	case !wayland:
		return RouteX11Window
	case reachable && layerShell:
		return RouteLayerShell
	case !reachable && haveX:
		return RouteX11Window
	}
	return RouteNotification
}

func indicatorRoutes(f Facts) []Route {
	wl := f.Kind() == Wayland
	used := IndicatorRoute(wl, f.Globals != nil, f.offers(ifaceLayerShell), f.Display != "")
	var out []Route
	if wl {
		ls := Route{Name: RouteLayerShell, For: "indicator", Available: f.offers(ifaceLayerShell), Used: used == RouteLayerShell}
		switch {
		case f.Globals == nil:
			ls.Note = "cannot ask the compositor: " + f.WaylandErr
		case ls.Available:
			ls.Note = "a layer-shell surface at the bottom centre, above every window; it never takes the focus or a click"
		default:
			ls.Note = "the compositor offers no layer-shell protocol (GNOME does not): recording and nothing heard show as notifications, without the level bar"
		}
		n := Route{Name: RouteNotification, For: "indicator", Available: true, Used: used == RouteNotification,
			Note: "a desktop notification when recording starts and when nothing was heard; needs a notification service on the session D-Bus"}
		out = append(out, ls, n)
	}
	x := Route{Name: RouteX11Window, For: "indicator", Available: f.Display != "", Used: used == RouteX11Window && f.Display != ""}
	switch {
	case !x.Available:
		x.Note = "no X display (DISPLAY is not set)"
	case wl:
		x.Note = "through XWayland: only when the compositor cannot be asked"
	default:
		x.Note = "an always-on-top window at the bottom centre that never takes the focus or a click"
	}
	return append(out, x)
}

// bindingHint is where the binding goes on each desktop (docs/wayland.md
// has the steps).
func bindingHint(d Desktop) string {
	switch d {
	case Sway:
		return "in ~/.config/sway/config: bindsym Ctrl+Mod4+space exec whisperkey ptt press, and the same with bindsym --release … ptt release"
	case Hyprland:
		return "in hyprland.conf: bind = CTRL SUPER, space, exec, whisperkey ptt press and bindr = CTRL SUPER, space, exec, whisperkey ptt release"
	case GNOME:
		return "Settings → Keyboard → Custom Shortcuts, command `whisperkey ptt toggle` (GNOME runs shortcuts on press only)"
	case KDE:
		return "System Settings → Shortcuts → Add Command, `whisperkey ptt toggle`"
	}
	return "see docs/wayland.md"
}

// portalSettings is where the desktop lets the user change a portal
// shortcut (docs/wayland.md has the steps).
func portalSettings(d Desktop) string {
	switch d {
	case GNOME:
		return "Settings → Apps → WhisperKey, or Settings → Keyboard → View and Customize Shortcuts"
	case KDE:
		return "System Settings → Keyboard → Shortcuts → WhisperKey"
	case Hyprland:
		return "hyprland.conf binds it with the global dispatcher; hyprctl globalshortcuts names it"
	}
	return "in the desktop's shortcut settings"
}

// summary is the tray's line: how dictation starts and where text goes.
func summary(f Facts, routes []Route) string {
	if f.Kind() != Wayland {
		return ""
	}
	used := func(name string) bool {
		return slices.ContainsFunc(routes, func(r Route) bool { return r.Name == name && r.Used })
	}
	s := "Wayland: bind `whisperkey ptt` to a key in your desktop"
	switch {
	case used(RoutePortal):
		s = "Wayland: the record hotkey is your desktop's shortcut (GlobalShortcuts portal)"
	case used(RouteEvdev):
		s = "Wayland: the hotkeys of config.yaml work in every window (the keyboards are read directly)"
	case f.Display != "":
		s += " (the hotkey works in X11 windows only)"
	}
	if !used(RouteVirtualKeyboard) && !used(RouteRemoteDesktop) {
		s += "; text stays on the clipboard in Wayland windows (" + missingPaste(f) + ")"
	}
	return s
}

func missingPaste(f Facts) string {
	if f.Globals == nil {
		return "the compositor cannot be asked"
	}
	return "no virtual-keyboard protocol here"
}

// Uses reports whether the route named name is used.
func (r Report) Uses(name string) bool {
	return slices.ContainsFunc(r.Routes, func(rt Route) bool { return rt.Name == name && rt.Used })
}

// PTTHint is where to bind `whisperkey ptt` on desktop d: the fix when
// the portal's shortcut is refused.
func PTTHint(d Desktop) string { return bindingHint(d) }

// Print writes the report for `whisperkey doctor`.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "\nDesktop session: %s (%s)\n", r.Type, r.Desktop)
	for _, group := range []string{"hotkey", "paste", "indicator"} {
		fmt.Fprintf(w, "  %s routes:\n", group)
		for _, rt := range r.Routes {
			if rt.For != group {
				continue
			}
			mark := "✘"
			switch {
			case rt.Used:
				mark = "✔"
			case rt.Available:
				mark = "·"
			}
			fmt.Fprintf(w, "    %s %-24s %s\n", mark, rt.Name, rt.Note)
		}
	}
	if r.Summary != "" {
		fmt.Fprintf(w, "  %s\n", r.Summary)
	}
}
