package dictation

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Detector is what a dictation asks of the speech detector: whether a
// press holds speech, where its speech ends, and the same as the audio
// arrives (vad.Detector, adapted by the desktop).
type Detector interface {
	whisper.SpeechDetector
	Trimmer
	Stream() SpeechStream
}

// Remote builds the engine to dictate with for cfg (internal/remote, when
// cfg names a remote URL), given the local engine to fall back to and tell,
// which shows the user a message when the remote engine gives way. It
// returns local itself when cfg asks for no remote engine. Called at start
// and on every config change, so it must be quick and not touch the network.
type Remote func(cfg config.Config, local Engine, tell func(msg string)) (Engine, error)

// Flow is the app's dictations, from the recording to the text: the
// app's Transcriber and Speculator. It holds the engine and settings of the
// current config, swapped whole on each config change.
type Flow struct {
	local  Engine   // the engine on this machine, the fallback of a remote one
	speech Detector // nil: none
	// read is the capture so far (audio.Recorder.Captured), which early
	// transcription follows; live gets the hold's words so far.
	read func(from int) []float32
	live func(text string)
	cur  atomic.Pointer[flowSettings]
	// gen counts config changes and local model loads: a transcription made
	// during a hold is the release's only if gen did not move meanwhile.
	gen atomic.Uint64
	// recent are the last dictations' languages, the prior of short clips.
	recent recentLanguages
}

type flowSettings struct {
	cfg     config.Config // profiles apply on top of it, per dictation
	base    Settings
	engine  Engine
	cleaner Cleaner // nil: no AI cleanup
	log     *slog.Logger
}

// NewFlow is the dictations on local, with speech (nil: none) as the gate
// and the cut, on the defaults until Configure.
func NewFlow(local Engine, speech Detector) *Flow {
	f := &Flow{local: local, speech: speech}
	base, _ := Resolve(config.Defaults(), "") // the defaults are valid
	f.cur.Store(&flowSettings{cfg: config.Defaults(), base: base, engine: local, log: slog.New(slog.DiscardHandler)})
	return f
}

// Capture sets where early transcription reads the capture (read) and
// shows the words so far (live, for feedback.live_text).
func (f *Flow) Capture(read func(from int) []float32, live func(text string)) {
	f.read, f.live = read, live
}

// Configure takes cfg's decoding settings and engine choice; a remote engine
// that cannot be set up leaves dictation on the local one, and says why.
func (f *Flow) Configure(cfg config.Config, remote Remote, tell func(string), log *slog.Logger) {
	s := &flowSettings{cfg: cfg, engine: f.local, cleaner: NewCleaner(cfg, log), log: log}
	base, err := Resolve(cfg, "")
	if err != nil { // config.Load checked these settings; keep the text as heard
		log.Warn("text settings not used", "err", err)
		def := config.Defaults()
		def.Decode, def.Cleanup = cfg.Decode, cfg.Cleanup
		base, _ = Resolve(def, "")
	}
	s.base = base
	if remote != nil {
		e, err := remote(cfg, f.local, tell)
		if err != nil {
			log.Warn("remote engine not used; dictating on this machine", "err", err)
		} else if e != nil {
			s.engine = e
		}
	}
	f.cur.Store(s)
	f.gen.Add(1)
}

// ModelChanged notes a load of the local model. Dictations on a remote
// engine do not use it, so their holds' early transcriptions still stand:
// the app starts on a remote engine while the local one loads beside it.
func (f *Flow) ModelChanged() {
	if f.cur.Load().engine == f.local {
		f.gen.Add(1)
	}
}

// Config is the config the dictations use now.
func (f *Flow) Config() config.Config { return f.cur.Load().cfg }

// Request is one dictation's settings, resolved once when its key goes
// down (app.Request): the config the dictations use then with the focused
// window's profile applied, the engine (the local one, or a remote one
// falling back to it) and the AI cleanup.
type Request struct {
	Settings
	chosen  string // the profile chosen at key-down, by name
	engine  Engine
	cleaner Cleaner
	gen     uint64 // the Flow's gen when it was resolved
	// translate: the translate hotkey's dictation (Translated), kept when
	// the settings are resolved again.
	translate bool
}

// Profile is app.Request's: the profile applied, "" for none.
func (r *Request) Profile() string { return r.Settings.Profile }

// Request resolves a dictation's settings now, with the profile called
// profile ("" for none; a name no longer in the config gives the config's
// own settings).
func (f *Flow) Request(profile string) *Request {
	s := f.cur.Load()
	set := s.forProfile(profile)
	set.Decode.Recent = f.recent.list()
	// A short utterance is scored against the spoken commands by the local
	// model itself (whisper's command check); a remote engine's text is
	// matched by its words alone.
	set.Decode.Commands = set.Config.Commands.Undo.Items()
	return &Request{Settings: set, chosen: profile, engine: s.engine, cleaner: s.cleaner, gen: f.gen.Load()}
}

// fresh is req as this Flow's Request, resolved again when the config or
// the model changed since it was (the file was edited while the key was
// down: the newer settings win, as they would at the release).
func (f *Flow) fresh(req app.Request) *Request {
	r, ok := req.(*Request)
	switch {
	case !ok || r == nil:
		name := ""
		if req != nil {
			name = req.Profile()
		}
		return f.Request(name)
	case r.gen != f.gen.Load():
		n := f.Request(r.chosen)
		if r.translate {
			n.translate, n.Settings.Decode.Task = true, TaskTranslate
		}
		return n
	}
	return r
}

// Transcribe is app.Transcriber: the pipeline with req's settings.
func (f *Flow) Transcribe(ctx context.Context, req app.Request, samples []float32) (app.Transcript, error) {
	return f.transcribe(ctx, f.fresh(req), samples, nil)
}

