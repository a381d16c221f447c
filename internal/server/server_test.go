package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/gpu"
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

const said = "Remember to buy milk, bread and eggs on the way home."

// testLog writes to the test's log, so a failure shows what the server said.
func testLog(t testing.TB) *slog.Logger {
	return testlog.New(t, slog.LevelDebug)
}

// openEngine starts the real CPU engine on the base model, as serve does.
func openEngine(t testing.TB) *backend.Loaded {
	t.Helper()
	opt := backend.Options{EngineRoot: filepath.Dir(testenv.EngineDir(t)), Device: "cpu", Report: &gpu.Report{},
		Engine: testenv.WorkerOptions()}
	l, err := backend.Open(context.Background(), testenv.Model(t, "base"), opt, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// running is a server on a loopback port.
type running struct {
	url  string
	stop func() error // cancels Serve and returns its error
}

func start(t testing.TB, cfg server.Config, eng server.Transcriber) *running {
	t.Helper()
	url, stop := servertest.Start(t, cfg, testLog(t), eng)
	return &running{url: url, stop: stop}
}

func wavBytes(t testing.TB, samples []float32) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := audio.EncodeWAV(&b, samples, audio.SampleRate, 1, audio.PCM16); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// part is one form field; file parts have a filename.
type part struct {
	name, filename string
	data           []byte
}

func form(t testing.TB, parts ...part) (*bytes.Buffer, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.filename != "" {
			w, err = mw.CreateFormFile(p.name, p.filename)
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(p.data)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &b, mw.FormDataContentType()
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func post(t testing.TB, url, key string, body io.Reader, ctype string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/v1/audio/transcriptions", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return do(t, req)
}

// postAsync posts a transcription request without waiting for it, for a
// test that acts while it is in flight. It must not fail the test from its
// goroutine, so a request that gets no answer comes as status -1 with the
// error as the body.
func postAsync(url string, body io.Reader, ctype string) <-chan answer {
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/audio/transcriptions", body)
		req.Header.Set("Content-Type", ctype)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{status: -1, body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- answer{status: resp.StatusCode, header: resp.Header, body: b}
	}()
	return got
}

func do(t testing.TB, req *http.Request) answer {
	t.Helper()
	status, header, body := servertest.Do(t, req)
	return answer{status, header, body}
}

// apiErr decodes OpenAI's error shape and checks all four keys are there.
func apiErr(t testing.TB, a answer) (msg, typ string, param, code *string) {
	t.Helper()
	var v map[string]map[string]*string
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatalf("status %d, body %q is not JSON: %v", a.status, a.body, err)
	}
	e, ok := v["error"]
	if !ok {
		t.Fatalf("body %s has no error object", a.body)
	}
	for _, k := range []string{"message", "type", "param", "code"} {
		if _, ok := e[k]; !ok {
			t.Fatalf("error %s lacks %q", a.body, k)
		}
	}
	if e["message"] == nil || *e["message"] == "" || e["type"] == nil {
		t.Fatalf("error %s has no message or type", a.body)
	}
	return *e["message"], *e["type"], e["param"], e["code"]
}

// Each response_format answers as OpenAI's API does, with the right text.
func TestTranscribeFormats(t *testing.T) {
	eng := openEngine(t)
	srv := start(t, server.Config{}, eng)
	speech := testenv.Speech(t, said)
	wav := wavBytes(t, speech)
	cases := []struct {
		format, ctype string
		text          func(t *testing.T, body []byte) string
	}{
		{"", "application/json", func(t *testing.T, b []byte) string {
			var v struct {
				Text  string `json:"text"`
				Usage struct {
					Type    string  `json:"type"`
					Seconds float64 `json:"seconds"`
				} `json:"usage"`
			}
			if err := json.Unmarshal(b, &v); err != nil || v.Usage.Type != "duration" || v.Usage.Seconds < 1 {
				t.Fatalf("json answer %s: %v", b, err)
			}
			return v.Text
		}},
		{"text", "text/plain; charset=utf-8", func(t *testing.T, b []byte) string { return string(b) }},
		{"verbose_json", "application/json", func(t *testing.T, b []byte) string {
			var v struct {
				Task     string  `json:"task"`
				Language string  `json:"language"`
				Duration float64 `json:"duration"`
				Text     string  `json:"text"`
				Segments []struct {
					ID     int     `json:"id"`
					Start  float64 `json:"start"`
					End    float64 `json:"end"`
					Text   string  `json:"text"`
					Tokens []int   `json:"tokens"`
				} `json:"segments"`
			}
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			want := float64(len(speech)) / audio.SampleRate
			if v.Task != "transcribe" || v.Language != "english" || v.Duration < want-0.01 || v.Duration > want+0.01 ||
				len(v.Segments) == 0 || len(v.Segments[0].Tokens) == 0 || v.Segments[0].End <= v.Segments[0].Start {
				t.Fatalf("verbose_json answer %s (want task transcribe, language english, duration %.2f, timed segments)", b, want)
			}
			return v.Text
		}},
		{"srt", "text/plain; charset=utf-8", func(t *testing.T, b []byte) string { return cues(t, string(b), false) }},
		{"vtt", "text/vtt; charset=utf-8", func(t *testing.T, b []byte) string { return cues(t, string(b), true) }},
	}
	for _, tc := range cases {
		t.Run("format="+tc.format, func(t *testing.T) {
			parts := []part{{name: "file", filename: "speech.wav", data: wav}, {name: "model", data: []byte("whisper-1")},
				{name: "language", data: []byte("en")}}
			if tc.format != "" {
				parts = append(parts, part{name: "response_format", data: []byte(tc.format)})
			}
			body, ctype := form(t, parts...)
			a := post(t, srv.url, "", body, ctype)
			if a.status != http.StatusOK || a.header.Get("Content-Type") != tc.ctype {
				t.Fatalf("status %d, content type %q, body %s; want 200 %s", a.status, a.header.Get("Content-Type"), a.body, tc.ctype)
			}
			got := tc.text(t, a.body)
			if wer := whisper.WordErrorRate(said, got); wer > 0.15 {
				t.Fatalf("text %q: WER %.2f against %q", got, wer, said)
			}
		})
	}
}

// cues checks SRT/WebVTT structure and returns the cue text joined.
func cues(t *testing.T, s string, vtt bool) string {
	t.Helper()
	sep := ","
	if vtt {
		if !strings.HasPrefix(s, "WEBVTT\n\n") {
			t.Fatalf("vtt %q lacks the WEBVTT header", s)
		}
		s, sep = strings.TrimPrefix(s, "WEBVTT\n\n"), "."
	}
	var text []string
	for _, block := range strings.Split(strings.TrimSpace(s), "\n\n") {
		lines := strings.Split(block, "\n")
		if !vtt {
			if _, err := strconv.Atoi(lines[0]); err != nil {
				t.Fatalf("srt cue %q does not start with its number", block)
			}
			lines = lines[1:]
		}
		var a, b string
		if n, _ := fmt.Sscanf(lines[0], "%s --> %s", &a, &b); n != 2 || len(a) != 12 || a[8:9] != sep {
			t.Fatalf("cue timing %q, want HH:MM:SS%smmm --> HH:MM:SS%smmm", lines[0], sep, sep)
		}
		text = append(text, lines[1:]...)
	}
	return strings.Join(text, " ")
}

// Bad requests get a 4xx in OpenAI's error shape, and the server goes on
// answering good ones.
func TestBadRequestsKeepServing(t *testing.T) {
	eng := openEngine(t)
	srv := start(t, server.Config{MaxUploadBytes: 1 << 20, MaxAudio: 10 * time.Second}, eng)
	speech := testenv.Speech(t, said)
	wav := wavBytes(t, speech)
	long := wavBytes(t, make([]float32, 12*audio.SampleRate)) // 12 s of silence, 384 KB
	big := wavBytes(t, make([]float32, 40*audio.SampleRate))  // 1.28 MB, over 1 MiB
	file := func(name string, data []byte) part { return part{name: "file", filename: name, data: data} }
	cases := []struct {
		name    string
		parts   []part
		raw     string // a body that is not multipart, when set
		chunked bool   // send without a Content-Length, so the limit trips while reading
		status  int
		param   string
		says    string
	}{
		{"text file", []part{file("notes.txt", []byte("this is not audio, just some words in a text file\n"))}, "", false, 400, "file", "is not audio"},
		{"WAV cut inside its header", []part{file("cut.wav", wav[:30])}, "", false, 400, "file", "cut short"},
		{"WAV cut after its header", []part{file("cut.wav", wav[:44])}, "", false, 400, "file", "cut short"},
		{"damaged FLAC", []part{file("a.flac", append([]byte("fLaC\x00\x00\x00\x22"), make([]byte, 64)...))}, "", false, 400, "file", "FLAC"},
		{"missing file field", []part{{name: "model", data: []byte("whisper-1")}}, "", false, 400, "file", "no file field"},
		{"upload over the limit", []part{file("big.wav", big)}, "", false, 413, "file", "limit"},
		{"upload over the limit, no Content-Length", []part{file("big.wav", big)}, "", true, 413, "file", "limit"},
		{"audio over the length limit", []part{file("long.wav", long)}, "", false, 413, "file", "at most"},
		{"bad response_format", []part{file("s.wav", wav), {name: "response_format", data: []byte("xml")}}, "", false, 400, "response_format", "json, text"},
		{"bad temperature", []part{file("s.wav", wav), {name: "temperature", data: []byte("hot")}}, "", false, 400, "temperature", "0 to 1"},
		{"bad language", []part{file("s.wav", wav), {name: "language", data: []byte("klingon")}}, "", false, 400, "language", "ISO-639-1"},
		// Without Config.Languages the engine decides, and its refusal is 400 too, not 500.
		{"language the model lacks", []part{file("s.wav", wav), {name: "language", data: []byte("yue")}}, "", false, 400, "language", "does not know it"},
		{"not multipart", nil, `{"file":"x"}`, false, 400, "", "multipart/form-data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var a answer
			if tc.raw != "" {
				a = post(t, srv.url, "", strings.NewReader(tc.raw), "application/json")
			} else {
				body, ctype := form(t, tc.parts...)
				var r io.Reader = body
				if tc.chunked {
					r = struct{ io.Reader }{body} // hides the length from net/http
				}
				a = post(t, srv.url, "", r, ctype)
			}
			msg, typ, param, _ := apiErr(t, a)
			gotParam := ""
			if param != nil {
				gotParam = *param
			}
			if a.status != tc.status || typ != "invalid_request_error" || gotParam != tc.param || !strings.Contains(msg, tc.says) {
				t.Fatalf("got %d %s param %q %q; want %d invalid_request_error param %q saying %q", a.status, typ, gotParam, msg, tc.status, tc.param, tc.says)
			}
			// Still serving: the same connection pool gets a right answer.
			body, ctype := form(t, file("s.wav", wav), part{name: "response_format", data: []byte("text")})
			if ok := post(t, srv.url, "", body, ctype); ok.status != 200 || whisper.WordErrorRate(said, string(ok.body)) > 0.15 {
				t.Fatalf("after %s the server answered %d %q", tc.name, ok.status, ok.body)
			}
		})
	}
	for _, path := range []string{"/v1/audio/translations", "/v2/anything"} {
		req, _ := http.NewRequest(http.MethodPost, srv.url+path, nil)
		if a := do(t, req); a.status != 404 {
			t.Fatalf("%s: status %d, want 404", path, a.status)
		}
	}
}

// GET /v1/models lists the served model and the name clients hard-code.
func TestModels(t *testing.T) {
	srv := start(t, server.Config{Model: "whisper-base"}, nil)
	req, _ := http.NewRequest(http.MethodGet, srv.url+"/v1/models", nil)
	a := do(t, req)
	var v struct {
		Object string `json:"object"`
		Data   []struct {
			ID, Object, OwnedBy string
		} `json:"data"`
	}
	if err := json.Unmarshal(a.body, &v); err != nil || a.status != 200 || v.Object != "list" || len(v.Data) != 2 ||
		v.Data[0].ID != "whisper-base" || v.Data[1].ID != "whisper-1" || v.Data[0].Object != "model" {
		t.Fatalf("models: %d %s (%v)", a.status, a.body, err)
	}
	req, _ = http.NewRequest(http.MethodGet, srv.url+"/v1/models/whisper-1", nil)
	if a := do(t, req); a.status != 200 || !bytes.Contains(a.body, []byte(`"id":"whisper-1"`)) {
		t.Fatalf("model: %d %s", a.status, a.body)
	}
	req, _ = http.NewRequest(http.MethodGet, srv.url+"/v1/models/gpt-9", nil)
	if a := do(t, req); a.status != 404 {
		t.Fatalf("unknown model: %d %s", a.status, a.body)
	}
}

// With an API key, a missing or wrong bearer token gets 401 and the right one passes.
func TestAPIKey(t *testing.T) {
	const key = "sk-test-0123456789"
	srv := start(t, server.Config{APIKey: key, Model: "m"}, nil)
	cases := []struct {
		name, header string
		status       int
		says         string
	}{
		{"missing", "", 401, "missing API key"},
		{"wrong", "Bearer sk-test-0123456780", 401, "incorrect API key"},
		{"wrong scheme", "Basic " + key, 401, "incorrect API key"},
		{"prefix of the key", "Bearer sk-test", 401, "incorrect API key"},
		{"right", "Bearer " + key, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/v1/models", "/v1/audio/transcriptions"} {
				method := http.MethodGet
				if strings.HasSuffix(path, "transcriptions") {
					method = http.MethodPost
				}
				req, _ := http.NewRequest(method, srv.url+path, nil)
				if tc.header != "" {
					req.Header.Set("Authorization", tc.header)
				}
				a := do(t, req)
				if tc.status == 200 {
					// Through auth: models answers, the empty POST is a 400 about its body.
					if a.status == 401 {
						t.Fatalf("%s with the right key: 401 %s", path, a.body)
					}
					continue
				}
				msg, _, _, code := apiErr(t, a)
				if a.status != 401 || code == nil || *code != "invalid_api_key" || !strings.Contains(msg, tc.says) ||
					a.header.Get("WWW-Authenticate") == "" || strings.Contains(msg, key) {
					t.Fatalf("%s: %d %s; want 401 invalid_api_key saying %q", path, a.status, a.body, tc.says)
				}
			}
		})
	}
}

