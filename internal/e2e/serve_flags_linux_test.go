//go:build linux

package e2e

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// Issue 34 item 6, through the real binary: flags that would never work,
// or mean no limit, stop serve before the model loads with one line that
// names the flag and what to give instead.
func TestServeFlagsRangeChecked(t *testing.T) {
	cases := []struct {
		args []string
		says []string
	}{
		{[]string{"--max-audio", "1000000h"}, []string{"--max-audio", "2h0m0s", "split"}},
		{[]string{"--max-audio", "500ms"}, []string{"--max-audio", "1s"}},
		{[]string{"--timeout", "0s"}, []string{"--timeout", "1s"}},
		{[]string{"--upload-memory-mb", "10"}, []string{"--upload-memory-mb", "--max-upload-mb"}},
		{[]string{"--allow-origin", "*"}, []string{"every web page", "--api-key"}},
		{[]string{"--allow-origin", "notes.example"}, []string{"not an origin", "https://notes.example"}},
		{[]string{"--allow-origin", "https://notes.example/"}, []string{"not an origin", "no path"}},
		{[]string{"--allow-origin", "null"}, []string{"null", "cannot be allowed"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			// Bounded and on a free port: serve that takes the flags runs on.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary(t), append([]string{"serve", "--listen", freePort(t)}, tc.args...)...)
			cmd.Env = append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t)), "WHISPERKEY_CACHE="+t.TempDir())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			line := strings.TrimSpace(stderr.String())
			if ctx.Err() != nil {
				t.Fatalf("serve took the flags and ran: %.300s", line)
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || strings.Contains(line, "\n") || strings.Contains(line, "engine") {
				t.Fatalf("%v, stderr %q; want exit 2 and one line, before the model loads", err, line)
			}
			for _, s := range tc.says {
				if !strings.Contains(line, s) {
					t.Errorf("%q does not say %q", line, s)
				}
			}
		})
	}
}

// Issue 34 item 6: --allow-origin '*' is a wildcard, on purpose, and only
// with a key. Pages of any origin may call the server, as they may call
// OpenAI's API, but must send the key; the answer allows "*" and never
// echoes the Origin. A preflight, which browsers send without the key,
// passes.
func TestServeAnyOriginNeedsKey(t *testing.T) {
	const key = "sk-any-origin-4e1b"
	srv := startServe(t, "--api-key", key, "--allow-origin", "*")
	origin := "https://notes.example"
	req := func(method, key string) *http.Request {
		r, err := http.NewRequest(method, srv.url+"/v1/models", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Origin", origin)
		if key != "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		return r
	}
	status, h, body := send(t, req(http.MethodGet, key))
	if status != 200 || h.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("a page with the key: %d, Access-Control-Allow-Origin %q, %s; want 200 and *", status, h.Get("Access-Control-Allow-Origin"), body)
	}
	if status, _, body := send(t, req(http.MethodGet, "")); status != 401 {
		t.Errorf("a page without the key: %d %s; want 401", status, body)
	}
	pre := req(http.MethodOptions, "")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "authorization")
	status, h, _ = send(t, pre)
	if status != 204 || h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight: %d %v; want 204 allowing * and Authorization", status, h)
	}
}
