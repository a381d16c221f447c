package remote_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/remote"
	"github.com/whisperkey/whisperkey/internal/server"
	"github.com/whisperkey/whisperkey/internal/server/servertest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

func TestMain(m *testing.M) {
	testenv.ServeWorkerIfAsked()
	goleak.VerifyTestMain(m)
}

const (
	said = "Remember to buy milk, bread and eggs on the way home."
	key  = "sk-secret-remote-7f3a"
)

// newLog logs everything at debug level into buf, to look for secrets.
func newLog(buf *testenv.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func openEngine(t testing.TB) *backend.Loaded {
	t.Helper()
	opt := backend.Options{EngineRoot: filepath.Dir(testenv.EngineDir(t)), Device: "cpu", Report: &gpu.Report{},
		Engine: testenv.WorkerOptions()}
	l, err := backend.Open(context.Background(), testenv.Model(t, "base"), opt, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func TestCheckURL(t *testing.T) {
	cases := []struct {
		url  string
		says string // "" means valid
	}{
		{"http://127.0.0.1:8765", ""},
		{"https://api.openai.com/v1", ""},
		{"http://gpu-box:8765/", ""},
		{"ftp://gpu-box/", "http:// or https://"},
		{"gpu-box:8765", "http:// or https://"},
		{"127.0.0.1:8765", "cannot be parsed"},
		{"http://", "no host"},
		{"http://user:hunter2@gpu-box:8765/%zz", "cannot be parsed"},
	}
	for _, tc := range cases {
		_, err := remote.CheckURL(tc.url)
		switch {
		case tc.says == "" && err != nil:
			t.Errorf("CheckURL(%q) = %v, want ok", tc.url, err)
		case tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)):
			t.Errorf("CheckURL(%q) = %v, want an error saying %q", tc.url, err, tc.says)
		}
	}
}

// Through our own server and the real engine: the text comes back, the key
// is checked, and neither key nor text appears in the client's log.
func TestTranscribeThroughServe(t *testing.T) {
	eng := openEngine(t)
	base, _ := servertest.Start(t, server.Config{APIKey: key}, testlog.Discard(), eng)
	speech := testenv.Speech(t, said)
	var logs testenv.Buffer
	c, err := remote.New(remote.Config{URL: base, APIKey: key}, newLog(&logs))
	if err != nil {
		t.Fatal(err)
	}
	if c.Host() != strings.TrimPrefix(base, "http://") {
		t.Fatalf("Host() = %q for %s", c.Host(), base)
	}
	opt := whisper.DefaultOptions()
	opt.Language = "en"
	res, err := c.Transcribe(context.Background(), speech, opt)
	if err != nil {
		t.Fatal(err)
	}
	// The language comes back as the local engine writes it: a code, its
	// probability and the decoding path (on the CPU, the short window's),
	// not OpenAI's "english".
	local, err := eng.Transcribe(context.Background(), speech, opt)
	if err != nil {
		t.Fatal(err)
	}
	if wer := whisper.WordErrorRate(said, res.Text); wer > 0.15 || res.Language != "en" || res.LanguageProb != 1 ||
		res.Path != local.Path || len(res.Segments) == 0 || res.Duration < 2 {
		t.Fatalf("remote result %+v (WER %.2f); the local engine's path %q", res, wer, local.Path)
	}

	wrong, _ := remote.New(remote.Config{URL: base, APIKey: "sk-wrong-key-0000"}, newLog(&logs))
	_, err = wrong.Transcribe(context.Background(), speech, opt)
	if !errors.Is(err, remote.ErrRemote) || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "sk-wrong") {
		t.Fatalf("wrong key: %v; want ErrRemote naming 401 and not the key", err)
	}
	for _, secret := range []string{key, "sk-wrong-key", "milk", "bread"} {
		if strings.Contains(strings.ToLower(logs.String()), strings.ToLower(secret)) {
			t.Fatalf("the client logged %q:\n%s", secret, logs.String())
		}
	}
	http.DefaultClient.CloseIdleConnections()
}

