//go:build (linux && cgo) || windows

package indicator

import (
	"runtime"
	"sync"
	"time"
)

// windowThread is the one goroutine, on a locked OS thread, that owns the
// native window (X11 and Win32 windows belong to the thread that made them);
// the others hand it functions of the window's handle H and wait for them.
type windowThread[H any] struct {
	reqs chan func(H)
	quit chan struct{}
	done chan struct{}
}

// startWindowThread opens the window on a new locked thread and serves it
// until stop: open returns the handle and what closes it, and tick runs
// every period, for repaints.
func startWindowThread[H any](open func() (H, func(), error), period time.Duration, tick func(H)) (*windowThread[H], error) {
	t := &windowThread[H]{reqs: make(chan func(H)), quit: make(chan struct{}), done: make(chan struct{})}
	started := make(chan error, 1)
	go t.run(open, period, tick, started)
	if err := <-started; err != nil {
		return nil, err
	}
	return t, nil
}

func (t *windowThread[H]) run(open func() (H, func(), error), period time.Duration, tick func(H), started chan<- error) {
	defer close(t.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	h, closeWindow, err := open()
	if err != nil {
		started <- err
		return
	}
	defer closeWindow()
	started <- nil
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	for {
		select {
		case <-t.quit:
			return
		case f := <-t.reqs:
			f(h)
		case <-ticker.C:
			tick(h)
		}
	}
}

// do runs f on the window's thread and waits for it.
func (t *windowThread[H]) do(f func(H)) {
	ran := make(chan struct{})
	select {
	case t.reqs <- func(h H) { f(h); close(ran) }:
		<-ran
	case <-t.done:
	}
}

// close closes the window and ends the thread; it cannot fail.
func (t *windowThread[H]) close() error {
	close(t.quit)
	<-t.done
	return nil
}

// windowState is what the OS window shares between its thread and the
// callers: where it stands and what it shows, to repaint what the system
// erased (an X11 Expose, a Win32 WM_PAINT).
type windowState struct {
	mu       sync.Mutex
	rect     Rect
	lastView view
}

// bounds is where the window was last placed.
func (s *windowState) bounds() Rect {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rect
}

func (s *windowState) placed(r Rect) {
	s.mu.Lock()
	s.rect = r
	s.mu.Unlock()
}

func (s *windowState) shows(v view) {
	s.mu.Lock()
	s.lastView = v
	s.mu.Unlock()
}

// shown is what the window shows, as shows last set it.
func (s *windowState) shown() view {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastView
}
