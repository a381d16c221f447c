package tray

import (
	"errors"
	"log/slog"
)

// startLoop fails on macOS: Cocoa requires systray.Run on the main thread,
// which the app would have to hand over from main; that is not wired yet.
func startLoop(func(), func(), *slog.Logger) (func(), error) {
	return nil, errors.New("the macOS tray needs systray.Run on the main thread; not supported yet")
}
