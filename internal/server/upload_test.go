package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/server"
)

// rawUpload is a form upload over its own connection that declares
// declared bytes, sends burst of them at once, then tick bytes every gap
// until the server answers or stop is called.
type rawUpload struct {
	conn    net.Conn
	answer  chan *http.Response // the answer, or nil when none came
	stopped chan struct{}
	wg      sync.WaitGroup
	once    sync.Once
}

func startUpload(t *testing.T, url string, declared, burst, tick int, gap time.Duration) *rawUpload {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	u := &rawUpload{conn: conn, answer: make(chan *http.Response, 1), stopped: make(chan struct{})}
	const prefix = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\n"
	u.wg.Add(2)
	go func() {
		defer u.wg.Done()
		fmt.Fprintf(conn, "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n%s",
			len(prefix)+declared, prefix)
		if _, err := conn.Write(make([]byte, burst)); err != nil {
			return
		}
		for tick > 0 {
			select {
			case <-u.stopped:
				return
			case <-time.After(gap):
			}
			if _, err := conn.Write(make([]byte, tick)); err != nil {
				return
			}
		}
	}()
	go func() {
		defer u.wg.Done()
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			u.answer <- nil
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		u.answer <- resp
	}()
	t.Cleanup(u.stop)
	return u
}

// stop closes the connection, as a client that gives up does.
func (u *rawUpload) stop() {
	u.once.Do(func() {
		close(u.stopped)
		u.conn.Close()
		u.wg.Wait()
	})
}

// wait returns the server's answer: status, Retry-After and message.
func (u *rawUpload) wait(t *testing.T) (int, string, string) {
	t.Helper()
	resp := <-u.answer
	if resp == nil {
		t.Fatal("the server sent no answer")
	}
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(body)
}

// Uploads share one budget of memory: while two uploads hold it all, a
// third waits UploadWait and gets 503 with Retry-After, before any of its
// body is read; a request that arrives while it is full and that room
// frees up for within the wait gets in. No engine: none of them may reach it.
func TestUploadMemoryShared(t *testing.T) {
	const mib = 1 << 20
	srv := start(t, server.Config{MaxUploadBytes: mib, UploadMemory: 2 * mib, UploadWait: 2 * time.Second}, nil)
	prefixLen := len("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\n")
	full := mib - prefixLen // declares exactly MaxUploadBytes
	h1 := startUpload(t, srv.url, full, 100<<10, 0, 0)
	h2 := startUpload(t, srv.url, full, 100<<10, 0, 0)
	time.Sleep(500 * time.Millisecond) // both are in and hold the 2 MiB

	began := time.Now()
	status, retry, msg := startUpload(t, srv.url, 10<<10, 10<<10, 0, 0).wait(t)
	waited := time.Since(began)
	if n, err := strconv.Atoi(retry); status != http.StatusServiceUnavailable || err != nil || n < 1 ||
		!strings.Contains(msg, "uploads_busy") || !strings.Contains(msg, "2 MiB") {
		t.Fatalf("a third upload: %d, Retry-After %q, %s; want 503 uploads_busy naming the 2 MiB limit, with Retry-After", status, retry, msg)
	}
	if waited < 1500*time.Millisecond {
		t.Errorf("the third upload was turned away after %s; want it to wait the 2 s UploadWait first", waited)
	}

	// One holder gives up: its memory is free again for the next upload.
	h1.stop()
	// (Its body lacks the form's closing boundary: 400.)
	if status, _, msg := startUpload(t, srv.url, 10<<10, 10<<10, 0, 0).wait(t); status != http.StatusBadRequest {
		t.Fatalf("after a holder left: %d %s; want the 400 its body earns", status, msg)
	}

	// Full again; a request waits, and gets in when a holder leaves.
	h3 := startUpload(t, srv.url, full, 100<<10, 0, 0)
	time.Sleep(500 * time.Millisecond)
	waiting := startUpload(t, srv.url, 10<<10, 10<<10, 0, 0)
	time.Sleep(300 * time.Millisecond)
	h3.stop()
	if status, _, msg := waiting.wait(t); status != http.StatusBadRequest {
		t.Fatalf("a request waiting for room that frees up: %d %s; want the 400 its body earns", status, msg)
	}
	h2.stop()
}

// An upload still arriving at RequestTimeout gets 408 naming --timeout,
// even one fast enough for the pace rule: the deadline held only once the
// body was in (8 uploads were still open at 32 s with --timeout 20s).
func TestUploadDeadline(t *testing.T) {
	srv := start(t, server.Config{RequestTimeout: 2 * time.Second}, nil)
	began := time.Now()
	status, _, msg := startUpload(t, srv.url, 4<<20, 0, 8<<10, 200*time.Millisecond).wait(t) // 40 KiB/s, for 100 s
	took := time.Since(began)
	if status != http.StatusRequestTimeout || !strings.Contains(msg, "--timeout") {
		t.Fatalf("%d %s; want 408 naming --timeout", status, msg)
	}
	if took < 1500*time.Millisecond || took > 20*time.Second {
		t.Fatalf("answered after %s; want about the 2 s deadline", took)
	}
}

// An upload that starts fast and then trickles is cut by the pace rule
// soon after, not once its average has sunk (a 23 MiB start followed by a
// byte every 8 s averaged over 4 KiB/s for an hour and a half).
func TestUploadFastThenTrickle(t *testing.T) {
	srv := start(t, server.Config{UploadIdleTimeout: time.Second, MinUploadRate: 4 << 10}, nil)
	began := time.Now()
	status, _, msg := startUpload(t, srv.url, 4<<20, 1<<20, 1, 600*time.Millisecond).wait(t)
	if took := time.Since(began); status != http.StatusRequestTimeout || !strings.Contains(msg, "slower than 4 KiB/s") || took > 20*time.Second {
		t.Fatalf("%d %s after %s; want 408 for a slow upload within seconds", status, msg, took)
	}
}
