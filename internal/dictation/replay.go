package dictation

import (
	"context"
	"math"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// replayStep is how much audio Replay gives the stream at a time: Ahead's
// default read tick.
const replayStep = whisper.SampleRate * 40 / 1000

// Replay transcribes samples as a dictation held over them would be, for
// measuring what the hold's passes change (transcribe --as-held). stream
// follows the recording 40 ms at a time; at each pause (the speech's cut
// and its tail all scored) the audio up to the cut is transcribed, as Ahead
// does with an engine that keeps up with the speaker, each forcing what the
// two before it agree on (whisper.Options.Held) when decoding.early_prefix
// is on. The release's transcript is the last pause's when no speech came
// after it, as Hold.Take hands it over; otherwise the whole recording's,
// forcing the same way. It returns that transcript and how many passes the
// hold made.
func Replay(ctx context.Context, p Pipeline, stream SpeechStream, samples []float32, s Settings) (Transcript, int, error) {
	var held []whisper.Pass
	withHeld := func() Settings {
		c := s
		if len(held) >= 2 && s.Config.Decode.EarlyPrefix {
			c.Decode.Held = held[len(held)-2:]
		}
		return c
	}
	var tr Transcript
	last, n := -1, 0
	for i := 0; i < len(samples); i += replayStep {
		if err := stream.Write(samples[i:min(i+replayStep, len(samples))]); err != nil {
			return Transcript{}, n, err
		}
		cut := stream.Cut(math.MaxInt)
		if !stream.Voiced() || cut > stream.Scored() || cut == last {
			continue
		}
		last = cut
		var err error
		if tr, err = p.Run(ctx, samples[:cut:cut], withHeld()); err != nil {
			return Transcript{}, n, err
		}
		n++
		if tr.Result != nil && tr.Result.Last != nil {
			held = append(held, *tr.Result.Last)
		}
	}
	if n > 0 && last == stream.Cut(len(samples)) {
		return tr, n, nil
	}
	tr, err := p.Run(ctx, samples, withHeld())
	return tr, n, err
}
