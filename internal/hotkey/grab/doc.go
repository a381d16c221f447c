// Package grab registers hotkey combinations with the operating system through golang.design/x/hotkey.
package grab
