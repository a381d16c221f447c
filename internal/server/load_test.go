package server_test

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/server"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Fifty clients at once on loopback, against the real engine: each is
// answered with the right text or with 429 and a Retry-After, nothing else;
// the queue admits its share; the server's memory stays bounded; and
// afterwards it serves normally. Bounded: 50 requests, 4 minutes.
func TestLoad50Concurrent(t *testing.T) {
	const (
		clients = 50
		queue   = 4
	)
	eng := openEngine(t)
	srv := start(t, server.Config{Queue: queue}, eng)
	const short = "Open the window and let the fresh air in."
	wav := wavBytes(t, testenv.Speech(t, short))

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	base := rss()
	if base == 0 && runtime.GOOS == "linux" {
		t.Fatal("cannot read VmRSS from /proc/self/status")
	}
	sampled := sampleRSS(ctx, 20*time.Millisecond)

	type outcome struct {
		status int
		text   string
		retry  string
		err    error
		took   time.Duration
	}
	results := make([]outcome, clients)
	var wg sync.WaitGroup
	startGun := make(chan struct{})
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, ctype := form(t, part{name: "file", filename: "s.wav", data: wav}, part{name: "response_format", data: []byte("text")},
				part{name: "language", data: []byte("en")})
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.url+"/v1/audio/transcriptions", body)
			req.Header.Set("Content-Type", ctype)
			<-startGun
			began := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				results[i] = outcome{err: err}
				return
			}
			defer resp.Body.Close()
			b := make([]byte, 0, 512)
			buf := make([]byte, 512)
			for {
				n, rerr := resp.Body.Read(buf)
				b = append(b, buf[:n]...)
				if rerr != nil {
					break
				}
			}
			results[i] = outcome{status: resp.StatusCode, text: string(b), retry: resp.Header.Get("Retry-After"), took: time.Since(began)}
		}()
	}
	began := time.Now()
	close(startGun)
	wg.Wait()
	wall := time.Since(began)
	cancel()
	peak := sampled()

	var ok, busy int
	for i, r := range results {
		switch {
		case r.err != nil:
			t.Errorf("client %d: %v", i, r.err)
		case r.status == http.StatusOK:
			ok++
			if wer := whisper.WordErrorRate(short, r.text); wer > 0.2 {
				t.Errorf("client %d: text %q, WER %.2f", i, r.text, wer)
			}
		case r.status == http.StatusTooManyRequests:
			busy++
			if n, err := strconv.Atoi(r.retry); err != nil || n < 1 {
				t.Errorf("client %d: 429 with Retry-After %q, want whole seconds ≥ 1", i, r.retry)
			}
		default:
			t.Errorf("client %d: status %d %q, want 200 or 429", i, r.status, r.text)
		}
	}
	growth := (peak - base) / 1024
	t.Logf("%d clients: %d transcribed, %d told 429, in %s; test process RSS %d MiB before, peak %d MiB (+%d MiB)",
		clients, ok, busy, wall.Round(time.Millisecond), base/1024, peak/1024, growth)
	if ok < queue+1 {
		t.Errorf("only %d requests were transcribed; the queue (%d) plus the engine should take at least %d", ok, queue, queue+1)
	}
	if ok+busy != clients {
		t.Errorf("%d answered 200 or 429, want all %d", ok+busy, clients)
	}
	// The queue bounds the decoded clips held (queue+1); uploads are read
	// before admission, so all 50 small ones may be in memory at once.
	if base == 0 {
		t.Logf("no /proc on %s: RSS not measured", runtime.GOOS)
	} else if growth > 150 {
		t.Errorf("RSS grew by %d MiB under load, want under 150 MiB", growth)
	}

	// And it serves normally afterwards.
	body, ctype := form(t, part{name: "file", filename: "s.wav", data: wav}, part{name: "response_format", data: []byte("text")})
	if a := post(t, srv.url, "", body, ctype); a.status != 200 || whisper.WordErrorRate(short, string(a.body)) > 0.2 {
		t.Fatalf("after the load: %d %q", a.status, a.body)
	}
	http.DefaultClient.CloseIdleConnections()
}
