package cleanup

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testlog"
)

const dictated = "um so I think we should uh meet on Tuesday"

// Chat servers at fault, for this file's tests and edit_test.go's.
var (
	// hangs until the client leaves.
	hangs http.HandlerFunc = func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then the server notices the client leave
		select {
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
		}
	}
	fails http.HandlerFunc = func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"model crashed"}}`, http.StatusInternalServerError)
	}
	unrelated = answer("Tuesday takes its name from Tyr, the Norse god of war. " +
		"Most European languages name the day after a god, a custom the Romans began with Mars.")
)

// answer is a chat server that answers every request with content.
func answer(content string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{
			map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}}})
	}
}

// The servers here model faults (a hang, an error, an off-topic answer); the
// API's success is tested against a real model in real_test.go.
func TestFaultyServerKeepsTheDictation(t *testing.T) {
	const timeout = 400 * time.Millisecond
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    error
		notice  string
	}{
		{"sleeps past the timeout", hangs, ErrTimeout, "timed out"},
		{"returns 500", fails, ErrServer, "failed"},
		{"answers an unrelated paragraph", unrelated, ErrNotRewrite, "unusable"},
		{"replies instead of rewriting", answer("Sure, Tuesday works for me! What time should we meet?"), ErrNotRewrite, "unusable"},
		{"refuses", func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{
				map[string]any{"message": map[string]any{"role": "assistant", "content": nil, "refusal": "I can't help with that."}}}})
		}, ErrRefused, "refused"},
		{"is not a chat server", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>hello</html>")) }, ErrServer, "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			var logged strings.Builder
			c, err := New(Config{URL: srv.URL, Model: "m", APIKey: "sk-test-secret", Timeout: timeout},
				slog.New(slog.NewTextHandler(&syncWriter{w: &logged}, &slog.HandlerOptions{Level: slog.LevelDebug})))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res := c.Rewrite(context.Background(), "Clean it up.", dictated)
			took := time.Since(start)
			if res.Text != dictated || !errors.Is(res.Err, tt.want) {
				t.Errorf("Rewrite = %q, %v; want the dictation and %v", res.Text, res.Err, tt.want)
			}
			if !strings.Contains(res.Notice(), tt.notice) || !strings.Contains(res.Notice(), "pasted as heard") {
				t.Errorf("Notice() = %q; want it to say %q and that the text was pasted as heard", res.Notice(), tt.notice)
			}
			if took > timeout+100*time.Millisecond {
				t.Errorf("the dictation came back after %v; the limit is the timeout %v + 100ms", took, timeout)
			}
			for _, secret := range []string{"sk-test-secret", "Tuesday", "meet"} {
				if strings.Contains(logged.String(), secret) {
					t.Errorf("the log holds %q:\n%s", secret, logged.String())
				}
			}
		})
	}
}

func TestRequestCarriesKeyModelAndText(t *testing.T) {
	var got struct {
		auth string
		body chatRequest
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.auth = r.Header.Get("Authorization")
		_ = json.NewDecoder(r.Body).Decode(&got.body)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL + "/v1", Model: "tiny-chat", APIKey: "k1"}, testlog.New(t, slog.LevelDebug))
	if err != nil {
		t.Fatal(err)
	}
	c.Rewrite(context.Background(), "Be formal.", dictated)
	m := got.body.Messages
	if got.auth != "Bearer k1" || got.body.Model != "tiny-chat" || len(m) != 4 || m[0].Role != "system" ||
		m[0].Content != "Be formal." || m[3].Role != "user" || m[3].Content != dictated || got.body.Stream ||
		len(got.body.Stop) != 1 {
		t.Errorf("request = %q %+v", got.auth, got.body)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
