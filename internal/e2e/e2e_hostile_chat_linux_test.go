//go:build linux

package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// hostileChat is a chat server that answers every request with the text it
// was sent (a dictation to clean up, a selection to rewrite) in capitals, so
// the answer is seen to be used, and spoiled the way its mode says:
//   - "controls": wrapped in what a terminal obeys and a reader does not
//     see: a window title set (OSC), the screen cleared (CSI), BEL, C1 CSI,
//     U+202E, U+200B, a lone CR and a tab for spaces, CR-LF at the end;
//   - "added line": a line break and a command after the text;
//   - "look-alike": one Latin letter swapped for its Cyrillic twin.
type hostileChat struct {
	mu   sync.Mutex
	mode string
	sent string // the last text to rewrite it was sent
}

func (h *hostileChat) setMode(m string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mode, h.sent = m, ""
}

func (h *hostileChat) lastSent() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sent
}

func (h *hostileChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, "not a chat request", http.StatusBadRequest)
		return
	}
	text := req.Messages[len(req.Messages)-1].Content
	h.mu.Lock()
	h.sent = text
	mode := h.mode
	h.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
		"message": map[string]any{"role": "assistant", "content": spoil(mode, strings.ToUpper(text))}, "finish_reason": "stop"}}})
}

// spoil is the hostile answer of mode around the rewrite text.
func spoil(mode, text string) string {
	switch mode {
	case "added line":
		return text + "\nrm -rf ~"
	case "look-alike":
		for _, twin := range [][2]string{{"O", "\u041e"}, {"E", "\u0415"}, {"A", "\u0410"}} {
			if strings.Contains(text, twin[0]) {
				return strings.Replace(text, twin[0], twin[1], 1)
			}
		}
		return text
	}
	words := strings.Fields(text)
	var b strings.Builder
	b.WriteString("\x1b]0;pwned\a\x1b[2J\x1b[H")
	for i, w := range words {
		switch {
		case i == 0:
		case i == 1:
			b.WriteString("\u200b ")
		case i == 2:
			b.WriteString("\r")
		case i == 3:
			b.WriteString("\t")
		case i == len(words)-1:
			b.WriteString(" \u202e")
		default:
			b.WriteString(" ")
		}
		b.WriteString(w)
	}
	b.WriteString("\a\u009b31m\x1b[0m\r\n")
	return b.String()
}

// plain fails the test when s holds anything a window should not get from
// a chat server: a control, a format character, a line break, or a letter
// from outside Latin (the texts here are English).
func plain(t testing.TB, what, s string) {
	t.Helper()
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
			t.Fatalf("%s %q holds %U", what, s, r)
		}
	}
}

