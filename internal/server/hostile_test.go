package server_test

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio/audiotest"
	"github.com/whisperkey/whisperkey/internal/server"
)

// Hostile uploads get a clear 4xx before any engine work, and the server
// keeps serving: issue 27 items 1, 2, 10 and 11. No engine is needed, as
// none of these may reach it.
func TestHostileUploadsRefused(t *testing.T) {
	badRate := audiotest.BadRateFLAC()
	random := make([]byte, 16<<10)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	random[0] = 'Q' // not any format's magic
	srv := start(t, server.Config{MaxAudio: 15 * time.Minute}, nil)
	cases := []struct {
		name   string
		parts  []part
		status int
		says   string
	}{
		{"FLAC at 1 Hz", []part{{"file", "b.flac", badRate}}, 400, "1 Hz"},
		{"Vorbis at 1 Hz", []part{{"file", "b.ogg", audiotest.VorbisAtRate(t, 1)}}, 400, "1 Hz"},
		{"68-minute FLAC of 13 KB", []part{{"file", "long.flac", audiotest.SilentFLAC(16000, 68*60)}}, 413, "longer than 15m0s"},
		{"68-minute FLAC of 1 KB", []part{{"file", "long.flac", audiotest.SilentFLAC(1000, 68*60)}}, 413, "longer than 15m0s"},
		{"random bytes are not echoed", []part{{"file", "x.bin", random}}, 400, "not audio"},
		{"a 64 KiB + 1 prompt", []part{{"prompt", "", bytes.Repeat([]byte("a"), 64<<10+1)}, {"file", "b.flac", badRate}}, 400, "longer than 64 KiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, ctype := form(t, tc.parts...)
			a := post(t, srv.url, "", body, ctype)
			msg, _, _, _ := apiErr(t, a)
			if a.status != tc.status || !strings.Contains(msg, tc.says) {
				t.Fatalf("status %d %q; want %d saying %q", a.status, msg, tc.status, tc.says)
			}
			if len(a.body) > 1024 {
				t.Fatalf("error body of %d bytes: %.300s…", len(a.body), a.body)
			}
		})
	}
}

// Paths are quoted back capped, in the 404 body and the access log.
func TestLongPathNotEchoed(t *testing.T) {
	var logged bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logged}, nil))
	srv, err := server.New(server.Config{Addr: "127.0.0.1:0"}, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	path := "/" + strings.Repeat("x", 100<<10)
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil)
	rec := &recorder{header: http.Header{}}
	h.ServeHTTP(rec, req)
	mu.Lock()
	defer mu.Unlock()
	if rec.code != 404 || rec.body.Len() > 1024 || logged.Len() > 1024 {
		t.Fatalf("404 body %d bytes, log line %d bytes; want both under 1 KiB (status %d)", rec.body.Len(), logged.Len(), rec.code)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// recorder is a minimal http.ResponseWriter for calling a Handler directly.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(c int) {
	if r.code == 0 {
		r.code = c
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(200)
	return r.body.Write(b)
}

// A web page cannot use the server: a browser's Origin is refused unless
// allowed, and a Host other than loopback or the configured names (DNS
// rebinding) too. Programs send no Origin and pass.
func TestBrowserRequestsRefused(t *testing.T) {
	srv := start(t, server.Config{AllowedOrigins: []string{"https://ok.example"}, AllowedHosts: []string{"dictation.lan"}}, nil)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.url, "http://"))
	cases := []struct {
		name, origin, host string
		status             int
	}{
		{"no Origin", "", "", 200},
		{"evil Origin", "https://evil.example", "", 403},
		{"null Origin", "null", "", 403},
		{"allowed Origin", "https://ok.example", "", 200},
		{"rebound Host", "", "evil.example:" + port, 403},
		{"localhost Host", "", "localhost:" + port, 200},
		{"configured Host", "", "dictation.lan:" + port, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, srv.url+"/v1/models", nil)
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			a := do(t, req)
			if a.status != tc.status {
				t.Fatalf("status %d %s; want %d", a.status, a.body, tc.status)
			}
			if tc.status == 200 && tc.origin != "" && a.header.Get("Access-Control-Allow-Origin") != tc.origin {
				t.Fatalf("allowed origin without Access-Control-Allow-Origin: %v", a.header)
			}
		})
	}
	// The multipart POST a page can send without a preflight is refused too.
	body, ctype := form(t, part{"file", "a.wav", []byte("RIFF")})
	req, _ := http.NewRequest(http.MethodPost, srv.url+"/v1/audio/transcriptions", body)
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Origin", "https://evil.example")
	if a := do(t, req); a.status != 403 {
		t.Fatalf("cross-origin POST: %d %s", a.status, a.body)
	}
}

// The bearer scheme is case-insensitive (RFC 7235): "bearer KEY" passes.
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	const key = "sk-test-0123456789"
	srv := start(t, server.Config{APIKey: key}, nil)
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		req, _ := http.NewRequest(http.MethodGet, srv.url+"/v1/models", nil)
		req.Header.Set("Authorization", scheme+" "+key)
		if a := do(t, req); a.status != 200 {
			t.Fatalf("%s KEY: %d %s", scheme, a.status, a.body)
		}
	}
}

// trickle opens a connection that sends headers for a large upload and then
// one byte a second; it returns the status line the server finally sends.
func trickle(t *testing.T, url string, done <-chan struct{}) <-chan string {
	t.Helper()
	status := make(chan string, 1)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer conn.Close()
		fmt.Fprintf(conn, "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000000\r\n\r\n--b\r\n")
		go func() {
			for {
				select {
				case <-done:
					return
				case <-time.After(time.Second):
				}
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
			}
		}()
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		line, _ := bufio.NewReader(conn).ReadString('\n')
		status <- strings.TrimSpace(line)
	}()
	return status
}

// Slow clients hold no slot: with a queue of 1, nine connections trickling a
// byte a second do not turn other requests away with 429, and each trickler
// is answered 408 once it is under the minimum rate; a stalled one too.
func TestSlowUploadsHoldNoSlot(t *testing.T) {
	srv := start(t, server.Config{Queue: 1, UploadIdleTimeout: 2 * time.Second, MinUploadRate: 1 << 10}, nil)
	done := make(chan struct{})
	defer close(done)
	var slow []<-chan string
	for range 9 {
		slow = append(slow, trickle(t, srv.url, done))
	}
	// A stalled upload: headers, then nothing.
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/audio/transcriptions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100\r\n\r\n")
	time.Sleep(500 * time.Millisecond)
	badRate := audiotest.BadRateFLAC()
	for i := range 3 {
		body, ctype := form(t, part{"file", "b.flac", badRate})
		if a := post(t, srv.url, "", body, ctype); a.status != 400 {
			t.Fatalf("request %d beside slow uploads: %d %s; want the 400 its file earns, not 429", i, a.status, a.body)
		}
	}
	for i, s := range slow {
		if got := <-s; !strings.Contains(got, "408") {
			t.Fatalf("trickling connection %d got %q; want 408", i, got)
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if line, err := bufio.NewReader(conn).ReadString('\n'); !strings.Contains(line, "408") {
		t.Fatalf("stalled upload got %q (%v); want 408", line, err)
	}
}
