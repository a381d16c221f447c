package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// moreSentences are distinct sentences for long speech: Whisper's
// repetition check would send a window of repeated text through every
// fallback temperature.
var moreSentences = []string{
	"The quarterly report is due on Friday afternoon.",
	"Let us meet in the small conference room at ten.",
	"Her flight from Chicago lands just after midnight.",
	"Please water the plants while I am away.",
	"The train was delayed by almost an hour this morning.",
	"We need a new battery for the smoke alarm.",
	"My brother is painting the kitchen a pale yellow.",
	"Turn left at the bakery and park behind the bank.",
	"The library closes early on public holidays.",
	"Send the invoice to the accounting team by Monday.",
	"The printer on the third floor needs more paper.",
}

// longSpeech is espeak-ng speech of sentences, repeated until the audio is
// at least seconds long, with pause seconds of silence after each, at the
// virtual microphone's format; it returns the WAV and the text said.
func longSpeech(t testing.TB, sentences []string, seconds, pause float64) (string, string) {
	t.Helper()
	dir := t.TempDir()
	gap := filepath.Join(dir, "gap.wav")
	if o, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", "-b", "16", gap, "trim", "0", strconv.FormatFloat(pause, 'f', 3, 64)).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, o)
	}
	var parts, said []string
	total := 0.0
	for i := 0; total < seconds; i++ {
		s := sentences[i%len(sentences)]
		w := micWAV(t, s)
		parts = append(parts, w, gap)
		said = append(said, s)
		total += wavSeconds(t, w) + pause
	}
	out := filepath.Join(dir, "long.wav")
	if o, err := exec.Command("sox", append(parts, out)...).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, o)
	}
	return out, strings.Join(said, " ")
}

