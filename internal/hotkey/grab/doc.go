// Package grab registers hotkey combinations with the operating system: on Linux through Xlib directly, since golang.design/x/hotkey panics in its package init without an X display, and elsewhere (Windows, macOS) through golang.design/x/hotkey.
package grab
