package service

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// trace notes what the services did, in order.
type trace struct {
	mu  sync.Mutex
	got []string
}

func (t *trace) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.got = append(t.got, s)
}

func (t *trace) events() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.got)
}

// Services start in order and stop in reverse, each stop waiting for the
// one after it; one that fails is served again, and one that finishes is
// not.
func TestSupervisorOrderAndRestart(t *testing.T) {
	var tr trace
	started := make(chan string, 10)
	part := func(name string) Service {
		return Func(func(ctx context.Context) error {
			tr.add("start " + name)
			started <- name
			<-ctx.Done()
			tr.add("stop " + name)
			return nil
		})
	}
	tests := []struct {
		name string
		fail func(runs int) error // the flaky service's answer on its runs-th run
		runs int                  // how many times it must run
	}{
		{name: "fails twice", fail: func(runs int) error {
			if runs <= 2 {
				return errors.New("broken")
			}
			return nil
		}, runs: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr = trace{}
			runs := 0
			flakyDone := make(chan struct{})
			flaky := Func(func(ctx context.Context) error {
				runs++
				if tt.fail != nil {
					if err := tt.fail(runs); err != nil {
						return err
					}
				}
				close(flakyDone) // finished: not served again
				return nil
			})
			s := New(slog.New(slog.DiscardHandler))
			s.Add("a", part("a"))
			s.Add("flaky", flaky)
			s.Add("b", part("b"))
			s.Add("c", part("c"))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Serve(ctx) }()
			for range 3 {
				<-started
			}
			<-flakyDone
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if runs != tt.runs {
				t.Errorf("the flaky service ran %d times, want %d", runs, tt.runs)
			}
			ev := tr.events()
			if !slices.Equal(ev[3:], []string{"stop c", "stop b", "stop a"}) {
				t.Errorf("stopped as %q, want c, b, a", ev[3:])
			}
		})
	}
}

// Closer closes its part when its turn to stop comes.
func TestCloser(t *testing.T) {
	closed := false
	s := New(slog.New(slog.DiscardHandler))
	s.Add("part", Closer(func() { closed = true }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Serve(ctx); err != nil || !closed {
		t.Fatalf("Serve = %v, closed %v", err, closed)
	}
}
