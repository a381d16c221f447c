// Package portal is a client of the XDG desktop portal on the session bus: the GlobalShortcuts portal (the record hotkey on Wayland) and the RemoteDesktop portal (the paste keystroke where the compositor offers no virtual keyboard).
package portal
