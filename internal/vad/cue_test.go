package vad_test

import (
	"bytes"
	"testing"

	"github.com/whisperkey/whisperkey/assets"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/vad/vadtest"
)

// The microphone hears the app's own cues: the start cue plays as recording
// begins, and the pre-roll holds the last dictation's stop and done cues when
// the next press follows soon. None of them may pass the speech gate, or a
// press with nothing said comes back as a hallucination ("I'm sorry.").
func TestCuesAreNotSpeech(t *testing.T) {
	d := vadtest.Open(t)
	for _, name := range []string{assets.SoundStart, assets.SoundStop, assets.SoundDone} {
		c, err := audio.DecodeWAV(bytes.NewReader(assets.Sound(name)))
		if err != nil {
			t.Fatal(err)
		}
		cue := audio.Resample(c.Samples, c.Rate, 16000)
		for _, lead := range []int{0, 1000, 2000, 3000, 4000, 8000} { // samples of silence first
			for _, gain := range []float32{0.3, 1, 4} { // a quiet to a loud, clipping speaker
				s := make([]float32, lead+len(cue)+8000)
				for i, v := range cue {
					s[lead+i] = max(-1, min(1, v*gain))
				}
				_, _, ok, err := d.Speech(s)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					probs, _ := d.Probs(s)
					t.Errorf("%s cue after %d samples at gain %v heard as speech; window probabilities %.2f", name, lead, gain, probs)
				}
			}
		}
	}
}
