package desktop

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/remote"
)

// jsonServer answers every POST to path with v as JSON: a remote server
// that has been compromised or spoofed.
func jsonServer(t *testing.T, path string, v any) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// What the tray pastes is text, whatever a remote transcription server or
// the AI cleanup's chat server answers: no escape sequence, CR or bidi
// override reaches the paste, and the line breaks are those of spoken
// punctuation or of the rewrite's list.
func TestDictationPastesPlainText(t *testing.T) {
	heard := "\x1b]0;pwned\a\x1b[2J Buy milk\r\nrm -rf ~\a and \u202eeggs\u202c new line thanks\n"
	stt := jsonServer(t, "/v1/audio/transcriptions", map[string]any{"text": heard, "language": "en"})
	useRemote := func(cfg config.Config, local dictation.Engine, tell func(string)) (dictation.Engine, error) {
		c, err := remote.New(remote.Config{URL: stt.URL}, testLog(t))
		if err != nil {
			return nil, err
		}
		return remote.NewFallback(c, local, tell, testLog(t)), nil
	}
	list := "- Buy milk\r\n- rm -rf ~\x1b[8m\a\n- and \u202eeggs\u202c\r"
	chat := jsonServer(t, "/v1/chat/completions", map[string]any{
		"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": list}}},
	})

	tests := []struct {
		name    string
		cleanup bool
		want    string
	}{
		{"remote engine, spoken punctuation", false, "Buy milk rm -rf ~ and eggs\nThanks"},
		{"AI cleanup's list", true, "- Buy milk\n- rm -rf ~\n- and eggs"},
	}
	d := dictation.NewFlow(&namedEngine{name: "local"}, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Defaults()
			cfg.Text.SpokenPunctuation = true
			if tt.cleanup {
				cfg.Cleanup.Enabled, cfg.Cleanup.Mode, cfg.Cleanup.URL = true, "list", chat.URL
				cfg.Cleanup.Timeout = time.Minute
			}
			d.Configure(cfg, useRemote, func(string) {}, testLog(t))
			tr, err := d.Transcribe(context.Background(), d.Request(""), make([]float32, 16000))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Notice != "" {
				t.Fatalf("cleanup notice %q", tr.Notice)
			}
			if tr.Text != tt.want {
				t.Errorf("pasted %q, want %q", tr.Text, tt.want)
			}
			for _, s := range []string{tr.Text, tr.Raw} {
				if i := strings.IndexFunc(s, func(r rune) bool {
					return r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r))
				}); i >= 0 {
					t.Errorf("%q carries a control at %d", s, i)
				}
			}
		})
	}
}
