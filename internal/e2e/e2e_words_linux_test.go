//go:build linux

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// TestDictationUsesYourWords: in the running app the vocabulary reaches
// decoding, and spoken punctuation and replacements run between recognition
// and paste; a multi-line result lands in the target window as written.
func TestDictationUsesYourWords(t *testing.T) {
	desktopSession(t)
	lines := micWAV(t, "first line new line second line")
	name := micWAV(t, "Please send the report to Siobhan before lunch.")
	startApp(t, `spoken_punctuation: true
vocabulary:
  - Siobhan
replacements:
  - {from: "second line", to: "Line two"}
  - {from: "2nd line", to: "Line two"}
`)
	setClipboard(t, clipFirst)
	tg := openTarget(t)

	holdAndSay(t, lines)
	got := tg.waitText(t, 30*time.Second)
	// Whisper writes "first" or "1st" depending on the CPU's int8 kernels
	// (CI's wrote "1st line"), so both spellings count and both are replaced.
	firstLine := map[string]bool{"first line": true, "1st line": true}
	parts := strings.Split(got, "\n")
	if len(parts) != 2 || !firstLine[whisper.Normalize(parts[0])] || strings.TrimRight(parts[1], ".") != "Line two" {
		t.Fatalf("target got %q, want the two lines \"First line\" and \"Line two\"", got)
	}
	t.Logf("pasted %q", got)

	holdAndSay(t, name)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(strings.ToLower(got), "lunch") {
		time.Sleep(200 * time.Millisecond)
		got = tg.text(t)
	}
	time.Sleep(300 * time.Millisecond) // let the paste finish
	got = tg.text(t)
	second := strings.TrimPrefix(got, strings.Join(parts, "\n"))
	if !strings.Contains(second, "Siobhan") || whisper.WordErrorRate("Please send the report to Siobhan before lunch.", second) > 0.2 {
		t.Fatalf("second dictation %q, want the sentence with Siobhan spelled as in the vocabulary", second)
	}
	t.Logf("then pasted %q", second)
	if clip := clipboardText(t); clip != clipFirst {
		time.Sleep(time.Second) // the app restores the clipboard after its delay
		if clip = clipboardText(t); clip != clipFirst {
			t.Errorf("clipboard holds %q, want what it held before: %q", clip, clipFirst)
		}
	}
}