// A non-loopback address needs a key or an explicit opt-out.
func TestCheckListen(t *testing.T) {
	cases := []struct {
		addr, key string
		insecure  bool
		ok        bool
	}{
		{"127.0.0.1:8765", "", false, true},
		{"localhost:8765", "", false, true},
		{"[::1]:8765", "", false, true},
		{"127.0.0.2:1", "", false, true},
		{"0.0.0.0:8765", "", false, false},
		{":8765", "", false, false},
		{"[::]:8765", "", false, false},
		{"192.168.1.10:8765", "", false, false},
		{"gpu-box:8765", "", false, false},
		{"0.0.0.0:8765", "k", false, true},
		{"0.0.0.0:8765", "", true, true},
	}
	for _, tc := range cases {
		err := server.CheckListen(tc.addr, tc.key, tc.insecure)
		if (err == nil) != tc.ok {
			t.Errorf("CheckListen(%q, key=%q, insecure=%v) = %v, want ok=%v", tc.addr, tc.key, tc.insecure, err, tc.ok)
		}
		if err != nil && (!errors.Is(err, server.ErrNoAuth) || !strings.Contains(err.Error(), "--api-key") || !strings.Contains(err.Error(), "--insecure-no-auth")) {
			t.Errorf("CheckListen(%q): %q does not say how to fix it", tc.addr, err)
		}
	}
	if err := server.CheckListen("8765", "", false); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("CheckListen(8765) = %v, want a HOST:PORT hint", err)
	}
	if _, err := server.New(server.Config{Addr: "0.0.0.0:0"}, testLog(t), nil); !errors.Is(err, server.ErrNoAuth) {
		t.Errorf("New on 0.0.0.0 without a key: %v", err)
	}
}