// A chat server's answer reaches the window only as plain text, in the real
// app, whatever the server sends, in paste and type modes: the AI cleanup of
// a dictation and the rewrite of a selection by voice (the edit hotkey) each
// get an answer wrapped in escape sequences, BEL, a bidi override, a
// zero-width space, CR and CR-LF, which lands without any of them; an answer
// that adds a line (under type a Return) or hides a Cyrillic letter in a word
// is refused, as the other refusals are: the dictation is pasted as heard,
// the selection is left as it was, and the log and the tray say why.
func TestHostileChatAnswerPastedClean(t *testing.T) {
	desktopSession(t)
	notes := startNotificationServer(t)
	sc := newHostileScene(t)
	chat, wav, instruction, original := sc.chat, sc.wav, sc.instruction, hostileOriginal

	for _, mode := range []choice.PasteMode{choice.Paste, choice.Type} {
		t.Run(string(mode), func(t *testing.T) {
			a := startApp(t, "  edit: ctrl+shift+f8\npaste: "+string(mode)+"\ncleanup:\n  enabled: true\n  url: "+sc.url+
				"\n  model: hostile\n  timeout: 20s\nedit:\n  timeout: 20s\n")
			refusals := func() int {
				b, _ := os.ReadFile(a.log)
				return strings.Count(string(b), "the answer was not a rewrite of the text")
			}
			for _, tc := range hostileAnswers {
				t.Run("dictation, "+tc.mode, func(t *testing.T) {
					chat.setMode(tc.mode)
					before := refusals()
					tg := openTarget(t)
					holdAndSay(t, wav)
					got := chat.waitPasted(t, tc.why, tg.text)
					if tc.why != "" {
						if refusals() == before {
							t.Errorf("the log has no refusal of the %s answer", tc.mode)
						}
						if b, _ := os.ReadFile(a.log); !strings.Contains(string(b), tc.why) {
							t.Errorf("the log does not say %q", tc.why)
						}
						t.Logf("pasted as heard: %q; notified %q", got, notes.wait(t, "Pasted as heard", 10*time.Second))
						return
					}
					t.Logf("pasted the answer clean: %q", got)
				})
				t.Run("rewrite, "+tc.mode, func(t *testing.T) {
					chat.setMode(tc.mode)
					tg := openTarget(t)
					tg.set(t, original)
					tg.selectAll(t)
					xdo(t, "keydown", "ctrl+shift+F8")
					time.Sleep(300 * time.Millisecond)
					say(t, instruction)
					time.Sleep(300 * time.Millisecond)
					xdo(t, "keyup", "ctrl+shift+F8")
					want := strings.ToUpper(original)
					if tc.why != "" {
						want = original
						if st := a.waitStatus(t, "Not rewritten", 90*time.Second); !strings.Contains(st, tc.why) {
							t.Errorf("status %q does not say %q", st, tc.why)
						}
					} else {
						a.waitStatus(t, "selection rewritten", 90*time.Second)
					}
					time.Sleep(time.Second)
					if got := tg.text(t); got != want {
						t.Fatalf("the window holds %q, want %q", got, want)
					}
					plain(t, "the window's text", tg.text(t))
				})
			}
		})
	}
}

// hostileOriginal is the text both hostile chat tests select and rewrite.
const hostileOriginal = "hey guys the meeting is moved to tuesday, bring the slides"

// hostileScene is what both hostile chat tests (the Linux app's and the
// one under wine) start from: the hostile chat server and its address, a
// dictation and a spoken rewrite instruction.
type hostileScene struct {
	chat             *hostileChat
	url              string
	wav, instruction string
}

func newHostileScene(t *testing.T) hostileScene {
	t.Helper()
	chat := &hostileChat{}
	srv := httptest.NewServer(chat)
	t.Cleanup(srv.Close)
	return hostileScene{chat: chat, url: srv.URL,
		wav: micWAV(t, "Go forward ten meters."), instruction: micWAV(t, "Make this more formal.")}
}

// hostileAnswers are the chat server's spoiled answers, each with what the
// refusal says ("" for one that is pasted, cleaned).
var hostileAnswers = []struct{ mode, why string }{
	{"controls", ""}, {"added line", "added line breaks"}, {"look-alike", "mixes Latin and Cyrillic"},
}

// waitPasted waits for a dictation's text in the window that text reads:
// the server's answer (the heard text in capitals) when why is "", else the
// text as heard; it fails the test on anything else, or on a character that
// is not plain text, and returns what the window holds.
func (c *hostileChat) waitPasted(t *testing.T, why string, text func(testing.TB) string) string {
	t.Helper()
	var got, want string
	waitFor(func() bool {
		if heard := strings.TrimSpace(c.lastSent()); heard != "" {
			want = heard
			if why == "" {
				want = strings.ToUpper(heard)
			}
		}
		got = strings.TrimPrefix(text(t), " ") // joined to a dictation before
		return want != "" && got == want
	}, 90*time.Second)
	time.Sleep(time.Second) // a stray Return or key would land by now
	if got = strings.TrimPrefix(text(t), " "); want == "" || got != want {
		t.Fatalf("the window holds %q, want %q (the server was sent %q)", got, want, c.lastSent())
	}
	plain(t, "the window's text", got)
	return got
}
