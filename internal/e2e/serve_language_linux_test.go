//go:build linux

package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Issue 50 item 7, through the real binary: a language the loaded model
// does not know is the client's mistake, 400 in OpenAI's error shape with
// the model's languages named, and no error in serve's log. It was 500,
// logged as an error, which OpenAI's clients retry. The server serves on
// after it, and transcribe --language says the same.
func TestServeUnknownLanguageIs400(t *testing.T) {
	wav, err := os.ReadFile(speechWAV(t, "hello there, this is a test"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model, language string
		want            []string // in the message
	}{
		{"tiny.en", "de", []string{`"de"`, "whisper-tiny.en knows only English (en)"}},
		{"tiny.en", "german", []string{`"german"`, "knows only English (en)"}},
		{"base", "yue", []string{`"yue" (cantonese)`, "whisper-base does not know it", "99 languages", "large-v3"}},
		{"base", "xx", []string{`"xx" is not one of Whisper's language codes`, "such as en, de or fr", "docs/configuration.md#language"}},
		{"base", "germn", []string{"close: de (german)"}},
	} {
		t.Run(c.model+"/"+c.language, func(t *testing.T) {
			model := testenv.Model(t, c.model)
			srv := startServe(t, "--model", model)
			status, _, body := send(t, formRequest(t, srv.url, [][2]string{{"language", c.language}}, "hello.wav", wav))
			var e struct {
				Error struct {
					Message, Type string
					Param, Code   *string
				}
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("%d %q: not OpenAI's error JSON: %v", status, body, err)
			}
			if status != http.StatusBadRequest || e.Error.Type != "invalid_request_error" ||
				e.Error.Param == nil || *e.Error.Param != "language" || e.Error.Code == nil || *e.Error.Code != "unsupported_language" {
				t.Errorf("language %q on %s: %d %s; want 400 invalid_request_error, param language, code unsupported_language", c.language, c.model, status, body)
			}
			for _, w := range c.want {
				if !strings.Contains(e.Error.Message, w) {
					t.Errorf("message %q lacks %q", e.Error.Message, w)
				}
			}

			// The server serves on: the same file in a language it knows.
			status, _, body = send(t, formRequest(t, srv.url, [][2]string{{"language", "en"}}, "hello.wav", wav))
			var ok struct{ Text string }
			_ = json.Unmarshal([]byte(body), &ok)
			if status != http.StatusOK || whisper.WordErrorRate("hello there, this is a test", ok.Text) > 0.5 {
				t.Errorf("after the 400, language en: %d %s", status, body)
			}
			srv.stop(t)
			logged := srv.stderr.String()
			if strings.Contains(logged, "level=ERROR") || !strings.Contains(logged, "status=400") {
				t.Errorf("serve's log has an error line, or no 400:\n%s", logged)
			}

			// The CLI decides by the same rule, in the same words, before decoding.
			r := whisperkey(t, "transcribe", "--model", model, "--language", c.language, speechWAV(t, "hello"))
			if r.code != 2 || !strings.Contains(r.stderr, e.Error.Message) {
				t.Errorf("transcribe --language %s on %s: exit %d, stderr %q; want exit 2 and %q", c.language, c.model, r.code, r.stderr, e.Error.Message)
			}
		})
	}
}
