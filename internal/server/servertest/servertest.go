package servertest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
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

// Do sends req and returns the server's answer: its status, headers and
// whole body. A request that gets no answer fails t.
func Do(t testing.TB, req *http.Request) (status int, header http.Header, body []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}
