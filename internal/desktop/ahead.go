package desktop

import (
	"context"
	"log/slog"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/vad"
)

// ahead is the app's Speculator: it follows each hold's audio with the
// speech detector and transcribes it through the dictation's own pipeline
// as soon as the speech has ended, so a release that adds no words finds
// its text ready.
type ahead struct{ d *desk }

func (a ahead) Follow(ctx context.Context) app.Speculation {
	t := a.d.dictation
	if !t.cur.Load().cfg.Decode.Early {
		return nil
	}
	rec := a.d.recorder
	run := t.Transcribe
	live := t.cur.Load().cfg.Feedback.LiveText
	if live {
		run = func(ctx context.Context, samples []float32) (app.Transcript, error) {
			tr, err := t.Transcribe(ctx, samples)
			if err == nil && tr.Text != "" {
				a.d.sendLive(tr.Text)
			}
			return tr, err
		}
	}
	return &speculation{t: t, gen: t.gen.Load(), log: a.d.log, h: dictation.Ahead[app.Transcript]{
		Stream: t.speech.Stream(),
		Read:   rec.Captured,
		Run:    run,
		Live:   live,
		Log:    a.d.log,
	}.Follow(ctx)}
}

// sendLive hands the loop the hold's words so far, replacing any it has
// not shown yet: only the newest matters. It never blocks the transcription.
func (d *desk) sendLive(text string) {
	select {
	case <-d.live:
	default:
	}
	select {
	case d.live <- text:
	default:
	}
}

// showLive puts the words heard so far on the indicator, while the key is
// still held; a transcript that arrives after the release is the
// dictation's own, and the indicator has moved on. The indicator fits them:
// only it knows its font.
func (d *desk) showLive(text string) {
	if d.fb.Ind == nil || d.app.State() != app.Recording || !d.store.Current().Feedback.LiveText {
		return
	}
	d.fb.Live(text)
	d.log.Debug("live text shown", "chars", len(text)) // its length only: dictated text is not logged
}

type speculation struct {
	t   *transcriber
	gen uint64 // t.gen when the hold began
	log *slog.Logger
	h   *dictation.Hold[app.Transcript]
}

// Finish is the release's transcript: the hold's, when it transcribed the
// same audio with no model switch or config change since the hold began;
// otherwise one made now, cut where the hold's detector found the speech's end.
func (s *speculation) Finish(ctx context.Context, samples []float32) (app.Transcript, error) {
	if s.t.gen.Load() != s.gen {
		o := s.h.Drop()
		s.log.Info("early transcription dropped: the model or the settings changed during the hold",
			"dropped", o.Dropped, "wasted_ms", o.Wasted.Milliseconds())
		tr, err := s.t.Transcribe(ctx, samples)
		tr.Wasted = o.Wasted
		return tr, err
	}
	tr, ok, o := s.h.Take(ctx, samples)
	s.log.Info("early transcription", "used", o.Used, "waited_ms", o.Waited.Milliseconds(),
		"dropped", o.Dropped, "wasted_ms", o.Wasted.Milliseconds())
	if ok {
		// The dropped ones' engine time counts even when the last is used:
		// live text lets each run to its end.
		tr.Early, tr.Wasted = true, o.Wasted
		return tr, nil
	}
	tr, err := s.t.transcribe(ctx, samples, o.Trim)
	tr.Wasted = o.Wasted
	return tr, err
}

func (s *speculation) Drop() { s.h.Drop() }

// Detector adapts the Silero speech detector to SpeechDetector.
func Detector(d *vad.Detector) SpeechDetector { return vadDetector{d} }

type vadDetector struct{ *vad.Detector }

func (v vadDetector) Stream() dictation.SpeechStream { return v.NewStream() }
