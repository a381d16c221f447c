//go:build linux

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// speechFile is a clip of the cache's real speech (scripts/speech.sh,
// scripts/speech-langs.sh), already at the microphone's format, and its
// reference transcript.
func speechFile(t testing.TB, set, name string) (wav, ref string) {
	t.Helper()
	if set == "speech-langs" {
		for _, c := range testenv.LanguageSpeech(t) {
			if c.Name == name {
				return filepath.Join(testenv.Cache(), set, name+".wav"), c.Reference
			}
		}
	} else {
		for _, c := range testenv.RealSpeech(t) {
			if c.Name == name {
				return filepath.Join(testenv.Cache(), set, name+".wav"), c.Reference
			}
		}
	}
	t.Fatalf("no clip %s in %s (re-run scripts/speech.sh and scripts/speech-langs.sh)", name, set)
	return "", ""
}

// asciiWords reports whether s has at least two words, all in ASCII: an
// English sentence, not Swedish (å, ä, ö) or Japanese.
func asciiWords(s string) bool {
	for _, r := range s {
		if r > 127 {
			return false
		}
	}
	return len(strings.Fields(s)) >= 2
}

// Issue #53 item 5 on the real app: with languages: [en, de, sv], real
// German, Swedish and English speech each come out in its own language; the
// translate key turns real Swedish speech into English; the language key
// steps through en, de, sv and auto, and the tray shows the code.
func TestYourLanguages(t *testing.T) {
	desktopSession(t)
	swedish, swedishRef := speechFile(t, "speech-langs", "sv_nst_3")
	german, germanRef := speechFile(t, "speech-langs", "de_kt_words")
	english, englishRef := speechFile(t, "speech", "arctic_a0009")
	a := startApp(t, "  translate: ctrl+shift+f7\n  language: ctrl+shift+f6\nlanguages: [en, de, sv]\n")
	setClipboard(t, clipFirst)

	dictate := func(t *testing.T, chord, wav string) string {
		t.Helper()
		tg := openTarget(t)
		holdKeysWhile(t, chord, 300*time.Millisecond, func() { say(t, wav) })
		got := tg.waitText(t, 60*time.Second)
		t.Logf("pasted %q", got)
		return got
	}
	t.Run("Swedish speech in Swedish", func(t *testing.T) {
		got := dictate(t, "ctrl+shift+F9", swedish)
		if wer := whisper.WordErrorRate(swedishRef, got); wer > 0.4 || !strings.Contains(got, "barnbarn") {
			t.Fatalf("pasted %q (WER %.2f against %q), want the Swedish sentence", got, wer, swedishRef)
		}
	})
	t.Run("German speech in German", func(t *testing.T) {
		// A list of ten words (scripts/speech-langs.sh): in English they
		// would come out as other words, or as none.
		got := dictate(t, "ctrl+shift+F9", german)
		if wer := whisper.WordErrorRate(germanRef, got); wer > 0.4 || !strings.Contains(got, "Nase") {
			t.Fatalf("pasted %q (WER %.2f against %q), want the German words", got, wer, germanRef)
		}
	})
	t.Run("English speech in English", func(t *testing.T) {
		got := dictate(t, "ctrl+shift+F9", english)
		if wer := whisper.WordErrorRate(englishRef, got); wer > 0.3 {
			t.Fatalf("pasted %q (WER %.2f against %q), want the English sentence", got, wer, englishRef)
		}
	})
	t.Run("translate key: Swedish speech in English", func(t *testing.T) {
		got := dictate(t, "ctrl+shift+F7", swedish)
		if !asciiWords(got) || whisper.WordErrorRate(swedishRef, got) < 0.8 {
			t.Fatalf("pasted %q, want an English translation of %q", got, swedishRef)
		}
	})
	t.Run("language key steps through auto and the list", func(t *testing.T) {
		for _, want := range []string{"en", "de", "sv", "auto"} {
			xdo(t, "key", "ctrl+shift+F6")
			waitFile(t, a.config, "language: "+want)
			// The tray follows the file: its ready line names the code, and
			// the Language menu checks it.
			var status, checked string
			shown := func() bool {
				status, _ = a.menu.Status()
				checked = ""
				for _, n := range a.submenu(t, "Language").Shown() {
					if n.Checked {
						checked = n.Label
					}
				}
				if want == "auto" {
					return strings.Contains(status, "ready") && !strings.Contains(status, "· language ") && checked == "Detect automatically"
				}
				return strings.Contains(status, "· language "+want) && strings.HasSuffix(checked, "("+want+")")
			}
			deadline := time.Now().Add(30 * time.Second)
			for !shown() && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			if !shown() {
				t.Fatalf("after the language key to %s: tray status %q, Language menu checks %q", want, status, checked)
			}
			t.Logf("%s: %q, menu %q", want, status, checked)
		}
	})
}

// The translate key with an English-only model is refused at the press,
// with the reason, and nothing is recorded or pasted.
func TestTranslateRefusedForEnglishOnlyModel(t *testing.T) {
	desktopSession(t)
	swedish, _ := speechFile(t, "speech-langs", "sv_nst_3")
	cfg := "model: " + testenv.Model(t, "tiny.en") + "\nhotkeys:\n  record: ctrl+shift+f9\n  translate: ctrl+shift+f7\n"
	a, _ := launchApp(t, cfg)
	a.waitStatus(t, "ready", 90*time.Second)
	tg := openTarget(t)
	holdKeysWhile(t, "ctrl+shift+F7", 300*time.Millisecond, func() { say(t, swedish) })
	s := a.waitStatus(t, "Cannot translate", 30*time.Second)
	t.Logf("refused: %q", s)
	if !strings.Contains(s, "English-only model") {
		t.Fatalf("tray status %q does not say why", s)
	}
	if got := tg.waitText(t, 5*time.Second); got != "" {
		t.Fatalf("target got %q, want nothing", got)
	}
}
