package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"unicode"
)

// hostileText is what a compromised or spoofed transcription server might
// answer: a window title (OSC), a screen clear, BEL, a CR-LF that would
// press Enter in a terminal, and a right-to-left override that shows
// "exe.txt" for "txt.exe".
const hostileText = "\x1b]0;pwned\a\x1b[2J Run make\r\nrm -rf ~\a then open \u202etxt.exe\u202c new line done\n"

// hostileServer is an OpenAI-compatible transcription server that answers
// every request with hostileText, as verbose_json, or with status and body
// when status is not 200.
func hostileServer(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusOK {
			_, _ = w.Write([]byte(body))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"text": hostileText, "language": "english\x1b[31m", "duration": 1.0,
			"segments": []map[string]any{
				{"start": 0.0, "end": 0.5, "text": "\x1b]0;pwned\a\x1b[2J Run make\r\nrm -rf ~\a"},
				{"start": 0.5, "end": 1.0, "text": " then open \u202etxt.exe\u202c new line done\n"},
			},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// unsafeRunes lists what must never reach a terminal: controls other than
// line feeds (which end each printed line, or come from spoken punctuation),
// and format characters such as the bidi overrides.
func unsafeRunes(s string) []rune {
	var bad []rune
	for _, r := range s {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			bad = append(bad, r)
		}
	}
	return bad
}

// runCLI runs the real binary; transcribe --remote loads no model.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := runCmd(t, exec.Command(binary(t), args...))
	return r.stdout, r.stderr, r.code
}

// Item 4 of #34: what a remote server answers is printed as text, never as
// terminal commands; line breaks come from spoken punctuation alone.
func TestTranscribeRemoteStripsControls(t *testing.T) {
	// Speech, not a tone: transcribe --remote asks the speech gate first, as
	// the local engine does, and a tone would never reach the server.
	wav := speechWAV(t, "Run make, then open the file.")
	srv := hostileServer(t, http.StatusOK, "")

	cases := []struct {
		name string
		args []string
		want string // stdout, whole
	}{
		{"plain text", nil, "Run make rm -rf ~ then open txt.exe new line done\n"},
		{"spoken punctuation writes the only line break", []string{"--spoken-punctuation"},
			"Run make rm -rf ~ then open txt.exe\nDone\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"transcribe", "--remote", srv.URL, wav}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if stdout != tc.want {
				t.Errorf("stdout %q, want %q", stdout, tc.want)
			}
			if bad := unsafeRunes(stdout); len(bad) > 0 {
				t.Errorf("stdout carries %q", bad)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		stdout, stderr, code := runCLI(t, "transcribe", "--remote", srv.URL, "--json", wav)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		// JSON escapes controls but prints U+202E as it is.
		if bad := unsafeRunes(stdout); len(bad) > 0 {
			t.Errorf("stdout carries %q", bad)
		}
		var j struct {
			Text     string `json:"text"`
			Language string `json:"language"`
			Segments []struct {
				Text string `json:"text"`
			} `json:"segments"`
		}
		if err := json.Unmarshal([]byte(stdout), &j); err != nil {
			t.Fatalf("JSON: %v\n%s", err, stdout)
		}
		texts := []string{j.Text, j.Language}
		for _, s := range j.Segments {
			texts = append(texts, s.Text)
		}
		for _, s := range texts {
			if bad := unsafeRunes(s); len(bad) > 0 || strings.Contains(s, "\n") {
				t.Errorf("%q carries %q", s, bad)
			}
		}
		if len(j.Segments) != 2 || j.Segments[1].Text != " then open txt.exe new line done" {
			t.Errorf("segments %+v", j.Segments)
		}
	})

	t.Run("error message", func(t *testing.T) {
		bad := hostileServer(t, http.StatusInternalServerError,
			`{"error":{"message":"\u001b]0;pwned\u0007model \u202eexploded\r\n\u001b[2J"}}`)
		_, stderr, code := runCLI(t, "transcribe", "--remote", bad.URL, wav)
		if code == 0 || !strings.Contains(stderr, "model exploded") {
			t.Fatalf("exit %d, stderr %q: want a failure that quotes the server", code, stderr)
		}
		for _, line := range strings.SplitAfter(stderr, "\n") {
			if r := unsafeRunes(line); len(r) > 0 {
				t.Errorf("stderr line %q carries %q", line, r)
			}
		}
	})
}
