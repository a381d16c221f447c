package dictation

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/cleanup"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Engine transcribes 16 kHz samples: the local engine, a remote server, or a
// wrapper of either (a fallback, the model gate).
type Engine interface {
	Transcribe(ctx context.Context, samples []float32, opt whisper.Options) (*whisper.Result, error)
}

// Cleaner rewrites a dictation with a chat model (cleanup.Client). It never
// fails: on any problem the Result holds the text as given, and why.
type Cleaner interface {
	Rewrite(ctx context.Context, instruction, text string) cleanup.Result
}

// NewCleaner is the AI cleanup client for cfg; nil when cleanup is off or
// cannot be set up (log says why).
func NewCleaner(cfg config.Config, log *slog.Logger) Cleaner {
	c := cfg.Cleanup
	if !c.Active() {
		return nil
	}
	cl, err := cleanup.New(cleanup.Config{URL: c.URL, Model: c.Model, APIKey: c.APIKey, Timeout: c.Timeout}, log)
	if err != nil { // config.Load checked the URL
		log.Warn("AI cleanup not used", "err", err)
		return nil
	}
	return cl
}

// Pipeline is the way from a recording to the text to insert.
type Pipeline struct {
	Engine Engine
	// Gate, when set, is asked first: a press it finds no speech in costs no
	// engine call. Set it for engines that do not gate themselves (a remote
	// server: no upload, no round trip); the local engine runs the same
	// detector inside whisper.Transcriber.
	Gate whisper.SpeechDetector
	// Trim, when set, cuts the non-speech after the last words to a short
	// tail before anything else (with Options.DetectSpeech; EngineInput):
	// the engine's input then ends where the speech does, however long the
	// key was held after it, which is what lets a hold's transcription
	// (Ahead) be the release's. The local engine and a remote one get the
	// same audio.
	Trim Trimmer
	// Cleaner runs the AI cleanup in the settings' mode; nil: none.
	Cleaner Cleaner
	// Send looks for a send phrase said at the very end (config.SentBy) and
	// removes it before the cleanup, setting Transcript.Send. Only a caller
	// that presses Enter after the text sets it (the desktop's Flow), so a
	// file transcribed keeps every word.
	Send bool
}

// SpeechGate is the speech detector as a pipeline's stages use it: the
// gate and the cut (vad.Detector).
type SpeechGate interface {
	whisper.SpeechDetector
	Trimmer
}

// Build is the one way a pipeline is put together (the tray, transcribe,
// transcribe --remote): engine, the speech detector speech (nil: none) and
// the AI cleanup (nil: none). It decides where the gate runs: inside the
// engine when selfGated (the local engine, given the same detector, asks it
// before decoding), here otherwise, so a press without speech sends nothing
// to a server. Either way speech cuts the silence after the last words.
func Build(engine Engine, selfGated bool, speech SpeechGate, cleaner Cleaner) Pipeline {
	p := Pipeline{Engine: engine, Cleaner: cleaner}
	if speech != nil {
		p.Trim = speech
		if !selfGated {
			p.Gate = speech
		}
	}
	return p
}

// Trimmer finds where a recording's speech ends (vad.Detector's Cut): the
// last sample of it the engine hears.
type Trimmer interface {
	Cut(samples []float32) (int, error)
}

// Silence is the digital silence the engine hears after a cut recording's
// last sample: 128 ms, after the 128 ms of the room that vad's cut keeps
// after the last voiced window. Whisper needs about 256 ms after a last
// syllable to hear it whole; with half of it silence, the cut depends on
// 128 ms less of the recording, so an early transcription starts that much
// sooner after the speech. Chosen on the real-speech set (4 windows of each
// against 8 of the room alone: pooled WER 13.2 against 13.5 %,
// docs/benchmarks.md#text-ready-at-the-release-round-two-2026-11-27).
const Silence = whisper.SampleRate * 128 / 1000

// MaxTrim is the longest recording Trim is asked about: a dictation's
// longest (the audio.max_duration limit); a longer file is decoded whole
// rather than scored for minutes first.
const MaxTrim = time.Hour

