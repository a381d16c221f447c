package servertest

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/whisperkey/whisperkey/internal/server"
)

// Start serves eng with cfg, on a free loopback port unless cfg.Addr says
// otherwise, and returns its base URL and a stop that cancels Serve and
// returns its error. The test's cleanup stops it too.
func Start(t testing.TB, cfg server.Config, log *slog.Logger, eng server.Transcriber) (url string, stop func() error) {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	srv, err := server.New(cfg, log, eng)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	var once sync.Once
	var serr error
	stop = func() error {
		once.Do(func() { cancel(); serr = <-done })
		return serr
	}
	t.Cleanup(func() { _ = stop() })
	return "http://" + ln.Addr().String(), stop
}