func wavSeconds(t testing.TB, wav string) float64 {
	t.Helper()
	out, err := exec.Command("soxi", "-D", wav).Output()
	if err != nil {
		t.Fatalf("soxi %s: %v", wav, err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("soxi %s: %q", wav, out)
	}
	return v
}

// Issue #33: the text is ready when the key is let go. The app transcribes
// during the hold once the speech has ended; the release uses that text
// only when nothing was said after it, and it is the release's own text.
func TestTextReadyAtRelease(t *testing.T) {
	desktopSession(t)
	recordings := t.TempDir()
	cfg := "model: " + testenv.Model(t, "base") + "\nlanguage: en\nhotkeys:\n  record: ctrl+shift+f9\n  cancel: esc\n"
	a, _ := launchApp(t, cfg, "WHISPERKEY_LOG_FORMAT=json", "WHISPERKEY_SAVE_RECORDINGS="+recordings)
	a.waitStatus(t, "ready", 90*time.Second)
	tg := openTarget(t)
	const second = "Please call me back tomorrow."
	first, more := micWAV(t, dictated), micWAV(t, second)

	// dictate holds the key, runs speak, and waits for the dictation's
	// record and text.
	dictate := func(t *testing.T, speak func()) (dictatedRecord, string) {
		t.Helper()
		tg.clear(t)
		before := len(records(a.log, "dictated"))
		xdo(t, "keydown", "ctrl+shift+F9")
		time.Sleep(300 * time.Millisecond)
		speak()
		xdo(t, "keyup", "ctrl+shift+F9")
		r := waitRecord(t, a.log, "dictated", before, 90*time.Second)
		return r, strings.TrimSpace(tg.waitText(t, 10*time.Second))
	}
	transcribeLatest := func(t *testing.T) string { return a.transcribeLatest(t, recordings) }

	t.Run("a pause before the release: the text was ready, and it is the release's", func(t *testing.T) {
		r, got := dictate(t, func() { say(t, first); time.Sleep(1200 * time.Millisecond) })
		if !r.Early {
			t.Errorf("the paste did not use the text transcribed during the hold (record %+v)", r)
		}
		if wer := whisper.WordErrorRate(dictated, got); wer > 0.15 {
			t.Fatalf("pasted %q (WER %.2f)", got, wer)
		}
		if want := transcribeLatest(t); got != want {
			t.Errorf("pasted %q; transcribe of the same recording gives %q", got, want)
		}
		t.Logf("pasted %q, release to paste %.0f ms", got, r.ReleaseToPaste)
	})

	t.Run("live text: the words so far show on the indicator during the hold, never in the window", func(t *testing.T) {
		tg.clear(t)
		shown, before := len(records(a.log, "live text shown")), len(records(a.log, "dictated"))
		xdo(t, "keydown", "ctrl+shift+F9")
		time.Sleep(300 * time.Millisecond)
		say(t, first)
		held := time.Now()
		for len(records(a.log, "live text shown")) == shown {
			if time.Since(held) > 30*time.Second {
				xdo(t, "keyup", "ctrl+shift+F9")
				t.Fatal("no live text on the indicator within 30 s of the pause, the key still held")
			}
			time.Sleep(100 * time.Millisecond)
		}
		during := tg.text(t)
		xdo(t, "keyup", "ctrl+shift+F9")
		t.Logf("live text shown %.1f s into the pause", time.Since(held).Seconds())
		if during != "" {
			t.Fatalf("the window got %q before the release", during)
		}
		waitRecord(t, a.log, "dictated", before, 90*time.Second)
		if got := strings.TrimSpace(tg.waitText(t, 10*time.Second)); whisper.WordErrorRate(dictated, got) > 0.15 {
			t.Fatalf("pasted %q after the release, want %q", got, dictated)
		}
	})

	t.Run("released while the early transcription runs: the release waits for it", func(t *testing.T) {
		// 0.5 s after the last word: the early transcription began 0.25 s
		// after it and takes longer than the rest of the pause.
		r, got := dictate(t, func() { say(t, first); time.Sleep(500 * time.Millisecond) })
		if !r.Early {
			t.Errorf("the paste did not use the early transcription in flight (record %+v)", r)
		}
		if want := transcribeLatest(t); got != want {
			t.Errorf("pasted %q; transcribe of the same recording gives %q", got, want)
		}
	})

	t.Run("words after the pause are in the paste", func(t *testing.T) {
		r, got := dictate(t, func() {
			say(t, first)
			time.Sleep(1200 * time.Millisecond) // the early transcription runs, and is done
			say(t, more)
		})
		if wer := whisper.WordErrorRate(dictated+" "+second, got); wer > 0.15 {
			t.Fatalf("pasted %q (WER %.2f), want both sentences", got, wer)
		}
		// Live text (on by default) lets the first sentence's transcription
		// end and start the next at once after the second: early text then
		// is of both sentences, the release's own.
		if want := transcribeLatest(t); r.Early && got != want {
			t.Errorf("pasted early text %q; transcribe of the same recording gives %q", got, want)
		}
		if r.Wasted <= 0 {
			t.Errorf("record %+v: the dropped early transcription's engine time is not reported", r)
		}
	})

	t.Run("Esc during an early transcription pastes nothing", func(t *testing.T) {
		tg.clear(t)
		xdo(t, "keydown", "ctrl+shift+F9")
		time.Sleep(300 * time.Millisecond)
		say(t, first)
		time.Sleep(400 * time.Millisecond) // the early transcription has begun
		xdo(t, "key", "Escape")
		time.Sleep(200 * time.Millisecond)
		xdo(t, "keyup", "ctrl+shift+F9")
		if got := tg.waitText(t, 6*time.Second); got != "" {
			t.Fatalf("the target got %q after Esc", got)
		}
		a.waitStatus(t, "Cancelled", 5*time.Second)
	})

	t.Run("a 60 s dictation with pauses is pasted whole and right", func(t *testing.T) {
		wav, said := longSpeech(t, append([]string{dictated, second}, moreSentences...), 60, 0.8)
		r, got := dictate(t, func() { say(t, wav); time.Sleep(600 * time.Millisecond) })
		if wer := whisper.WordErrorRate(said, got); wer > 0.15 {
			t.Fatalf("pasted %q (WER %.2f), want %q", got, wer, said)
		}
		t.Logf("60 s: early %v, release to paste %.0f ms, wasted %.0f ms, windows reused %d", r.Early, r.ReleaseToPaste, r.Wasted, r.Reused)
	})

	t.Run("decoding.early off and on again: the background worker follows, no model load", func(t *testing.T) {
		loads := len(records(a.log, "engine loaded"))
		for _, on := range []bool{false, true} {
			if err := os.WriteFile(a.config, []byte(cfg+fmt.Sprintf("decoding:\n  early: %v\n", on)), 0o644); err != nil {
				t.Fatal(err)
			}
			want := 1
			if on {
				want = 2
			}
			deadline := time.Now().Add(20 * time.Second)
			for len(a.engineWorkers(t)) != want && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			if got := a.engineWorkers(t); len(got) != want {
				t.Fatalf("early: %v: engine workers %v, want %d", on, got, want)
			}
			r, got := dictate(t, func() { say(t, first); time.Sleep(1200 * time.Millisecond) })
			if r.Early != on {
				t.Errorf("early: %v: the paste's record says early %v (%+v)", on, r.Early, r)
			}
			if wer := whisper.WordErrorRate(dictated, got); wer > 0.15 {
				t.Fatalf("early: %v: pasted %q (WER %.2f)", on, got, wer)
			}
		}
		if n := len(records(a.log, "engine loaded")); n != loads {
			t.Errorf("the model was loaded %d more times; the setting needs none", n-loads)
		}
	})

	t.Run("a model switch during the hold drops the early text", func(t *testing.T) {
		switched := strings.Replace(cfg, testenv.Model(t, "base"), testenv.Model(t, "tiny.en"), 1)
		r, got := dictate(t, func() {
			say(t, first)
			time.Sleep(1200 * time.Millisecond) // the early transcription, on base, is done
			if err := os.WriteFile(a.config, []byte(switched), 0o644); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1500 * time.Millisecond) // the app reloads its config and loads tiny.en
		})
		if r.Early {
			t.Errorf("the paste used text transcribed by the old model (record %+v)", r)
		}
		if wer := whisper.WordErrorRate(dictated, got); wer > 0.15 {
			t.Fatalf("pasted %q (WER %.2f)", got, wer)
		}
		if want := transcribeLatest(t); got != want {
			t.Errorf("pasted %q; transcribe with the new model gives %q", got, want)
		}
	})
}
