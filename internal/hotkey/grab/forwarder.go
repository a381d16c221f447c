package grab

import (
	"sync"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// forwarder hands a grab's edges to the Listener in order. Its queue is unbounded, so
// the producer (a keyboard hook, the X event loop, x/hotkey's channels) never waits
// for the Listener; one goroutine moves edges from the queue to Edges until close.
type forwarder struct {
	edges chan hotkey.Edge
	mu    sync.Mutex
	queue []hotkey.Edge
	shut  bool          // guarded by mu: close ran, push drops edges
	wake  chan struct{} // one pending signal: the queue may have edges
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// newForwarder starts a forwarder; its owner stops it with close.
func newForwarder() *forwarder {
	f := &forwarder{
		edges: make(chan hotkey.Edge),
		wake:  make(chan struct{}, 1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go f.run()
	return f
}

// Edges delivers the pushed edges in the order they were pushed.
func (f *forwarder) Edges() <-chan hotkey.Edge { return f.edges }

// push queues e without blocking. After close it drops e.
func (f *forwarder) push(e hotkey.Edge) {
	f.mu.Lock()
	if f.shut {
		f.mu.Unlock()
		return
	}
	f.queue = append(f.queue, e)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default: // a signal is pending; run takes the whole queue
	}
}

func (f *forwarder) run() {
	defer close(f.done)
	for {
		select {
		case <-f.wake:
		case <-f.stop:
			return
		}
		for {
			f.mu.Lock()
			if len(f.queue) == 0 {
				f.mu.Unlock()
				break
			}
			e := f.queue[0]
			f.queue = f.queue[1:]
			f.mu.Unlock()
			select {
			case f.edges <- e:
			case <-f.stop:
				return
			}
		}
	}
}

// close stops the goroutine and waits for it; edges nobody read are dropped, and Edges
// stays open (the Listener stops reading a released grab). Idempotent.
func (f *forwarder) close() {
	f.once.Do(func() {
		f.mu.Lock()
		f.shut, f.queue = true, nil
		f.mu.Unlock()
		close(f.stop)
		<-f.done
	})
}
