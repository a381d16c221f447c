package server_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio/audiotest"
	"github.com/whisperkey/whisperkey/internal/server"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Nine connections trickling a byte a second, beside valid requests on
// loopback with the real engine: every valid request is transcribed. Before
// uploads were read ahead of admission, the tricklers held every slot and
// the valid requests got 429 for as long as they lasted. Bounded: 9 + 4
// connections, 3 minutes.
func TestLoadTricklersDoNotLockOut(t *testing.T) {
	eng := openEngine(t)
	srv := start(t, server.Config{Queue: 4}, eng) // room for the 4 valid requests, not for the 9 tricklers too
	const short = "Open the window and let the fresh air in."
	wav := wavBytes(t, testenv.Speech(t, short))
	done := make(chan struct{})
	var slow []<-chan string
	for range 9 {
		slow = append(slow, trickle(t, srv.url, done))
	}
	time.Sleep(time.Second) // the tricklers are in before the valid requests
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	status := make([]int, 4)
	texts := make([]string, 4)
	for i := range status {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, ctype := form(t, part{"file", "s.wav", wav}, part{"response_format", "", []byte("text")}, part{"language", "", []byte("en")})
			resp := postFrom(t, ctx, i, srv.url, body, ctype)
			if resp == nil {
				return
			}
			defer resp.Body.Close()
			b := make([]byte, 4096)
			n, _ := resp.Body.Read(b)
			status[i], texts[i] = resp.StatusCode, string(b[:n])
		}()
		time.Sleep(200 * time.Millisecond)
	}
	wg.Wait()
	close(done)
	for i := range status {
		if status[i] != 200 || whisper.WordErrorRate(short, texts[i]) > 0.2 {
			t.Errorf("valid request %d beside 9 tricklers: %d %q", i, status[i], texts[i])
		}
	}
	for _, s := range slow {
		<-s // each ends with its 408, or when its trickling stops
	}
	http.DefaultClient.CloseIdleConnections()
}

// postFrom posts a transcription request as client i of many under ctx; one
// that gets no answer fails the test, named by i, and gives nil.
func postFrom(t *testing.T, ctx context.Context, i int, url string, body io.Reader, ctype string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/audio/transcriptions", body)
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("request %d: %v", i, err)
		return nil
	}
	return resp
}

// Twenty concurrent uploads of a 1 KB FLAC that declares 68 minutes: each
// gets 413 and the server's memory stays under 300 MB (it was 1.2 GB for one
// such file before decoders stopped at --max-audio). Bounded: 20 requests,
// 2 minutes. No engine: none of them may reach it.
func TestLoadLongFLACsBoundedMemory(t *testing.T) {
	// The length is left undeclared; a declared one would change nothing,
	// since only decoded frames count: every frame up to the limit is
	// decoded and resampled.
	flac := audiotest.HideLength(audiotest.SilentFLAC(1000, 68*60))
	if len(flac) > 1100 {
		t.Fatalf("the FLAC is %d bytes, want about 1 KB", len(flac))
	}
	srv := start(t, server.Config{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sampled := sampleRSS(ctx, 10*time.Millisecond)
	var wg sync.WaitGroup
	status := make([]int, 20)
	for i := range status {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, ctype := form(t, part{"file", "long.flac", flac})
			resp := postFrom(t, ctx, i, srv.url, body, ctype)
			if resp == nil {
				return
			}
			resp.Body.Close()
			status[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	cancel()
	peak := sampled()
	for i, s := range status {
		if s != http.StatusRequestEntityTooLarge {
			t.Errorf("request %d: status %d, want 413", i, s)
		}
	}
	t.Logf("20 concurrent 68-minute FLACs of %d bytes: peak RSS %d MiB", len(flac), peak/1024)
	if peak == 0 {
		t.Fatal("cannot read VmRSS from /proc/self/status")
	}
	if peak > 300*1024 {
		t.Fatalf("peak RSS %d MiB, want under 300 MiB", peak/1024)
	}
	http.DefaultClient.CloseIdleConnections()
}

// Retry-After follows real waits: while a long transcription runs, a
// client turned away is told to wait at least as long as it has run so
// far, not one second (it said 1 while a 20 s job ran).
func TestRetryAfterFromRealWaits(t *testing.T) {
	eng := openEngine(t)
	srv := start(t, server.Config{Queue: 1}, eng)
	long := wavBytes(t, testenv.Speech(t, strings.Repeat(said+" ", 30))) // about 90 s: seconds of work on any CPU
	short := wavBytes(t, testenv.Speech(t, "Yes."))
	send := func(wav []byte) <-chan answer {
		body, ctype := form(t, part{"file", "s.wav", wav}, part{"response_format", "", []byte("text")})
		return postAsync(srv.url, body, ctype)
	}
	first := send(long)
	const ran = 2 * time.Second
	time.Sleep(ran)
	second := send(short) // waits in the queue of one
	time.Sleep(500 * time.Millisecond)
	third := <-send(short)
	if third.status != http.StatusTooManyRequests {
		t.Fatalf("third request: %d %s; want 429 while the first runs and the second waits", third.status, third.body)
	}
	retry, err := strconv.Atoi(third.header.Get("Retry-After"))
	t.Logf("Retry-After %d s after the first request ran %s", retry, ran)
	if err != nil || retry < int(ran.Seconds()) {
		t.Fatalf("Retry-After %q; want at least the %s the running transcription has taken so far", third.header.Get("Retry-After"), ran)
	}
	for i, c := range []<-chan answer{first, second} {
		if a := <-c; a.status != 200 {
			t.Errorf("request %d: %d %s", i+1, a.status, a.body)
		}
	}
	http.DefaultClient.CloseIdleConnections()
}
