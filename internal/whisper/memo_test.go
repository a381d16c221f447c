package whisper_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// A long hold: a transcription at a pause past 30 s decodes the first window,
// and the release's, on the whole recording, reuses it when its features are
// the same to the bit, and decodes it again when they are not. Either way the
// words are those of a transcriber that never saw the pause.
func TestLongHoldReusesWholeWindows(t *testing.T) {
	m := openBase(t)
	var reader []testenv.Clip // one speaker's consecutive clips
	for _, c := range testenv.RealSpeech(t) {
		if strings.HasPrefix(c.Name, "librivox_") {
			reader = append(reader, c)
		}
	}
	if len(reader) < 3 {
		t.Fatalf("the real-speech set has %d librivox clips, want 5: re-run scripts/speech.sh", len(reader))
	}
	// Digital silence between the clips: its log-mel bins sit at the floor,
	// 8 decades under the loudest frame, so a louder word later moves them.
	gap := make([]float32, whisper.SampleRate*4/10)
	var held []float32 // up to the pause past 30 s
	for i := 0; len(held) < whisper.NSamples+whisper.SampleRate/5; i++ {
		held = append(append(held, reader[i%len(reader)].Samples...), gap...)
	}
	var rest []float32 // what the speaker says after that pause
	for _, c := range reader[:2] {
		rest = append(append(rest, c.Samples...), gap...)
	}
	scaled := func(gain float32) []float32 {
		out := slices.Clone(held)
		for _, v := range rest {
			out = append(out, max(-1, min(1, v*gain)))
		}
		return out
	}
	cases := []struct {
		name   string
		gain   float32
		reused int
	}{
		{"speech as loud as before: the first window is reused", 0.5, 1},
		{"louder speech later renormalises the features: decoded again", 2, 0},
	}
	opt := whisper.DefaultOptions()
	opt.Window = whisper.FullWindow
	nMels := m.Client.Ready().Model.NMels
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			log := testlog.New(t, slog.LevelWarn)
			release := scaled(tc.gain)
			want, err := whisper.NewTranscriber(m.Client, m.Tok, nMels, log).Transcribe(ctx, release, opt)
			if err != nil {
				t.Fatal(err)
			}
			hold := whisper.NewTranscriber(m.Client, m.Tok, nMels, log)
			early, err := hold.Transcribe(ctx, held, opt)
			if err != nil {
				t.Fatal(err)
			}
			if early.Reused != 0 {
				t.Fatalf("the hold's first transcription reused %d windows", early.Reused)
			}
			got, err := hold.Transcribe(ctx, release, opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%.1f s held, %.1f s at the release: reused %d window(s), engine %v (fresh %v)",
				early.Duration, got.Duration, got.Reused, got.Timings.Engine, want.Timings.Engine)
			if got.Reused != tc.reused {
				t.Errorf("reused %d windows, want %d", got.Reused, tc.reused)
			}
			if got.Text != want.Text || got.Language != want.Language {
				t.Fatalf("with the hold's windows: %q (%s)\nfresh: %q (%s)", got.Text, got.Language, want.Text, want.Language)
			}
			if len(got.Segments) != len(want.Segments) {
				t.Fatalf("%d segments, fresh %d", len(got.Segments), len(want.Segments))
			}
			for i, s := range got.Segments {
				w := want.Segments[i]
				if s.Start != w.Start || s.End != w.End || !slices.Equal(s.Tokens, w.Tokens) {
					t.Errorf("segment %d: %.2f-%.2f %v, fresh %.2f-%.2f %v", i, s.Start, s.End, s.Tokens, w.Start, w.End, w.Tokens)
				}
			}
		})
	}
}
