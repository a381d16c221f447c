//go:build linux

package e2e

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/server/servertest"
)

// longestRun is the longest run of b in s: how much of a value made of b
// came back.
func longestRun(s string, b byte) int {
	best, run := 0, 0
	for i := range len(s) {
		if s[i] == b {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// formRequest is a transcription request with the given fields and, when
// file is not nil, a file.
func formRequest(t testing.TB, url string, fields [][2]string, fileName string, file []byte) *http.Request {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		w, err := mw.CreateFormField(f[0])
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(f[1]))
	}
	if file != nil {
		w, err := mw.CreateFormFile("file", fileName)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(file)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url+"/v1/audio/transcriptions", &b)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

// send does req and returns the status, headers and body.
func send(t testing.TB, req *http.Request) (int, http.Header, string) {
	t.Helper()
	status, header, body := servertest.Do(t, req)
	return status, header, string(body)
}

// Issue 34 item 3, through the real binary: a value a client sends comes
// back, in the answer and in serve's log, as at most 200 bytes of it. A
// 60,000-byte language, response_format or temperature came back whole,
// and GET /v1/models/<4,000 × A> returned all 4,000 bytes.
func TestServeEchoesBounded(t *testing.T) {
	srv := startServe(t)
	value := strings.Repeat("A", 60000)
	name := strings.Repeat("A", 4000)
	get := func(path string, header ...string) *http.Request {
		req, err := http.NewRequest(http.MethodGet, srv.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		if len(header) == 2 && header[0] == "Host" {
			req.Host = header[1]
		}
		return req
	}
	cases := []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"language", formRequest(t, srv.url, [][2]string{{"language", value}}, "", nil), 400},
		{"response_format", formRequest(t, srv.url, [][2]string{{"response_format", value}}, "", nil), 400},
		{"temperature", formRequest(t, srv.url, [][2]string{{"temperature", value}}, "", nil), 400},
		{"a field name, on a field over 64 KiB", formRequest(t, srv.url, [][2]string{{name, value + value}}, "", nil), 400},
		{"a file name", formRequest(t, srv.url, nil, name+".wav", []byte("not audio at all, only words")), 400},
		{"a model id", get("/v1/models/" + name), 404},
		{"a path", get("/v1/" + name), 404},
		{"an Origin", get("/v1/models", "Origin", "https://"+name+".example"), 403},
		{"a Host", get("/v1/models", "Host", name+".example"), 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := send(t, tc.req)
			if status != tc.status || longestRun(body, 'A') > 200 || len(body) > 1024 {
				t.Fatalf("status %d, body of %d bytes quoting %d bytes of the value: %.300s…; want %d, at most 200 bytes quoted",
					status, len(body), longestRun(body, 'A'), body, tc.status)
			}
		})
	}
	if n := longestRun(srv.stderr.String(), 'A'); n > 200 {
		t.Errorf("serve's log quotes %d bytes of a request", n)
	}
}
