package whisper_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad/vadtest"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// room is seconds of quiet room noise (about -60 dBFS), the same every run.
func room(seconds float64) []float32 {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]float32, int(seconds*whisper.SampleRate))
	for i := range out {
		out[i] = float32(r.NormFloat64() * 0.001)
	}
	return out
}

// A hold's release forces what its last two early transcriptions agree on
// (Options.Held) and decodes only the rest. On speech that says one phrase
// again after a pause, where the cut falls between the two: the repeated
// words are neither dropped nor doubled, and the text is the whole
// recording's, within the accuracy rule (a word at most).
func TestReleaseAfterHeldPassesRepeatedPhrase(t *testing.T) {
	m := openBase(t)
	m.UseSpeechDetector(vadtest.Open(t))
	const phrase = "Send the report to the finance team."
	const last = "Then call me back tomorrow morning."
	said := testenv.Speech(t, phrase)
	var audio []float32
	var pauses []int // where each early transcription's audio ends
	for range 3 {
		audio = append(audio, said...)
		audio = append(audio, room(0.3)...)
		pauses = append(pauses, len(audio))
		audio = append(audio, room(0.5)...)
	}
	audio = append(audio, testenv.Speech(t, last)...)
	audio = append(audio, room(0.4)...)
	want := strings.Repeat(phrase+" ", 3) + last

	for _, window := range []whisper.Window{whisper.ShortWindow, whisper.FullWindow} {
		t.Run(window.String()+" window", func(t *testing.T) {
			opt := whisper.DefaultOptions()
			opt.Language, opt.Window = "en", window
			ctx := context.Background()
			var held []whisper.Pass
			for _, p := range pauses[1:] { // the last two pauses
				r, err := m.Transcribe(ctx, audio[:p], opt)
				if err != nil {
					t.Fatal(err)
				}
				if r.Last == nil {
					t.Fatalf("the early transcription of %.1f s kept no last window", float64(p)/whisper.SampleRate)
				}
				held = append(held, *r.Last)
			}
			whole, err := m.Transcribe(ctx, audio, opt)
			if err != nil {
				t.Fatal(err)
			}
			opt.Held = held
			got, err := m.Transcribe(ctx, audio, opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("whole: %q", whole.Text)
			t.Logf("after %d forced tokens: %q", got.Forced, got.Text)
			if got.Forced == 0 {
				// The guards may refuse a forced decode (one in three
				// runs here, on the short window): the text is then the
				// whole decode's, which the checks below still hold.
				t.Logf("the forced decode was refused; decoded whole")
			}
			count := func(s string) int { return strings.Count(strings.ToLower(s), "send the report") }
			if n, w := count(got.Text), count(whole.Text); n != 3 {
				t.Errorf("the phrase came back %d times of 3 after the forced part (the whole decode: %d)", n, w)
			}
			if !strings.Contains(strings.ToLower(got.Text), "call me back") {
				t.Errorf("the words after the last pause are missing: %q", got.Text)
			}
			// The accuracy rule: no worse than the whole decode by more than a word.
			a, b := whisper.WordErrorRate(want, whole.Text), whisper.WordErrorRate(want, got.Text)
			if words := float64(len(strings.Fields(want))); b > a+1.01/words {
				t.Errorf("WER %.3f after the forced part, %.3f whole", b, a)
			}
		})
	}
}
