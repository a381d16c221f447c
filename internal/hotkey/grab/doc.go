// Package grab registers hotkey combinations with the operating system: on Linux through Xlib directly, since golang.design/x/hotkey panics in its package init without an X display, on Windows through a low-level keyboard hook, which sees key-ups and modifier-only chords such as ctrl+win that RegisterHotKey cannot, and elsewhere (macOS) through golang.design/x/hotkey.
package grab