// Transcript is one dictation's outcome.
type Transcript struct {
	// Result is the engine's transcription; nil when the gate heard no speech.
	Result *whisper.Result
	// Text is what to insert: cleaned (when on) and shaped.
	Text string
	// Raw is the text as heard, shaped, when the cleanup rewrote it into
	// Text; "" otherwise.
	Raw string
	// Cleanup is the cleanup mode used ("" for none); Notice says why its
	// answer was not used ("" when it was, or none was asked for).
	Cleanup, Notice string
	// Cleaning is how long the cleanup took.
	Cleaning time.Duration
	// Send: the dictation ended with a send phrase, removed from Text and
	// Raw; Enter follows the paste.
	Send bool
}

// Run transcribes samples with s: the gate, the engine, the cleanup, the
// shaping. Only the engine can fail; a failed cleanup keeps the words as heard.
func (p Pipeline) Run(ctx context.Context, samples []float32, s Settings) (Transcript, error) {
	res, err := p.decode(ctx, samples, s.Decode)
	if err != nil || res == nil {
		return Transcript{}, err
	}
	tr := Transcript{Result: res}
	heard := res.Text
	if p.Send {
		heard, tr.Send = s.Config.SentBy(s.Profile, heard)
	}
	text := heard
	if mode := s.Config.Cleanup.ActiveMode(); p.Cleaner != nil && mode != "" && strings.TrimSpace(text) != "" {
		r := p.Cleaner.Rewrite(ctx, s.Config.Cleanup.CleanupModes()[mode], strings.TrimSpace(text))
		tr.Cleanup, tr.Notice, tr.Cleaning = mode, r.Notice(), r.Took
		text = r.Text
	}
	tr.Text = s.Shape.Apply(text)
	if raw := s.Shape.Apply(heard); tr.Cleanup != "" && tr.Notice == "" && raw != tr.Text {
		tr.Raw = raw // Recent keeps the text as heard beside the rewrite
	}
	return tr, nil
}

// decode is the engine's result for samples after the cut and the gate;
// nil when the gate heard no speech.
func (p Pipeline) decode(ctx context.Context, samples []float32, o whisper.Options) (*whisper.Result, error) {
	whole := len(samples)
	samples = EngineInput(p.Trim, samples, o)
	if p.Gate != nil && !heardSpeech(p.Gate, samples, o) {
		return nil, nil
	}
	res, err := p.Engine.Transcribe(ctx, samples, o)
	if err != nil {
		return nil, err
	}
	return lasting(res, whole), nil
}

// Transcribe is the pipeline as an Engine, for a caller that answers with
// the engine's result itself (serve): the cut and the gate, then the
// engine, with no cleanup and no shaping, so a file sent to the server is
// decoded as transcribe and --remote decode it. A press the gate finds no
// speech in gives an empty result of the recording's length.
func (p Pipeline) Transcribe(ctx context.Context, samples []float32, o whisper.Options) (*whisper.Result, error) {
	res, err := p.decode(ctx, samples, o)
	if res == nil && err == nil {
		res = &whisper.Result{Duration: float64(len(samples)) / whisper.SampleRate}
	}
	return res, err
}

// EngineInput is what the engine hears of a recording: up to tr's cut,
// then Silence, when speech detection is on and the recording is not too
// long to score; the recording as it is otherwise. Word timestamps are for
// the words of a file as it is (serve's clients, transcribe --words), timed
// as faster-whisper times them: a request for them is not cut.
func EngineInput(tr Trimmer, samples []float32, o whisper.Options) []float32 {
	if tr == nil || !o.DetectSpeech || o.WordTimestamps || len(samples) > int(MaxTrim.Seconds())*whisper.SampleRate {
		return samples
	}
	n, err := tr.Cut(samples)
	if err != nil {
		return samples // the detector is an optimisation: decode everything
	}
	return append(samples[:n:n], make([]float32, Silence)...)
}

// lasting is res with the recording's duration, whole samples, when the
// engine heard another length.
func lasting(res *whisper.Result, whole int) *whisper.Result {
	d := float64(whole) / whisper.SampleRate
	if res.Duration == d {
		return res
	}
	r := *res
	r.Duration = d
	return &r
}

// heardSpeech reports whether d finds speech in samples; when decoding is
// not asked to detect speech, the recording is over one window (the
// detector's limit), or the detector fails, every press counts as speech.
func heardSpeech(d whisper.SpeechDetector, samples []float32, o whisper.Options) bool {
	if !o.DetectSpeech || len(samples) > whisper.NSamples {
		return true
	}
	_, _, ok, err := d.Speech(samples)
	return ok || err != nil
}
