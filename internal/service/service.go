package service

import (
	"context"
	"log/slog"
	"time"
)

// Service is a long-lived part: Serve runs it until ctx ends. An error
// before then is a failure and the supervisor serves it again; nil means
// the part has finished and is not restarted. A panic is not recovered: it
// is a bug, and ends the app as it would without a supervisor.
type Service interface {
	Serve(ctx context.Context) error
}

// Func is a function as a Service.
type Func func(ctx context.Context) error

// Serve is Service's.
func (f Func) Serve(ctx context.Context) error { return f(ctx) }

// Closer is a part opened before the supervisor starts, as a Service: it
// runs until its turn to stop, then close ends it.
func Closer(close func()) Service {
	return Func(func(ctx context.Context) error {
		<-ctx.Done()
		close()
		return nil
	})
}

// The restart delay after a failure: it doubles with each failure in a row,
// up to maxBackoff, so a part that cannot run does not spin.
const (
	firstBackoff = 100 * time.Millisecond
	maxBackoff   = 30 * time.Second
)

// Supervisor runs services. Unlike suture (github.com/thejerf/suture/v4),
// which stops its services all at once and gives up on one that takes over
// its timeout, it stops them one at a time in reverse order and waits for
// each: a part may then rely on the parts started before it (the app on the
// engine and the microphone) until it has stopped, and no goroutine outlives
// Serve.
type Supervisor struct {
	log      *slog.Logger
	services []named
}

type named struct {
	name string
	svc  Service
}

// New is a supervisor with no services.
func New(log *slog.Logger) *Supervisor { return &Supervisor{log: log} }

// Add appends svc, named for the log, to the services Serve starts; it must
// be called before Serve.
func (s *Supervisor) Add(name string, svc Service) { s.services = append(s.services, named{name, svc}) }

// Serve starts the services in the order they were added, serves again one
// that fails, and when ctx ends stops them in reverse order, each after the
// one added after it has returned. It returns once all have.
func (s *Supervisor) Serve(ctx context.Context) error {
	type running struct {
		cancel context.CancelFunc
		done   chan struct{}
	}
	// Each service's context is its own: ending ctx must not stop them all
	// at once.
	base := context.WithoutCancel(ctx)
	runs := make([]running, len(s.services))
	for i, n := range s.services {
		sctx, cancel := context.WithCancel(base)
		runs[i] = running{cancel: cancel, done: make(chan struct{})}
		go func() {
			defer close(runs[i].done)
			s.supervise(sctx, n)
		}()
	}
	<-ctx.Done()
	for i := len(runs) - 1; i >= 0; i-- {
		runs[i].cancel()
		<-runs[i].done
	}
	return nil
}

// supervise serves n until ctx ends or it finishes, restarting it after
// each failure.
func (s *Supervisor) supervise(ctx context.Context, n named) {
	backoff := firstBackoff
	for {
		err := n.svc.Serve(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		s.log.Warn("service failed; restarting it", "service", n.name, "err", err, "in", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}
