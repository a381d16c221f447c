package power

import "log/slog"

// Watcher reports resumes from sleep until Close.
type Watcher struct {
	os      *osWatcher
	resumed chan struct{}
}

// Watch starts listening. It fails when there is nothing to listen to (no system
// bus); the app then runs without resume checks.
func Watch(log *slog.Logger) (*Watcher, error) {
	w := &Watcher{resumed: make(chan struct{}, 1)}
	o, err := newOSWatcher(log.With("pkg", "power"), w.notify)
	if err != nil {
		return nil, err
	}
	w.os = o
	return w, nil
}

// Resumed receives a value after each wake from sleep. Resumes that come while
// one is still unread are merged into it.
func (w *Watcher) Resumed() <-chan struct{} { return w.resumed }

// Close stops listening. Idempotent.
func (w *Watcher) Close() error { return w.os.close() }

func (w *Watcher) notify() {
	select {
	case w.resumed <- struct{}{}:
	default: // one unread resume already asks for the checks
	}
}