// A server that redirects to another host must not receive the key there;
// a redirect on the same host keeps it.
func TestRedirectKeepsKeyOnItsHost(t *testing.T) {
	type seen struct{ path, auth string }
	var mu sync.Mutex
	var got []seen
	record := func(r *http.Request) {
		mu.Lock()
		got = append(got, seen{r.Host + r.URL.Path, r.Header.Get("Authorization")})
		mu.Unlock()
	}
	answer := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"text":"hello from elsewhere","language":"english","duration":1}`))
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(r)
		answer(w, r)
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(r)
		switch r.URL.Path {
		case "/v1/audio/transcriptions": // to the same host first
			http.Redirect(w, r, "/moved/v1/audio/transcriptions", http.StatusTemporaryRedirect)
		case "/moved/v1/audio/transcriptions": // then away
			http.Redirect(w, r, other.URL+"/v1/audio/transcriptions", http.StatusPermanentRedirect)
		}
	}))
	defer first.Close()

	var logs testenv.Buffer
	c, err := remote.New(remote.Config{URL: first.URL, APIKey: key}, newLog(&logs))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Transcribe(context.Background(), make([]float32, audio.SampleRate), whisper.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "hello from elsewhere" {
		t.Fatalf("text %q", res.Text)
	}
	firstHost, otherHost := strings.TrimPrefix(first.URL, "http://"), strings.TrimPrefix(other.URL, "http://")
	want := []seen{
		{firstHost + "/v1/audio/transcriptions", "Bearer " + key},
		{firstHost + "/moved/v1/audio/transcriptions", "Bearer " + key},
		{otherHost + "/v1/audio/transcriptions", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("requests %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if strings.Contains(logs.String(), key) {
		t.Fatalf("the key was logged:\n%s", logs.String())
	}
}

// A server that does not answer in time is given up on with ErrRemote; a
// server that is not there fails at once.
func TestTimeoutAndUnreachable(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	c, err := remote.New(remote.Config{URL: slow.URL, Timeout: 300 * time.Millisecond}, newLog(&testenv.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	_, err = c.Transcribe(context.Background(), make([]float32, audio.SampleRate), whisper.DefaultOptions())
	if took := time.Since(began); !errors.Is(err, remote.ErrRemote) || took > 3*time.Second {
		t.Fatalf("slow server: %v after %s; want ErrRemote after about 300ms", err, took)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://user:hunter2@" + ln.Addr().String()
	ln.Close()
	c, _ = remote.New(remote.Config{URL: closed}, newLog(&testenv.Buffer{}))
	_, err = c.Transcribe(context.Background(), make([]float32, audio.SampleRate), whisper.DefaultOptions())
	if !errors.Is(err, remote.ErrRemote) || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("closed port: %v; want ErrRemote saying refused, without the password", err)
	}
}

// The fallback: remote first; when the server is gone the local engine
// answers and the user is told once, not per dictation; when the server is
// back, they are told that too.
func TestFallbackToLocal(t *testing.T) {
	eng := openEngine(t)
	speech := testenv.Speech(t, said)
	// The "server machine" is a second server over the same engine; what
	// matters is which path answered, which the notices and the server's
	// availability tell apart.
	base, stop := servertest.Start(t, server.Config{}, testlog.Discard(), eng)
	c, err := remote.New(remote.Config{URL: base}, newLog(&testenv.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	local := &countingTranscriber{next: eng}
	f := remote.NewFallback(c, local, func(msg string) { notices = append(notices, msg) }, newLog(&testenv.Buffer{}))
	opt := whisper.DefaultOptions()
	opt.Language = "en"
	check := func(step string, wantLocal int) {
		t.Helper()
		res, err := f.Transcribe(context.Background(), speech, opt)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if wer := whisper.WordErrorRate(said, res.Text); wer > 0.15 {
			t.Fatalf("%s: text %q", step, res.Text)
		}
		if local.calls != wantLocal {
			t.Fatalf("%s: local engine called %d times, want %d", step, local.calls, wantLocal)
		}
	}
	host := strings.TrimPrefix(base, "http://")
	check("server up", 0)
	if f.Status() != "Remote: "+host || len(notices) != 0 {
		t.Fatalf("status %q, notices %q", f.Status(), notices)
	}
	stop()
	check("server down", 1)
	check("server still down", 2)
	if len(notices) != 1 || notices[0] != "Remote server "+host+" failed — using the local engine" {
		t.Fatalf("notices %q, want one saying the local engine is used", notices)
	}
	if !strings.Contains(f.Status(), "using the local engine") {
		t.Fatalf("status while down: %q", f.Status())
	}
	// Back on the same port.
	ln, err := net.Listen("tcp", host)
	if err != nil {
		t.Skipf("cannot listen on %s again to bring the server back: %v", host, err)
	}
	srv, _ := server.New(server.Config{Addr: host}, slog.New(slog.NewTextHandler(io.Discard, nil)), eng)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	var once sync.Once
	stopAgain := func() { once.Do(func() { cancel(); <-done }) }
	defer stopAgain()
	check("server back", 2)
	if len(notices) != 2 || !strings.HasSuffix(notices[1], "is back") || f.Status() != "Remote: "+host {
		t.Fatalf("after recovery: notices %q, status %q", notices, f.Status())
	}

	// No local engine: the remote error is the answer.
	stopAgain()
	alone := remote.NewFallback(c, nil, nil, newLog(&testenv.Buffer{}))
	if _, err := alone.Transcribe(context.Background(), speech, opt); !errors.Is(err, remote.ErrRemote) {
		t.Fatalf("without a local engine: %v, want ErrRemote", err)
	}
	http.DefaultClient.CloseIdleConnections()
}

type countingTranscriber struct {
	next  remote.Transcriber
	calls int
}

func (c *countingTranscriber) Transcribe(ctx context.Context, s []float32, o whisper.Options) (*whisper.Result, error) {
	c.calls++
	return c.next.Transcribe(ctx, s, o)
}

// A remote engine equals the local one: the same model and settings give the
// same words, language and path through `serve` as on this machine. The
// audio goes as float samples (no rounding), and the vocabulary and the style
// prompt reach the server apart, as the local engine takes them.
func TestRemoteGivesTheLocalWords(t *testing.T) {
	eng := openEngine(t)
	base, _ := servertest.Start(t, server.Config{}, testlog.Discard(), eng)
	// A machine under CI's parallel load may take long; the words are the point.
	c, err := remote.New(remote.Config{URL: base, Timeout: 5 * time.Minute}, testlog.Discard())
	if err != nil {
		t.Fatal(err)
	}
	clips := []testenv.Clip{{Name: "espeak Siobhan", Samples: testenv.Speech(t, "Please send the report to Siobhan before lunch.")}}
	for _, cl := range testenv.RealSpeech(t) {
		if len(clips) < 3 && len(cl.Samples) < 6*audio.SampleRate {
			clips = append(clips, cl)
		}
	}
	plain := whisper.DefaultOptions()
	words := plain
	words.Language, words.Vocabulary, words.InitialPrompt = "en", []string{"Siobhan", "Aoife"}, "Hello, Anna. Let's meet at 3 pm."
	for _, cl := range clips {
		for name, o := range map[string]whisper.Options{"language detected": plain, "vocabulary and prompt": words} {
			local, err := eng.Transcribe(context.Background(), cl.Samples, o)
			if err != nil {
				t.Fatal(err)
			}
			rem, err := c.Transcribe(context.Background(), cl.Samples, o)
			if err != nil {
				t.Fatal(err)
			}
			if rem.Text != local.Text || rem.Language != local.Language || rem.Path != local.Path ||
				rem.LanguageProb != local.LanguageProb || len(rem.Segments) != len(local.Segments) {
				t.Errorf("%s, %s:\nremote %q (%s %.3f, %s, %d segments)\nlocal  %q (%s %.3f, %s, %d segments)", cl.Name, name,
					rem.Text, rem.Language, rem.LanguageProb, rem.Path, len(rem.Segments),
					local.Text, local.Language, local.LanguageProb, local.Path, len(local.Segments))
			}
		}
	}
}

// A busy server (429) or one unavailable for now (503) that says when to
// come back is asked again then; one that asks for a long wait, or gives no
// Retry-After, fails at once so the dictation can go to the local engine.
func TestRetryAfter(t *testing.T) {
	ok := `{"text":"Hello there.","language":"english","duration":1}`
	tests := []struct {
		name     string
		answers  []int  // status of each attempt
		after    string // Retry-After on the busy answers
		want     string // "" means the text comes back
		attempts int
	}{
		{"429 then 200", []int{429, 200}, "1", "", 2},
		{"503 twice then 200", []int{503, 503, 200}, "0", "", 3},
		{"429 three times", []int{429, 429, 429}, "0", "429", 3},
		{"503 asks a minute", []int{503}, "60", "503", 1},
		{"429 without Retry-After", []int{429}, "", "429", 1},
		{"500 is not retried", []int{500}, "0", "500", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				code := tt.answers[min(n, len(tt.answers)-1)]
				n++
				mu.Unlock()
				if code == http.StatusOK {
					_, _ = io.WriteString(w, ok)
					return
				}
				if tt.after != "" {
					w.Header().Set("Retry-After", tt.after)
				}
				w.WriteHeader(code)
			}))
			defer srv.Close()
			c, err := remote.New(remote.Config{URL: srv.URL}, testlog.Discard())
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Transcribe(context.Background(), make([]float32, audio.SampleRate), whisper.DefaultOptions())
			mu.Lock()
			defer mu.Unlock()
			switch {
			case tt.want == "" && (err != nil || res.Text != "Hello there." || res.Language != "en"):
				t.Fatalf("got %+v, %v; want the text, in English", res, err)
			case tt.want != "" && (err == nil || !errors.Is(err, remote.ErrRemote) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want ErrRemote naming %s", err, tt.want)
			case n != tt.attempts:
				t.Fatalf("%d requests, want %d", n, tt.attempts)
			}
		})
	}
}
