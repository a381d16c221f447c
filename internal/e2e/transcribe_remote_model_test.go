package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// transcribe --remote sends the config's remote.model, as the tray does,
// and --remote-model overrides it (issue 48: a flag's default is the
// config's value).
func TestTranscribeRemoteModelFromConfig(t *testing.T) {
	wav := speechWAV(t, "Send the report before noon.")
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.FormValue("model"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"text": "Send the report before noon.", "language": "english", "duration": 1.5}`))
	}))
	t.Cleanup(srv.Close)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("remote:\n  model: big-whisper\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"the config's remote.model", nil, "big-whisper"},
		{"--remote-model over it", []string{"--remote-model", "small-whisper"}, "small-whisper"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			stdout, stderr, code := runCLI(t, append([]string{"transcribe", "--config", cfg, "--remote", srv.URL, wav}, tc.args...)...)
			mu.Lock()
			defer mu.Unlock()
			if code != 0 || len(got) != 1 || got[0] != tc.want {
				t.Errorf("exit %d (%q, %q); the server was sent models %q, want [%s]", code, stdout, stderr, got, tc.want)
			}
		})
	}
}
