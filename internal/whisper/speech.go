package whisper

import (
	"context"
	"slices"
	"time"
)

// PathNoSpeech: the speech detector heard no speech; no engine call was made.
const PathNoSpeech = "no-speech"

// SpeechDetector finds the speech in 16 kHz mono samples (internal/vad's
// Detector is one).
type SpeechDetector interface {
	// Speech returns the sample range [start, end) holding all the speech,
	// padded, or ok false when there is none.
	Speech(samples []float32) (start, end int, ok bool, err error)
}

// UseSpeechDetector makes Transcribe skip audio the detector is sure holds
// no speech and, with Options.Window ShortWindow, cut the silence after the speech
// at the end of a recording too long for the short window (Options.DetectSpeech). Call
// it before the first Transcribe; nil turns detection off.
func (t *Transcriber) UseSpeechDetector(d SpeechDetector) { t.speech = d }

// Languages lists the language codes Transcribe accepts, the tokenizer's: an
// English-only model has just en (its config.json lists 98 more).
func (t *Transcriber) Languages() []string { return t.tok.Languages() }

// Transcribe turns 16 kHz mono samples into text. Audio longer than 30 s is
// decoded window by window, each window starting where the last complete
// segment ended, so no words are dropped or repeated at the seams. With a
// speech detector, a press with no speech returns no text at once.
// Segments end within the audio (WithinAudio).
func (t *Transcriber) Transcribe(ctx context.Context, samples []float32, opt Options) (*Result, error) {
	// Before any work, and for silence too: the request is wrong whatever the audio.
	if _, err := ResolveLanguage(opt.Language, "", t.tok.Languages()); err != nil {
		return nil, err
	}
	if opt.Task == "translate" && !t.tok.Multilingual() {
		return nil, ErrNoTranslate
	}
	if opt.WordTimestamps {
		if err := t.wordsUnavailable(); err != nil {
			return nil, err
		}
	}
	res, err := t.transcribeGated(ctx, samples, opt)
	if err != nil {
		return res, err
	}
	res.Segments = WithinAudio(res.Segments, res.Duration)
	err = t.checkCommands(ctx, res.at, res, opt)
	res.at = nil // the window's features are not kept with the text
	if err != nil {
		return nil, err
	}
	return res, nil
}

// WithinAudio clamps segment and word times to the audio's duration: Whisper hears
// each clip padded with silence to 30 s and may end a segment inside the
// padding (2.0 s for a 1.39 s clip), past the end of the audio.
func WithinAudio(segs []Segment, duration float64) []Segment {
	if duration <= 0 {
		return segs
	}
	out := slices.Clone(segs)
	for i := range out {
		out[i].End = min(out[i].End, duration)
		out[i].Start = min(out[i].Start, out[i].End)
		if len(out[i].Words) > 0 {
			words := slices.Clone(out[i].Words)
			for j := range words {
				words[j].End = min(words[j].End, duration)
				words[j].Start = min(words[j].Start, words[j].End)
			}
			out[i].Words = words
		}
	}
	return out
}

func (t *Transcriber) transcribeGated(ctx context.Context, samples []float32, opt Options) (*Result, error) {
	// Presses over 30 s are plainly meant; the detector's cost grows with
	// length (~160 ms for 25 s) and would buy nothing there.
	if t.speech == nil || !opt.DetectSpeech || len(samples) == 0 || len(samples) > NSamples || isSilent(samples) {
		return t.transcribe(ctx, samples, 0, len(samples), opt)
	}
	start := time.Now()
	from, to, ok, err := t.speech.Speech(samples)
	took := time.Since(start)
	if err != nil {
		// The detector is an optimisation: decode everything rather than lose words.
		t.log.Warn("speech detector failed; decoding the whole recording", "err", err)
		return t.transcribe(ctx, samples, 0, len(samples), opt)
	}
	if !ok {
		return &Result{Language: opt.Language, Duration: float64(len(samples)) / SampleRate, Path: PathNoSpeech,
			Timings: Timings{Speech: took, Total: took}}, nil
	}
	// The start is never cut: the detector cannot place a whisper's or a
	// soft first word's start (it scores the first second of a whisper like
	// silence), and a press starts just before the words anyway. The end
	// is cut only when that brings a recording too long for the short
	// window under its limit (a key held on after the words): a recording
	// that fits already gets a window at least that long, and a cut could
	// only lose a soft last word. Otherwise the full window sees exactly
	// the recording.
	to = min(max(to, from), len(samples))
	if opt.Window != ShortWindow || len(samples)/HopLength <= t.short.maxFrames || to/HopLength > t.short.maxFrames {
		to = len(samples)
	}
	res, err := t.transcribe(ctx, samples, 0, to, opt)
	if err != nil {
		return nil, err
	}
	res.Duration = float64(len(samples)) / SampleRate
	res.Timings.Speech = took
	res.Timings.Total += took
	return res, nil
}
