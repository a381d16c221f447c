package tray

import (
	"log/slog"
	"runtime"

	"fyne.io/systray"
)

// startLoop runs systray's window and message loop on one locked thread:
// Win32 delivers a window's messages only to the thread that created it.
// systray calls onReady once the window exists.
func startLoop(onReady func(), _ *slog.Logger) (stop func(), err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		systray.Run(onReady, nil)
	}()
	return func() {
		systray.Quit()
		<-done
	}, nil
}