// SIGTERM's path: Serve's ctx ends while a request is being transcribed;
// that request still gets its text, then Serve returns and the port closes.
func TestShutdownFinishesInFlight(t *testing.T) {
	eng := openEngine(t)
	srv := start(t, server.Config{}, eng)
	// Three different sentences, long enough to be in flight at the stop. Not one
	// sentence three times: Whisper (faster-whisper too, same model) writes a
	// sentence repeated back to back once on some CPUs.
	long := said + " Please call me back when you get this message. The meeting moved to Thursday afternoon."
	speech := testenv.Speech(t, long)
	body, ctype := form(t, part{name: "file", filename: "s.wav", data: wavBytes(t, speech)}, part{name: "response_format", data: []byte("text")})
	got := postAsync(srv.url, body, ctype)
	time.Sleep(300 * time.Millisecond) // the upload is in; the engine is working
	stopped := time.Now()
	if err := srv.stop(); err != nil {
		t.Fatalf("Serve returned %v after a graceful stop", err)
	}
	a := <-got
	if a.status != 200 || whisper.WordErrorRate(long, string(a.body)) > 0.25 {
		t.Fatalf("the request in flight got %d %q", a.status, a.body)
	}
	t.Logf("stop waited %s for the request in flight", time.Since(stopped).Round(time.Millisecond))
	if _, err := http.Get(srv.url + "/v1/models"); err == nil {
		t.Fatal("the server still accepts connections after stopping")
	}
	http.DefaultClient.CloseIdleConnections()
}

