package dictation_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/whisperkey/whisperkey/internal/cleanup"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// cutAt is a Trimmer with a fixed answer.
type cutAt struct {
	n   int
	err error
}

func (c cutAt) Cut([]float32) (int, error) { return c.n, c.err }

// The engine hears the recording up to the cut, then Silence of digital
// silence; without a cut to trust it hears the recording as it is.
func TestEngineInput(t *testing.T) {
	rec := make([]float32, 3*whisper.SampleRate)
	for i := range rec {
		rec[i] = 0.25
	}
	off := whisper.DefaultOptions()
	off.DetectSpeech = false
	words := whisper.DefaultOptions()
	words.WordTimestamps = true
	cases := []struct {
		name string
		tr   dictation.Trimmer
		opt  whisper.Options
		kept int // samples of the recording heard; -1: the recording as it is
	}{
		{"cut: the speech, then silence", cutAt{n: whisper.SampleRate}, whisper.DefaultOptions(), whisper.SampleRate},
		{"cut at the end: silence still follows", cutAt{n: len(rec)}, whisper.DefaultOptions(), len(rec)},
		{"no trimmer", nil, whisper.DefaultOptions(), -1},
		{"speech detection off", cutAt{n: whisper.SampleRate}, off, -1},
		{"word timestamps: the file as it is", cutAt{n: whisper.SampleRate}, words, -1},
		{"the detector failed", cutAt{n: 10, err: errors.New("onnx")}, whisper.DefaultOptions(), -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := dictation.EngineInput(tc.tr, rec, tc.opt)
			if tc.kept < 0 {
				if len(got) != len(rec) || &got[0] != &rec[0] {
					t.Fatalf("got %d samples, want the recording (%d) itself", len(got), len(rec))
				}
				return
			}
			if len(got) != tc.kept+dictation.Silence {
				t.Fatalf("got %d samples, want %d kept + %d silent", len(got), tc.kept, dictation.Silence)
			}
			if !slices.Equal(got[:tc.kept], rec[:tc.kept]) || slices.ContainsFunc(got[tc.kept:], func(v float32) bool { return v != 0 }) {
				t.Error("not the recording's first samples followed by zeros")
			}
			if rec[len(rec)-1] != 0.25 {
				t.Error("the recording itself was written over")
			}
		})
	}
}

// The built-in cleanup modes as the checks read them: only list's answer
// may write line breaks nobody dictated (cleanup.Check refuses them in the
// others: under paste: type each is an Enter).
func TestBuiltinModesLines(t *testing.T) {
	modes := config.Cleanup{}.CleanupModes()
	for name, want := range map[string]bool{"clean": false, "formal": false, "list": true} {
		instruction, ok := modes[name]
		if !ok {
			t.Fatalf("no built-in mode %q", name)
		}
		if got := cleanup.AsksForLines(instruction); got != want {
			t.Errorf("mode %s: AsksForLines = %v, want %v (instruction %q)", name, got, want, instruction)
		}
	}
}
