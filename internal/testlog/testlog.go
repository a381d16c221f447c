package testlog

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// New returns a logger at level whose records go to t.Log, so they show with
// the test that made them (on failure, or always with -v). Records that
// goroutines write after the test has ended are dropped instead of panicking.
func New(t testing.TB, level slog.Level) *slog.Logger {
	w := &writer{t: t}
	t.Cleanup(w.stop)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// Discard returns a logger that drops every record.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

type writer struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimSpace(string(p)))
	}
	return len(p), nil
}

func (w *writer) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
}
