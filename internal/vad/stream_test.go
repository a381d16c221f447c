package vad_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad"
	"github.com/whisperkey/whisperkey/internal/vad/vadtest"
)

// The stream is what a hold's speculation scores as the audio arrives; Cut
// is what the release (and transcribe) computes on the whole recording.
// They must agree exactly, whatever pieces the audio came in, or the
// speculation would transcribe other audio than the release.
func TestStreamAgreesWithCutBitForBit(t *testing.T) {
	d := vadtest.Open(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range clips(t) {
		t.Run(c.name, func(t *testing.T) {
			whole := d.NewStream()
			if err := whole.Write(c.samples); err != nil {
				t.Fatal(err)
			}
			cut, err := d.Cut(c.samples)
			if err != nil {
				t.Fatal(err)
			}
			if cut != whole.Cut(len(c.samples)) {
				t.Fatalf("Cut %d, stream %d", cut, whole.Cut(len(c.samples)))
			}
			for range 3 {
				s := d.NewStream()
				for rest := c.samples; len(rest) > 0; {
					k := min(len(rest), 1+rng.IntN(3000)) // audio callbacks of any size
					if err := s.Write(rest[:k]); err != nil {
						t.Fatal(err)
					}
					rest = rest[k:]
				}
				if !slices.Equal(s.Probs(), whole.Probs()) {
					t.Fatal("scores differ when the audio comes in pieces")
				}
				if got := s.Cut(len(c.samples)); got != cut {
					t.Fatalf("cut %d in pieces, %d whole", got, cut)
				}
			}
			// The cut is a fixed point: transcribing the cut recording
			// (the speculation) cuts it nowhere else.
			if again, err := d.Cut(c.samples[:cut]); err != nil || again != cut {
				t.Fatalf("cut of the cut recording %d (%v), want %d", again, err, cut)
			}
			if c.speech != whole.Voiced() {
				t.Errorf("voiced %v, want %v", whole.Voiced(), c.speech)
			}
		})
	}
}

// The stream scores what the batch scorer (and faster-whisper) scores, to
// the tolerance the batch scorer keeps with faster-whisper.
func TestStreamScoresAsTheBatch(t *testing.T) {
	d := vadtest.Open(t)
	for _, c := range clips(t) {
		s := d.NewStream()
		if err := s.Write(c.samples); err != nil {
			t.Fatal(err)
		}
		batch, err := d.Probs(c.samples)
		if err != nil {
			t.Fatal(err)
		}
		got := s.Probs()
		if len(got) != len(c.samples)/vad.Window {
			t.Fatalf("%s: %d scores for %d samples", c.name, len(got), len(c.samples))
		}
		worst := 0.0
		for i, p := range got {
			worst = max(worst, math.Abs(float64(p-batch[i])))
		}
		if worst > probTolerance {
			t.Errorf("%s: stream and batch scores differ by up to %g", c.name, worst)
		}
	}
}

// A cut keeps TailSamples after the last voiced window: silence added after
// speech is cut there, and no speech is cut.
func TestCutKeepsTheSpeechAndATail(t *testing.T) {
	d := vadtest.Open(t)
	spoken := testenv.Speech(t, "Please call me back when you get this message.")
	// espeak-ng ends its file with silence of its own: the speech ends at
	// the last sample above -60 dBFS.
	end := len(spoken)
	for end > 0 && math.Abs(float64(spoken[end-1])) < 1e-3 {
		end--
	}
	for _, silence := range []int{0, 2000, 4000, 8000, 32000} {
		t.Run(fmt.Sprintf("%d samples of silence", silence), func(t *testing.T) {
			rec := append(slices.Clone(spoken), make([]float32, silence)...)
			cut, err := d.Cut(rec)
			if err != nil {
				t.Fatal(err)
			}
			if cut < end || cut > len(rec) {
				t.Fatalf("cut at %d of %d (speech ends at %d)", cut, len(rec), end)
			}
			if cut > end+vad.TailSamples+2*vad.Window {
				t.Errorf("cut at %d keeps %d samples after the speech", cut, cut-end)
			}
		})
	}
}
