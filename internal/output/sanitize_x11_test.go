//go:build linux

package output

import (
	"context"
	"testing"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// hostile is what a chat server or a broken engine could hand the Paster: a
// window title set and the screen cleared by escape sequences, BEL, a bidi
// override, a zero-width space, a CR-LF, a lone CR and a tab.
const (
	hostile   = "\x1b]0;pwned\a\x1b[2J\x1b[HGo forward\u200b ten\u202e meters.\a\r\nThen stop\rnow\tplease \u009b31m🎉"
	hostileOK = "Go forward ten meters.\nThen stop now please 🎉"
)

// Whatever text reaches Output or Copy, the window and the clipboard get it
// as plain characters, in every mode: only the line feed stays (the
// producers let one through only where it was dictated).
func TestOutputSanitizes(t *testing.T) {
	for _, mode := range []choice.PasteMode{choice.Paste, choice.Type, choice.Clipboard} {
		t.Run(string(mode), func(t *testing.T) {
			p := newPaster(t, Config{Mode: mode})
			ownClipboard(t, "before")
			tg := startTarget(t)
			res, err := p.Output(context.Background(), hostile, Options{})
			if err != nil {
				t.Fatalf("Output: %v", err)
			}
			if res.Text != hostileOK {
				t.Errorf("Output delivered %q, want %q", res.Text, hostileOK)
			}
			if mode == choice.Clipboard {
				if got, _ := readClipboard(t); got != hostileOK {
					t.Fatalf("clipboard = %q, want %q", got, hostileOK)
				}
				return
			}
			tg.waitFor(hostileOK)
		})
	}
	t.Run("Copy", func(t *testing.T) {
		p := newPaster(t, Config{})
		if err := p.Copy(context.Background(), hostile); err != nil {
			t.Fatalf("Copy: %v", err)
		}
		if got, _ := readClipboard(t); got != hostileOK {
			t.Fatalf("clipboard = %q, want %q", got, hostileOK)
		}
	})
}
