//go:build linux

package e2e

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/cleanup"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// set makes the target's content text, the cursor at its end.
func (tg *target) set(t testing.TB, text string) {
	t.Helper()
	tg.ask(t, "set "+hex.EncodeToString([]byte(text)), "SET", "take the text")
}

// selectAll selects the target's whole content, as a user's drag would.
func (tg *target) selectAll(t testing.TB) {
	t.Helper()
	tg.ask(t, "select", "SELECTED", "select")
}

// chatFaults stands in front of the real chat server: in "real" mode it
// passes each request on, otherwise it fails the way the mode says.
type chatFaults struct {
	mode atomic.Value // string
	real *httputil.ReverseProxy
}

func (c *chatFaults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	answer := func(content string) {
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{
			map[string]any{"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}}})
	}
	switch c.mode.Load().(string) {
	case "sleep":
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done() // past the app's edit.timeout: it gives up and leaves
	case "500":
		http.Error(w, `{"error":{"message":"model crashed"}}`, http.StatusInternalServerError)
	case "unrelated":
		answer("Tuesday takes its name from Tyr, the Norse god of war. Most European languages name the day after a god, a custom the Romans began with Mars.")
	default:
		c.real.ServeHTTP(w, r)
	}
}

// Rewriting the selection by voice, in the real app with the real engine and
// a real chat server (scripts/chat_server.py): a selected sentence and the
// spoken "make this more formal" give the model's checked rewrite in its
// place, with the clipboard put back; a chat server that hangs, fails or
// answers something unrelated, and a window with nothing selected, leave the
// text exactly as it was and tell the user why.
func TestRewriteSelection(t *testing.T) {
	desktopSession(t)
	notes := startNotificationServer(t)
	upstream, err := url.Parse(testenv.ChatServer(t))
	if err != nil {
		t.Fatal(err)
	}
	faults := &chatFaults{real: httputil.NewSingleHostReverseProxy(upstream)}
	faults.mode.Store("real")
	srv := httptest.NewServer(faults)
	t.Cleanup(srv.Close)

	const instruction = "Make this more formal."
	const original = "hey guys the meeting is moved to tuesday, bring the slides"
	spoken := micWAV(t, instruction)
	// A generous timeout for the real model on a busy machine; the hanging
	// server's case waits it out.
	a := startApp(t, fmt.Sprintf("  edit: ctrl+shift+f8\ncleanup:\n  url: %s\n  model: %s\nedit:\n  timeout: 20s\nvocabulary: [formal]\n",
		srv.URL, testenv.ChatModelName))
	setClipboard(t, clipFirst)
	holdEdit := func() {
		xdo(t, "keydown", "ctrl+shift+F8")
		time.Sleep(300 * time.Millisecond)
		say(t, spoken)
		time.Sleep(300 * time.Millisecond)
		xdo(t, "keyup", "ctrl+shift+F8")
	}

	t.Run("replaced by the model's rewrite", func(t *testing.T) {
		tg := openTarget(t)
		tg.set(t, original)
		tg.selectAll(t)
		holdEdit()
		a.waitStatus(t, "selection rewritten", 90*time.Second)
		got := tg.text(t)
		t.Logf("%q → %q", original, got)
		if _, err := cleanup.CheckEdit(original, instruction, got); err != nil {
			t.Fatalf("the window holds %q, not a rewrite of %q: %v", got, original, err)
		}
		if strings.Contains(got, original) {
			t.Fatalf("the window holds %q: the selection was not replaced", got)
		}
		time.Sleep(500 * time.Millisecond)
		if clip := clipboardText(t); clip != clipFirst {
			t.Fatalf("clipboard holds %q after the rewrite, want %q", clip, clipFirst)
		}
	})

	for _, tc := range []struct{ mode, why string }{
		{"sleep", "did not answer in time"},
		{"500", "failed"},
		{"unrelated", "not a rewrite"},
		{"nothing selected", "No text is selected"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			faults.mode.Store(tc.mode)
			tg := openTarget(t)
			tg.set(t, original)
			if tc.mode != "nothing selected" {
				tg.selectAll(t)
			}
			holdEdit()
			st := a.waitStatus(t, "Not rewritten", 90*time.Second)
			if !strings.Contains(st, tc.why) {
				t.Errorf("status %q does not say %q", st, tc.why)
			}
			t.Logf("status %q; notified %q", st, notes.wait(t, "Not rewritten", 5*time.Second))
			if got := tg.text(t); got != original {
				t.Fatalf("the window holds %q, want it as it was: %q", got, original)
			}
			if clip := clipboardText(t); clip != clipFirst {
				t.Fatalf("clipboard holds %q, want %q", clip, clipFirst)
			}
		})
	}
}