// A request that outlives RequestTimeout gets a 504 JSON error, and the
// engine it gave up on serves the next request (through a second server
// with the default timeout, as a slow CPU may need more than 400 ms).
func TestRequestTimeout(t *testing.T) {
	eng := openEngine(t)
	srv := start(t, server.Config{RequestTimeout: 400 * time.Millisecond}, eng)
	patient := start(t, server.Config{}, eng)
	long := testenv.Speech(t, strings.Repeat(said+" ", 6))
	body, ctype := form(t, part{name: "file", filename: "s.wav", data: wavBytes(t, long)})
	a := post(t, srv.url, "", body, ctype)
	if _, typ, _, _ := apiErr(t, a); a.status != http.StatusGatewayTimeout || typ != "timeout_error" {
		t.Fatalf("status %d %s, want 504 timeout_error", a.status, a.body)
	}
	short := testenv.Speech(t, "Yes.")
	body, ctype = form(t, part{name: "file", filename: "s.wav", data: wavBytes(t, short)}, part{name: "response_format", data: []byte("text")})
	a = post(t, patient.url, "", body, ctype)
	if a.status != 200 || !strings.Contains(strings.ToLower(string(a.body)), "yes") {
		t.Fatalf("after a timeout the server answered %d %q", a.status, a.body)
	}
}

