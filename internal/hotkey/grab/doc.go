// Package grab registers hotkey combinations with the operating system: directly on Xlib under Linux, through golang.design/x/hotkey on Windows and macOS.
package grab