// transcribe is Transcribe with trim, when not nil, as the Trimmer: a
// hold's detector that has scored the recording already.
func (f *Flow) transcribe(ctx context.Context, r *Request, samples []float32, trim Trimmer) (app.Transcript, error) {
	return f.forApp(f.run(ctx, r, samples, trim))
}

// run is transcribe's pipeline transcript.
func (f *Flow) run(ctx context.Context, r *Request, samples []float32, trim Trimmer) (Transcript, error) {
	// The local engine runs the detector itself; a remote one is not asked
	// about a press without speech: no round trip, no upload.
	p := Build(r.engine, r.engine == f.local, f.speech, r.cleaner)
	p.Send = true // the app presses Enter when a send phrase ends the dictation
	if trim != nil {
		p.Trim = trim
	}
	return p.Run(ctx, samples, r.Settings)
}

// forApp is tr as the app takes it.
func (f *Flow) forApp(tr Transcript, err error) (app.Transcript, error) {
	if err != nil || tr.Result == nil {
		return app.Transcript{}, err
	}
	if tr.Text != "" {
		f.recent.add(tr.Result.Language)
	}
	return app.Transcript{Text: tr.Text, Raw: tr.Raw, Features: tr.Result.Timings.Features, Engine: tr.Result.Timings.Engine,
		Cleanup: tr.Cleanup, Notice: tr.Notice, Cleaning: tr.Cleaning, Reused: tr.Result.Reused, Forced: tr.Result.Forced, Language: tr.Result.Language,
		Send: tr.Send, Command: heardCommand(tr.Result, f.cur.Load().cfg)}, nil
}

// forProfile is the settings of the profile called name; the config's own
// when name is "" or no longer in the config (the file changed while the key
// was down).
func (s *flowSettings) forProfile(name string) Settings {
	if name == "" {
		return s.base
	}
	set, err := Resolve(s.cfg, name)
	if err != nil {
		s.log.Warn("profile's settings not used", "profile", name, "err", err)
		return s.base
	}
	return set
}

// Status is the engine's own status line ("Remote: HOST"), "" for the local one.
func (f *Flow) Status() string {
	if s, ok := f.cur.Load().engine.(interface{ Status() string }); ok {
		return s.Status()
	}
	return ""
}

// Follow is app.Speculator: it follows each hold's audio with the
// speech detector and transcribes it through the dictation's own pipeline
// as soon as the speech has ended, so a release that adds no words finds
// its text ready. Without a detector or with decoding.early off it does not.
func (f *Flow) Follow(ctx context.Context, req app.Request) app.Speculation {
	s := f.cur.Load()
	if f.speech == nil || f.read == nil || !s.cfg.Decode.Early {
		return nil
	}
	r := f.fresh(req)
	live := s.cfg.Feedback.LiveText && f.live != nil
	sp := &speculation{f: f, r: r, log: s.log}
	run := func(ctx context.Context, samples []float32) (app.Transcript, error) {
		// Each early transcription, too, forces what the two before it
		// agree on: the one a release waits for then decodes only the
		// words since the pause before.
		tr, err := f.run(ctx, sp.withHeld(r), samples, nil)
		if err == nil && tr.Result != nil {
			sp.passes.add(tr.Result.Last)
		}
		out, err := f.forApp(tr, err)
		if live && err == nil && out.Text != "" {
			f.live(out.Text)
		}
		return out, err
	}
	sp.h = Ahead[app.Transcript]{
		Stream: f.speech.Stream(),
		Read:   f.read,
		Run:    run,
		Live:   live,
		Log:    s.log,
	}.Follow(ctx)
	return sp
}

type speculation struct {
	f   *Flow
	r   *Request // the hold's settings; r.gen is f.gen when it began
	log *slog.Logger
	h   *Hold[app.Transcript]
	// passes are the hold's transcriptions' last windows, for a release
	// after more words (whisper.Options.Held).
	passes passes
}

// passes keeps the last two passes of a hold, in the order they ended
// (the hold runs one at a time, on ever longer audio).
type passes struct {
	mu   sync.Mutex
	last []whisper.Pass
}

func (p *passes) add(pass *whisper.Pass) {
	if pass == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = append(p.last, *pass)
	if len(p.last) > 2 {
		p.last = p.last[len(p.last)-2:]
	}
}

func (p *passes) get() []whisper.Pass {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.last)
}

// Finish is the release's transcript: the hold's, when it transcribed the
// same audio with no model switch or config change since the hold began;
// otherwise one made now, cut where the hold's detector found the speech's end.
func (s *speculation) Finish(ctx context.Context, samples []float32) (app.Transcript, error) {
	if s.f.gen.Load() != s.r.gen {
		o := s.h.Drop()
		s.log.Info("early transcription dropped: the model or the settings changed during the hold",
			"dropped", o.Dropped, "wasted_ms", o.Wasted.Milliseconds())
		tr, err := s.f.Transcribe(ctx, s.r, samples) // resolved again: the settings changed
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
	r := s.r
	if o.Grown {
		// More words came after the hold's last pauses: the release forces
		// what its last two transcriptions agree on and decodes the rest.
		r = s.withHeld(r)
	}
	tr, err := s.f.transcribe(ctx, r, samples, o.Trim)
	tr.Wasted = o.Wasted
	return tr, err
}

func (s *speculation) Drop() { s.h.Drop() }

// withHeld is r forcing the hold's last two passes, when it has two and
// decoding.early_prefix is on; r itself otherwise.
func (s *speculation) withHeld(r *Request) *Request {
	held := s.passes.get()
	if len(held) < 2 || !r.Config.Decode.EarlyPrefix {
		return r
	}
	c := *r
	c.Decode.Held = held
	return &c
}
