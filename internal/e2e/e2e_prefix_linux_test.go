package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Issue #49 item 5: a transcription after more words, early or at the
// release, forces what the hold's last two early transcriptions agree on
// (decoding.early_prefix, turned on here; off by default) and decodes only the rest. Through the real app: the text is what
// `transcribe` gives of the same recording within the accuracy rule (a word
// at most), a phrase said again across the cut comes back as often as it
// was said, and Esc drops the hold's words with everything else.
func TestReleaseForcesHeldWords(t *testing.T) {
	desktopSession(t)
	recordings := t.TempDir()
	cfg := "model: " + testenv.Model(t, "base") + "\nlanguage: en\ndecoding:\n  early_prefix: true\nhotkeys:\n  record: ctrl+shift+f9\n  cancel: esc\n"
	a, _ := launchApp(t, cfg, "WHISPERKEY_LOG_FORMAT=json", "WHISPERKEY_SAVE_RECORDINGS="+recordings)
	a.waitStatus(t, "ready", 90*time.Second)
	tg := openTarget(t)
	const (
		one   = "Please call me back tomorrow morning."
		two   = "The quarterly report is due on Friday afternoon."
		three = "Turn left at the bakery and park behind the bank."
	)
	wavs := map[string]string{}
	for _, s := range []string{one, two, three} {
		wavs[s] = micWAV(t, s)
	}
	// pause waits, the key held, until the early transcription of what was
	// said so far has ended (its words shown as live text): however loaded
	// the machine, the hold has decoded it.
	pause := func(t *testing.T) {
		t.Helper()
		shown := len(records(a.log, "live text shown"))
		for start := time.Now(); len(records(a.log, "live text shown")) == shown; time.Sleep(100 * time.Millisecond) {
			if time.Since(start) > 60*time.Second {
				xdo(t, "keyup", "ctrl+shift+F9")
				t.Fatal("no early transcription ended within 60 s of a pause")
			}
		}
	}
	// hold says each sentence with a pause after all but the last, which
	// ends with the release: the hold's transcriptions have decoded the
	// first ones, and the release has words after them.
	hold := func(t *testing.T, sentences ...string) (dictatedRecord, int, string) {
		t.Helper()
		tg.clear(t)
		before := len(records(a.log, "dictated"))
		xdo(t, "keydown", "ctrl+shift+F9")
		time.Sleep(300 * time.Millisecond)
		for i, s := range sentences {
			say(t, wavs[s])
			if i < len(sentences)-1 {
				pause(t)
			}
		}
		xdo(t, "keyup", "ctrl+shift+F9")
		r := waitRecord(t, a.log, "dictated", before, 90*time.Second)
		return r, r.Forced, strings.TrimSpace(tg.waitText(t, 10*time.Second))
	}
	transcribeLatest := func(t *testing.T) string { return a.transcribeLatest(t, recordings) }
	// withinRule checks got against the whole recording's text want: no
	// more errors against said than want has, plus one word.
	withinRule := func(t *testing.T, said, got, want string) {
		t.Helper()
		words := float64(len(strings.Fields(said)))
		if a, b := whisper.WordErrorRate(said, want), whisper.WordErrorRate(said, got); b > a+1.01/words {
			t.Errorf("pasted %q (WER %.3f); transcribe of the same recording gives %q (WER %.3f)", got, b, want, a)
		}
	}

	t.Run("three sentences, the last said up to the release: the hold's words are forced", func(t *testing.T) {
		r, forced, got := hold(t, one, two, three)
		said := one + " " + two + " " + three
		t.Logf("pasted %q, %d tokens forced, release to paste %.0f ms, engine %.0f ms", got, forced, r.ReleaseToPaste, r.Engine)
		if forced == 0 {
			t.Errorf("the release forced nothing of the hold's words")
		}
		withinRule(t, said, got, transcribeLatest(t))
	})

	t.Run("a sentence said again across the cut is neither dropped nor doubled", func(t *testing.T) {
		r, forced, got := hold(t, one, one, three)
		t.Logf("pasted %q, %d tokens forced, release to paste %.0f ms", got, forced, r.ReleaseToPaste)
		if n := strings.Count(strings.ToLower(got), "call me back"); n != 2 {
			t.Errorf("the repeated sentence came back %d times of 2: %q", n, got)
		}
		if !strings.Contains(strings.ToLower(got), "bakery") {
			t.Errorf("the words after the last pause are missing: %q", got)
		}
		withinRule(t, one+" "+one+" "+three, got, transcribeLatest(t))
	})

	t.Run("Esc after the hold's transcriptions pastes nothing, and the next dictation has none of their words", func(t *testing.T) {
		tg.clear(t)
		xdo(t, "keydown", "ctrl+shift+F9")
		time.Sleep(300 * time.Millisecond)
		say(t, wavs[one])
		pause(t)
		say(t, wavs[two])
		pause(t) // two early transcriptions have ended
		xdo(t, "key", "Escape")
		time.Sleep(200 * time.Millisecond)
		xdo(t, "keyup", "ctrl+shift+F9")
		if got := tg.waitText(t, 6*time.Second); got != "" {
			t.Fatalf("the target got %q after Esc", got)
		}
		a.waitStatus(t, "Cancelled", 5*time.Second)
		_, forced, got := hold(t, three)
		if forced != 0 || strings.Contains(strings.ToLower(got), "call me") || strings.Contains(strings.ToLower(got), "quarterly") {
			t.Errorf("after Esc, the next dictation pasted %q with %d tokens forced", got, forced)
		}
		if wer := whisper.WordErrorRate(three, got); wer > 0.15 {
			t.Errorf("pasted %q (WER %.2f), want %q", got, wer, three)
		}
	})
}
