package desktop

import (
	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/vad"
)

// latest hands the loop the hold's words so far on ch (buffer 1), replacing
// any it has not shown yet: only the newest matters. It never blocks the
// transcription.
func latest(ch chan string) func(text string) {
	return func(text string) {
		select {
		case <-ch:
		default:
		}
		select {
		case ch <- text:
		default:
		}
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

// Detector adapts the Silero speech detector to SpeechDetector.
func Detector(d *vad.Detector) SpeechDetector { return vadDetector{d} }

type vadDetector struct{ *vad.Detector }

func (v vadDetector) Stream() dictation.SpeechStream { return v.NewStream() }
