// Package session tells which kind of desktop session WhisperKey runs in (X11, Wayland, which desktop) and which routes for the hotkey and for pasting it offers, with what fixes a missing one.
package session
