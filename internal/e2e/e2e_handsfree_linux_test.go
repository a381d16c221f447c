//go:build linux

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// A recording no key holds ended by silence, on the real app: one tap (in
// toggle mode, and in auto mode, where a tap latches the recording on), the
// sentence into the virtual microphone, then the room's silence; the text is
// pasted with no second press. A tap with nothing said after it ends as
// Nothing heard.
func TestToggleEndedBySilence(t *testing.T) {
	desktopSession(t)
	wav := micWAV(t, dictated)
	for _, mode := range []string{"toggle", "auto"} {
		t.Run(mode, func(t *testing.T) {
			a := startApp(t, "  mode: "+mode+"\n  stop_after_silence: 1.5s\n")
			tap := func() {
				xdo(t, "keydown", "ctrl+shift+F9")
				time.Sleep(150 * time.Millisecond) // under auto mode's 300-ms tap
				xdo(t, "keyup", "ctrl+shift+F9")
			}

			tg := openTarget(t)
			tap()
			time.Sleep(50 * time.Millisecond)
			say(t, wav) // and nothing more: no key until the paste
			got := tg.waitText(t, 60*time.Second)
			if wer := whisper.WordErrorRate(dictated, got); got == "" || wer > 0.15 {
				t.Fatalf("target got %q (WER %.2f), want %q without a second press", got, wer, dictated)
			}
			if n := a.logCount(t, "recording ended by silence"); n != 1 {
				t.Fatalf("the log says %d times that silence ended a recording, want 1", n)
			}
			t.Logf("pasted %q after the silence", got)

			// The hotkeys know the recording ended: the next press starts one.
			tg.clear(t)
			tap()
			a.waitStatus(t, "Nothing heard", 60*time.Second)
			if n := a.logCount(t, "recording ended by silence"); n != 2 {
				t.Fatalf("the log says %d times that silence ended a recording, want 2", n)
			}
			if got := tg.text(t); got != "" {
				t.Fatalf("a press with nothing said put %q in the window", got)
			}
		})
	}
}

// Spoken send, on the real app: "Send it." said as its own sentence at the
// end presses Enter after the paste (the Tk text widget takes it as a new
// line) and is not typed; said inside a sentence it is text, with no Enter.
func TestSpokenSendPressesEnterOnlyAtTheEnd(t *testing.T) {
	desktopSession(t)
	startApp(t, "")
	tests := []struct {
		name  string
		said  []string // sentences said with a pause between them, as a person sends
		want  string
		enter bool
	}{
		{"at the very end", []string{"See you at noon in the kitchen.", "Send it."}, "See you at noon in the kitchen.", true},
		{"inside the sentence", []string{"I will send it to the team tomorrow."}, "I will send it to the team tomorrow.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var wavs []string
			for _, s := range tt.said {
				wavs = append(wavs, micWAV(t, s))
			}
			tg := openTarget(t)
			holdWhile(t, 300*time.Millisecond, func() {
				for i, wav := range wavs {
					if i > 0 {
						time.Sleep(time.Second)
					}
					say(t, wav)
				}
			})
			got := tg.waitText(t, 30*time.Second)
			text, enter := strings.CutSuffix(got, "\n")
			if wer := whisper.WordErrorRate(tt.want, text); text == "" || wer > 0.15 || enter != tt.enter {
				t.Fatalf("target got %q (WER %.2f of the text, Enter %v), want %q with Enter %v", got, wer, enter, tt.want, tt.enter)
			}
			if strings.Contains(strings.ToLower(got), "send it") != !tt.enter {
				t.Fatalf("target got %q: the phrase must be typed only inside the sentence", got)
			}
			t.Logf("pasted %q", got)
		})
	}
}
