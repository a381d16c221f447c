// Package evdev reads the keyboards under /dev/input directly (Linux, no cgo) and matches the hotkey combinations on them: the last-resort hotkey on Wayland, where no application may grab a key, for users in the input group.
package evdev
