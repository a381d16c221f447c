// Package desktop wires the dictation app to the desktop: tray, hotkeys, microphone, clipboard, config and engine.
package desktop
