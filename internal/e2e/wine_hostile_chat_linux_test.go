//go:build linux

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// TestHostileChatAnswerPastedClean with the installed whisperkey.exe under
// wine: the hostile chat server's answers to the AI cleanup of a dictation
// and to a rewrite by voice reach a Win32 edit control through the Windows
// clipboard and Ctrl+V, or SendInput's Unicode keystrokes, as plain text;
// an answer that adds a line or hides a Cyrillic letter is refused (the
// dictation pasted as heard, the selection left as it was), and the log says
// why. Transcription runs on a Linux `whisperkey serve` (remote.url).
func TestWineHostileChatAnswerPastedClean(t *testing.T) {
	w, tools, dir, srv := installedWine(t)
	sc := newHostileScene(t)
	chat, wav, instruction, original := sc.chat, sc.wav, sc.instruction, hostileOriginal

	for _, mode := range []choice.PasteMode{choice.Paste, choice.Type} {
		t.Run(string(mode), func(t *testing.T) {
			a := startWineApp(t, w, dir+`\whisperkey.exe`, "remote:\n  url: "+srv.url+
				"\nhotkeys:\n  record: ctrl+win\n  cancel: esc\n  edit: ctrl+shift+f8\npaste: "+string(mode)+
				"\ncleanup:\n  enabled: true\n  url: "+sc.url+"\n  model: hostile\n  timeout: 30s\nedit:\n  timeout: 30s\n")
			refusals := func() int { return strings.Count(a.logText(t), "the answer was not a rewrite of the text") }
			for _, tc := range hostileAnswers {
				t.Run("dictation, "+tc.mode, func(t *testing.T) {
					chat.setMode(tc.mode)
					before := refusals()
					tg := openWineTarget(t, w, tools)
					holdWinHotkey(t, wav)
					got := chat.waitPasted(t, tc.why, tg.text)
					if tc.why != "" && (refusals() == before || !strings.Contains(a.logText(t), tc.why)) {
						t.Errorf("the log has no refusal of the %s answer saying %q", tc.mode, tc.why)
					}
					t.Logf("pasted %q", got)
				})
				t.Run("rewrite, "+tc.mode, func(t *testing.T) {
					chat.setMode(tc.mode)
					tg := openWineTarget(t, w, tools)
					xdo(t, "type", "--delay", "20", original)
					if !waitFor(func() bool { return tg.text(t) == original }, 20*time.Second) {
						t.Fatalf("typing gave %q, want %q", tg.text(t), original)
					}
					xdo(t, "key", "shift+Home") // wine's edit control has no Ctrl+A
					done := strings.Count(a.logText(t), `msg="selection rewritten"`)
					refused := strings.Count(a.logText(t), `msg="selection not rewritten"`)
					xdo(t, "keydown", "ctrl+shift+F8")
					time.Sleep(300 * time.Millisecond)
					say(t, instruction)
					time.Sleep(300 * time.Millisecond)
					xdo(t, "keyup", "ctrl+shift+F8")
					if !waitFor(func() bool {
						log := a.logText(t)
						return strings.Count(log, `msg="selection rewritten"`) > done || strings.Count(log, `msg="selection not rewritten"`) > refused
					}, 90*time.Second) {
						t.Fatalf("no rewrite within 90 s; the window holds %q", tg.text(t))
					}
					want := strings.ToUpper(original)
					if tc.why != "" {
						want = original
						if log := a.logText(t); strings.Count(log, `msg="selection not rewritten"`) == refused || !strings.Contains(log, tc.why) {
							t.Errorf("the log has no refusal of the %s rewrite saying %q", tc.mode, tc.why)
						}
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
