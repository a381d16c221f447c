package desktop

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/textproc"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// dictation is the app's Transcriber: the chosen engine with the decoding
// settings of the current config, swapped whole on each config change.
type dictation struct {
	local  Engine                 // the engine on this machine, the fallback of a remote one
	speech whisper.SpeechDetector // nil: none
	cur    atomic.Pointer[dictationSettings]
}

type dictationSettings struct {
	cfg     config.Config // profiles apply on top of it, per dictation
	engine  Engine
	opts    whisper.Options
	shape   *textproc.Processor // spoken punctuation, replacements, output style
	cleaner Cleaner             // nil: no AI cleanup
	log     *slog.Logger
}

func newDictation(local Engine, speech whisper.SpeechDetector) *dictation {
	d := &dictation{local: local, speech: speech}
	shape, _ := textproc.New(TextOptions(config.Defaults().Text)) // the defaults are valid
	d.cur.Store(&dictationSettings{cfg: config.Defaults(), engine: local, opts: decodeOptions(config.Defaults()), shape: shape,
		log: slog.New(slog.DiscardHandler)})
	return d
}

// configure takes cfg's decoding settings and engine choice; a remote engine
// that cannot be set up leaves dictation on the local one, and says why.
func (d *dictation) configure(cfg config.Config, remote RemoteEngine, tell func(string), log *slog.Logger) {
	s := &dictationSettings{cfg: cfg, engine: d.local, opts: decodeOptions(cfg), cleaner: newCleaner(cfg, log), log: log}
	shape, err := textproc.New(TextOptions(cfg.Text))
	if err != nil { // config.Load checked these settings; keep the text as heard
		log.Warn("text settings not used", "err", err)
		shape, _ = textproc.New(TextOptions(config.Defaults().Text))
	}
	s.shape = shape
	if remote != nil {
		e, err := remote(cfg, d.local, tell)
		if err != nil {
			log.Warn("remote engine not used; dictating on this machine", "err", err)
		} else if e != nil {
			s.engine = e
		}
	}
	d.cur.Store(s)
}

// Transcribe is app.Transcriber: the settings are those of the profile
// ctx names (app.ProfileFrom), the AI cleanup (if on) runs before the text
// settings.
func (d *dictation) Transcribe(ctx context.Context, samples []float32) (app.Transcript, error) {
	s := d.cur.Load()
	cfg, opts, shape := s.forProfile(app.ProfileFrom(ctx))
	if s.engine != d.local && !d.heardSpeech(samples, opts) {
		// The local engine runs the detector itself; a remote one is not
		// asked about a press without speech: no round trip, no upload.
		return app.Transcript{}, nil
	}
	res, err := s.engine.Transcribe(ctx, samples, opts)
	if err != nil {
		return app.Transcript{}, err
	}
	tr := app.Transcript{Features: res.Timings.Features, Engine: res.Timings.Engine}
	text := clean(ctx, s.cleaner, cfg, res.Text, &tr)
	tr.Text = shape.Apply(text)
	if raw := shape.Apply(res.Text); tr.Cleanup != "" && tr.Notice == "" && raw != tr.Text {
		tr.Raw = raw // Recent keeps the text as heard beside the rewrite
	}
	return tr, nil
}

// heardSpeech reports whether the speech detector finds speech in samples;
// without a detector, or when it fails, every press counts as speech.
func (d *dictation) heardSpeech(samples []float32, o whisper.Options) bool {
	if d.speech == nil || !o.DetectSpeech || len(samples) > whisper.NSamples {
		return true
	}
	_, _, ok, err := d.speech.Speech(samples)
	return ok || err != nil
}

// status is the engine's own status line ("Remote: HOST"), "" for the local one.
func (d *dictation) status() string {
	if s, ok := d.cur.Load().engine.(interface{ Status() string }); ok {
		return s.Status()
	}
	return ""
}

func decodeOptions(cfg config.Config) whisper.Options {
	o := whisper.DefaultOptions()
	o.Language = cfg.Decode.Language
	o.BeamSize = cfg.Decode.BeamSize
	// config.Load has moved the old initial_prompt and hotwords keys here.
	o.InitialPrompt = cfg.Decode.Prompt
	o.Vocabulary = cfg.Decode.Vocabulary.Items()
	o.ShortWindow = cfg.Decode.ShortWindow
	return o
}

// paster gives output.Paster the app's Paster signature, with the paste
// settings of the dictation's profile.
type paster struct {
	p *output.Paster
	d *dictation
}

func (p paster) Output(ctx context.Context, text string, enter bool) (time.Time, error) {
	res, err := p.p.Output(ctx, text, pasteOptions(p.d.cur.Load().cfg, app.ProfileFrom(ctx), enter))
	return res.PastedAt, err
}

// keepRecordings returns rec, or when dir names a folder (the
// WHISPERKEY_SAVE_RECORDINGS knob, for bug reports: what did the app hear?)
// a recorder that also writes each recording there as a WAV file.
func keepRecordings(rec app.Recorder, dir string, log *slog.Logger) app.Recorder {
	if dir == "" {
		return rec
	}
	return savingRecorder{rec, dir, log}
}

type savingRecorder struct {
	app.Recorder
	dir string
	log *slog.Logger
}

func (r savingRecorder) Stop() ([]float32, error) {
	s, err := r.Recorder.Stop()
	if len(s) > 0 {
		name := filepath.Join(r.dir, time.Now().Format("20060102-150405.000")+".wav")
		if werr := saveWAV(name, s); werr != nil {
			r.log.Warn("could not keep the recording", "path", name, "err", werr)
		}
	}
	return s, err
}

func saveWAV(name string, s []float32) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := audio.EncodeWAV(f, s, audio.SampleRate, 1); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