// rss is the process's resident memory in KiB (0 if unknown).
// sampleRSS samples this process's RSS every interval until ctx ends; the
// func it returns waits for the sampler and gives the peak (KiB).
func sampleRSS(ctx context.Context, every time.Duration) (peak func() int) {
	top := rss()
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				top = max(top, rss())
			}
		}
	}()
	return func() int { <-done; return top }
}

// rss is this process's resident memory in KiB, 0 where /proc has none.
func rss() int {
	n, _ := testenv.ProcStatus("self", "VmRSS")
	return n
}

// verbose_json with timestamp_granularities[]=word: OpenAI's top-level words,
// in order, within the audio and its segments, spelling the text; a request
// without it has no words.
func TestWordTimestamps(t *testing.T) {
	eng := openEngine(t)
	srv := start(t, server.Config{}, eng)
	wav := wavBytes(t, testenv.Speech(t, said))
	type answerJSON struct {
		Duration float64 `json:"duration"`
		Text     string  `json:"text"`
		Words    *[]struct {
			Word  string  `json:"word"`
			Start float64 `json:"start"`
			End   float64 `json:"end"`
		} `json:"words"`
		Segments []struct{ Start, End float64 } `json:"segments"`
	}
	ask := func(granularity string) answerJSON {
		parts := []part{{name: "file", filename: "a.wav", data: wav}, {name: "response_format", data: []byte("verbose_json")}}
		if granularity != "" {
			parts = append(parts, part{name: "timestamp_granularities[]", data: []byte(granularity)})
		}
		body, ctype := form(t, parts...)
		a := post(t, srv.url, "", body, ctype)
		if a.status != http.StatusOK {
			t.Fatalf("status %d: %s", a.status, a.body)
		}
		var v answerJSON
		if err := json.Unmarshal(a.body, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := ask("segment"); v.Words != nil {
		t.Errorf("segment granularity: words %v", *v.Words)
	}
	v := ask("word")
	if v.Words == nil || len(*v.Words) < 8 {
		t.Fatalf("words %v for %q", v.Words, v.Text)
	}
	var spelled []string
	last := 0.0
	for _, w := range *v.Words {
		if w.Word != strings.TrimSpace(w.Word) || w.Start < last-1e-9 || w.End < w.Start || w.End > v.Duration {
			t.Errorf("word %q at %.2f–%.2f after %.2f (audio %.2f s)", w.Word, w.Start, w.End, last, v.Duration)
		}
		last = w.Start
		spelled = append(spelled, w.Word)
	}
	if got := strings.Join(spelled, " "); got != strings.TrimSpace(v.Text) {
		t.Errorf("words spell %q, text is %q", got, v.Text)
	}
	if first, lastSeg := (*v.Words)[0], v.Segments[len(v.Segments)-1]; first.Start != v.Segments[0].Start || (*v.Words)[len(*v.Words)-1].End != lastSeg.End {
		t.Errorf("words %.2f–%.2f, segments %.2f–%.2f: the segments take their words' bounds", first.Start, (*v.Words)[len(*v.Words)-1].End, v.Segments[0].Start, lastSeg.End)
	}
}
