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
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// dictation is the app's Transcriber: the dictation pipeline with the
// engine and settings of the current config, swapped whole on each config
// change.
type transcriber struct {
	local  dictation.Engine // the engine on this machine, the fallback of a remote one
	speech SpeechDetector   // nil: none
	cur    atomic.Pointer[dictationSettings]
	// gen counts config changes and model loads: a transcription made
	// during a hold is the release's only if gen did not move meanwhile.
	gen atomic.Uint64
}

// SpeechDetector is what dictation asks of the speech detector: whether a
// press holds speech, where its speech ends, and the same as the audio
// arrives (vad.Detector, adapted by main).
type SpeechDetector interface {
	whisper.SpeechDetector
	dictation.Trimmer
	Stream() dictation.SpeechStream
}

type dictationSettings struct {
	cfg     config.Config // profiles apply on top of it, per dictation
	base    dictation.Settings
	engine  dictation.Engine
	cleaner dictation.Cleaner // nil: no AI cleanup
	log     *slog.Logger
}

func newTranscriber(local dictation.Engine, speech SpeechDetector) *transcriber {
	d := &transcriber{local: local, speech: speech}
	base, _ := dictation.Resolve(config.Defaults(), "") // the defaults are valid
	d.cur.Store(&dictationSettings{cfg: config.Defaults(), base: base, engine: local, log: slog.New(slog.DiscardHandler)})
	return d
}

// configure takes cfg's decoding settings and engine choice; a remote engine
// that cannot be set up leaves dictation on the local one, and says why.
func (d *transcriber) configure(cfg config.Config, remote RemoteEngine, tell func(string), log *slog.Logger) {
	s := &dictationSettings{cfg: cfg, engine: d.local, cleaner: dictation.NewCleaner(cfg, log), log: log}
	base, err := dictation.Resolve(cfg, "")
	if err != nil { // config.Load checked these settings; keep the text as heard
		log.Warn("text settings not used", "err", err)
		def := config.Defaults()
		def.Decode, def.Cleanup = cfg.Decode, cfg.Cleanup
		base, _ = dictation.Resolve(def, "")
	}
	s.base = base
	if remote != nil {
		e, err := remote(cfg, d.local, tell)
		if err != nil {
			log.Warn("remote engine not used; dictating on this machine", "err", err)
		} else if e != nil {
			s.engine = e
		}
	}
	d.cur.Store(s)
	d.changed()
}

// changed notes a config change or a model load.
func (d *transcriber) changed() { d.gen.Add(1) }

// Transcribe is app.Transcriber: the pipeline with the settings of the
// profile ctx names (app.ProfileFrom).
func (d *transcriber) Transcribe(ctx context.Context, samples []float32) (app.Transcript, error) {
	return d.transcribe(ctx, samples, nil)
}

// transcribe is Transcribe with trim, when not nil, as the Trimmer: a
// hold's detector that has scored the recording already.
func (d *transcriber) transcribe(ctx context.Context, samples []float32, trim dictation.Trimmer) (app.Transcript, error) {
	s := d.cur.Load()
	set := s.forProfile(app.ProfileFrom(ctx))
	p := dictation.Pipeline{Engine: s.engine, Cleaner: s.cleaner, Trim: trim}
	if trim == nil && d.speech != nil {
		p.Trim = d.speech
	}
	if s.engine != d.local && d.speech != nil {
		// The local engine runs the detector itself; a remote one is not
		// asked about a press without speech: no round trip, no upload.
		p.Gate = d.speech
	}
	tr, err := p.Run(ctx, samples, set)
	if err != nil || tr.Result == nil {
		return app.Transcript{}, err
	}
	return app.Transcript{Text: tr.Text, Raw: tr.Raw, Features: tr.Result.Timings.Features, Engine: tr.Result.Timings.Engine,
		Cleanup: tr.Cleanup, Notice: tr.Notice, Cleaning: tr.Cleaning, Reused: tr.Result.Reused, Language: tr.Result.Language}, nil
}

// forProfile is the settings of the profile called name; the config's own
// when name is "" or no longer in the config (the file changed while the key
// was down).
func (s *dictationSettings) forProfile(name string) dictation.Settings {
	if name == "" {
		return s.base
	}
	set, err := dictation.Resolve(s.cfg, name)
	if err != nil {
		s.log.Warn("profile's settings not used", "profile", name, "err", err)
		return s.base
	}
	return set
}

// status is the engine's own status line ("Remote: HOST"), "" for the local one.
func (d *transcriber) status() string {
	if s, ok := d.cur.Load().engine.(interface{ Status() string }); ok {
		return s.Status()
	}
	return ""
}

// paster gives output.Paster the app's Paster signature, with the paste
// settings of the dictation's profile.
type paster struct {
	p *output.Paster
	d *transcriber
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
	// Float, not 16-bit: the file holds exactly the samples that were
	// transcribed, so `transcribe` on it gives the dictation's words.
	if err := audio.EncodeWAV(f, s, audio.SampleRate, 1, audio.Float32); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
