package tray

import (
	"log/slog"
	"runtime"
	"sync/atomic"

	"fyne.io/systray"
)

// startLoop runs systray's window and message loop on one locked thread:
// Win32 delivers a window's messages only to the thread that created it.
// systray calls onReady once the window exists. onClosed runs when the
// window goes without stop: taskkill and installers send WM_CLOSE to ask an
// app to quit, and Windows ends the session with WM_ENDSESSION.
func startLoop(onReady, onClosed func(), _ *slog.Logger) (stop func(), err error) {
	done := make(chan struct{})
	var stopping atomic.Bool
	go func() {
		defer close(done)
		runtime.LockOSThread()
		systray.Run(onReady, func() {
			if !stopping.Load() {
				onClosed()
			}
		})
	}()
	return func() {
		stopping.Store(true)
		systray.Quit()
		<-done
	}, nil
}
