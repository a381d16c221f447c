package loader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/cublas"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/tray"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Options are the loader's fixed parts, from main through the desktop.
type Options struct {
	EngineRoot, StateDir string
	// CUBLASPin is $WHISPERKEY_CUBLAS_PIN (cublas.PinEnv); "" means the built-in.
	CUBLASPin string
	// ModelHelp is the guide to getting a model in without Hugging Face
	// ("" names the file in the repository); GuidePath docs/gpu-setup.md,
	// for the "GPU not used" notice.
	ModelHelp, GuidePath string
	Engine               engine.Options
	SpeechDetector       whisper.SpeechDetector // nil: none
	Models               *models.Cache
}

// Tray is what the loader shows its progress on (tray.Tray); it is called
// from the loader's and the downloads' goroutines.
type Tray interface {
	SetState(state tray.State, status string)
	SetItemLabel(kind tray.ActionKind, id, label string)
}

// Dictation is what the loader tells of a model change, and reads the
// settings in use from (dictation.Flow).
type Dictation interface {
	ModelChanged()
	Config() config.Config
}

// Loader loads models one at a time on its own goroutine (Serve), and keeps
// for the run loop what is loaded or why nothing is. The run loop calls
// every method but Serve and Engine; it hears the loads on Loaded, the
// downloads on Pulled and a dictation held by the gate on Waits.
type Loader struct {
	opt  Options
	log  *slog.Logger
	svc  *backend.Service
	tray Tray
	dict Dictation
	tell func(notify.Message)
	gate gate
	// engine is the local engine behind the gate, the dictation's.
	engine *gatedEngine

	loadReq  chan job      // buffer 1: a job not started yet is replaced
	earlyReq chan struct{} // buffer 1: decoding.early changed
	loaded   chan Loaded
	pulled   chan Pulled
	waits    chan struct{} // buffer 1: a dictation waits for the model
	pulls    sync.WaitGroup
	st       state // the run loop's
	idle     idle
}

// idle is engine.unload_after's bookkeeping, shared by the run loop (Use)
// and Serve, which unloads the model.
type idle struct {
	busy    atomic.Bool   // a dictation is under way
	lastUse atomic.Int64  // when a dictation last changed state or a load ended, in Unix nanoseconds
	asleep  atomic.Bool   // the model was unloaded for idleness and the gate is held until it is back
	poke    chan struct{} // buffer 1: Serve sets its timer again
}

// state is what the run loop knows of the model; only it touches it.
type state struct {
	name      string // the model in use or, when loading failed, wanted
	err       error  // why no model is loaded (nil when one is)
	autoNote  string // which model auto chose and why ("" when the config names one)
	pending   int    // jobs asked for and not yet answered
	awaiting  string // a missing model being downloaded to be loaded
	waitShown bool   // a dictation waits for them, and the user was told
	pulling   map[string]bool
	vocabTold string // the vocabulary notice last given, so it is given once
}

// New is a loader with no model yet: the first Load asks for one. tell
// shows the user a notification; it is called from any goroutine.
func New(opt Options, cfg config.Config, tr Tray, tell func(notify.Message), log *slog.Logger) *Loader {
	l := &Loader{opt: opt, log: log, tray: tr, tell: tell,
		loadReq: make(chan job, 1), earlyReq: make(chan struct{}, 1), loaded: make(chan Loaded),
		pulled: make(chan Pulled), waits: make(chan struct{}, 1), st: state{pulling: map[string]bool{}}}
	l.idle.poke = make(chan struct{}, 1)
	l.idle.lastUse.Store(time.Now().UnixNano())
	l.svc = backend.NewEmpty(l.Options(cfg), log)
	l.engine = &gatedEngine{Engine: l.svc, current: l.svc.Current, gate: &l.gate, waiting: func() {
		select {
		case l.waits <- struct{}{}: // the loop tells the user
		default:
		}
	}}
	return l
}

// SetDictation names the dictations told of each model change.
func (l *Loader) SetDictation(d Dictation) { l.dict = d }

// Engine is the local engine for dictation: the model in use, behind the
// gate that holds a dictation during a load.
func (l *Loader) Engine() dictation.Engine { return l.engine }

// Service is the engine's service, for the checks after a resume.
func (l *Loader) Service() *backend.Service { return l.svc }

// Current is the model loaded; nil when none is.
func (l *Loader) Current() *backend.Loaded { return l.svc.Current() }

// Models is the model cache.
func (l *Loader) Models() *models.Cache { return l.opt.Models }

// Loaded brings the finished loads (OnLoaded); Pulled the finished
// downloads (OnPulled); Waits a dictation waiting for the model (ShowWaiting).
func (l *Loader) Loaded() <-chan Loaded { return l.loaded }

// Pulled brings the finished downloads (OnPulled).
func (l *Loader) Pulled() <-chan Pulled { return l.pulled }

// Waits says a dictation waits for the model being loaded.
func (l *Loader) Waits() <-chan struct{} { return l.waits }

// Name is the model in use or, when loading failed, wanted.
func (l *Loader) Name() string { return l.st.name }

// Err is why no model is loaded; nil when one is.
func (l *Loader) Err() error { return l.st.err }

// AutoNote says which model auto chose and why, for the Model menu ("" when
// the config names a model).
func (l *Loader) AutoNote() string { return l.st.autoNote }

// Pulling is the downloads under way, by model name (or FetchID).
func (l *Loader) Pulling() map[string]bool { return l.st.pulling }

// Options is the engine's options for cfg: the one place the tray app
// builds them.
func (l *Loader) Options(cfg config.Config) backend.Options {
	opt, _ := BackendOptions(cfg.Engine, l.opt.EngineRoot, l.opt.StateDir) // no sample: GPUs go unverified
	opt.Engine = l.opt.Engine
	opt.Engine.OnRestart = func(error) { l.tell(notify.EngineCrashed("")) } // the cause is in the log
	opt.SpeechDetector = l.opt.SpeechDetector
	opt.Yielding = cfg.Decode.Early
	return opt
}

// BackendOptions is the one mapping from the engine settings to the
// backend's options, for the tray's loads and every command; the error says
// the self-test sample is missing, so GPUs will not be verified.
func BackendOptions(e config.Engine, engineRoot, stateDir string) (backend.Options, error) {
	sample, err := backend.SelfTestSample()
	return backend.Options{EngineRoot: engineRoot, StateDir: stateDir, Device: e.Device, DeviceIndex: e.DeviceIndex,
		ComputeType: e.ComputeType, Threads: e.CPUThreads, Sample: sample}, err
}

// job asks for the model cfg names; timed: say in the ready line how long
// it took (a switch the user asked for); wake: a dictation waits for it
// after an unload for idleness, so it serves without a warm-up.
type job struct {
	cfg   config.Config
	timed bool
	wake  bool
}

// Loaded is a finished load, for the run loop (OnLoaded).
type Loaded struct {
	job     job
	name    string // the model as users know it
	dir     string
	err     error
	missing bool // not downloaded: the loop starts the download
	took    time.Duration
	// auto: the config's model: auto chose name; wanted is the model it
	// picked for the hardware when name stands in for it (not downloaded).
	auto   bool
	wanted string
	// unloaded: no load, the model was unloaded for idleness (Unloaded).
	unloaded bool
}

// Load has Serve load the model cfg names, beside the run loop, so
// hotkeys, the tray and recordings go on meanwhile. A job not yet started is
// replaced by the newer one. Until the last job ends the gate holds
// dictations that need the local model: they are transcribed when it is
// ready. timed: say in the ready line how long it took.
func (l *Loader) Load(cfg config.Config, timed bool) { l.request(job{cfg: cfg, timed: timed}) }

// request is Load for any job.
func (l *Loader) request(j job) {
	select {
	case <-l.loadReq: // replaced before it started: still one answer to wait for
	default:
		l.st.pending++
	}
	l.gate.begin()
	l.idle.asleep.Store(false)                               // this load brings a model back
	l.changed()                                              // a hold's early transcription is of the old model
	l.status(tray.StateLoading, "Loading the speech model…") // named once resolved
	l.loadReq <- j                                           // only the loop sends, and the buffer is empty now
}

// ApplyEarly has Serve start or stop the model's background worker for
// early transcriptions (decoding.early), so the setting takes effect without
// loading the model again; after any load in flight.
func (l *Loader) ApplyEarly() {
	select {
	case l.earlyReq <- struct{}{}:
	default: // one is pending; it reads the newest setting
	}
}

func (l *Loader) changed() {
	if l.dict != nil {
		l.dict.ModelChanged()
	}
}

// early is decoding.early in the settings in use now, which may be newer
// than a load job's.
func (l *Loader) early() bool { return l.dict != nil && l.dict.Config().Decode.Early }

// Use tells the loader of a dictation's step: busy while it records or is
// transcribed. The engine.unload_after clock starts again from each step,
// and a dictation starting while the model is unloaded for idleness loads
// it with cfg, while the user speaks.
func (l *Loader) Use(busy bool, cfg config.Config) {
	l.idle.busy.Store(busy)
	l.idle.lastUse.Store(time.Now().UnixNano())
	if busy && l.idle.asleep.Load() {
		l.log.Info("loading the model again for a dictation")
		l.request(job{cfg: cfg, wake: true})
	}
	l.poke()
}

// ApplyUnload applies a changed config's engine.unload_after: Serve sets its
// timer again, and a model unloaded for idleness is loaded again when the
// setting is now off (0 keeps the model loaded).
func (l *Loader) ApplyUnload(cfg config.Config) {
	if cfg.UnloadAfter == 0 && l.idle.asleep.Load() {
		l.log.Info("engine.unload_after turned off; loading the model again")
		l.Load(cfg, false)
	}
	l.poke()
}

// poke has Serve set its engine.unload_after timer again.
func (l *Loader) poke() {
	select {
	case l.idle.poke <- struct{}{}:
	default: // one is pending; it reads the newest state
	}
}

// unloadAfter is engine.unload_after in the settings in use now.
func (l *Loader) unloadAfter() time.Duration {
	if l.dict == nil {
		return 0
	}
	return l.dict.Config().UnloadAfter
}

// Unloaded reports whether the model was unloaded for idleness
// (engine.unload_after) and is not being loaded again.
func (l *Loader) Unloaded() bool { return l.idle.asleep.Load() }

// idleLeft is how long until the model is unloaded for idleness; ok is
// false when it is not to be: the setting is off, a dictation is under way,
// or there is no model to unload.
func (l *Loader) idleLeft() (left time.Duration, ok bool) {
	after := l.unloadAfter()
	if after <= 0 || l.idle.busy.Load() || l.idle.asleep.Load() || l.svc.Current() == nil || len(l.loadReq) > 0 {
		return 0, false
	}
	return time.Until(time.Unix(0, l.idle.lastUse.Load()).Add(after)), true
}

// unload ends the engine worker after engine.unload_after without a
// dictation: the OS frees the model's memory with the process (the worker
// leaves a GPU model to it, never tearing one down). The gate is held first,
// so a dictation from now on waits for the load its key-down starts (Use),
// or that its wait asks for (ShowWaiting).
func (l *Loader) unload() {
	l.gate.begin()
	l.idle.asleep.Store(true)
	if err := l.svc.Close(); err != nil {
		l.log.Warn("engine worker did not stop cleanly", "err", err)
	}
	l.log.Info("model unloaded: no dictation for engine.unload_after", "unload_after", l.unloadAfter())
}

// Serve runs load jobs, early-transcription worker changes and unloads
// for idleness (engine.unload_after), one at a time until ctx ends; then
// it waits for the downloads (their ctx ended). Close closes the engine,
// after the dictations that use it have ended.
func (l *Loader) Serve(ctx context.Context) error {
	defer l.pulls.Wait()
	idle := time.NewTimer(0)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.earlyReq:
			l.svc.SetYielding(l.early())
		case <-l.idle.poke:
		case <-idle.C:
			if left, ok := l.idleLeft(); ok && left <= 0 {
				l.unload()
				select {
				case l.loaded <- Loaded{unloaded: true}:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		case j := <-l.loadReq:
			r := l.load(ctx, j)
			// A failed switch may have loaded the previous model again with
			// its old options: the setting in use wins.
			l.svc.SetYielding(l.early())
			l.idle.lastUse.Store(time.Now().UnixNano()) // a model just loaded is not idle
			select {
			case l.loaded <- r:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		idle.Stop()
		if left, ok := l.idleLeft(); ok {
			idle.Reset(max(left, 0))
		}
	}
}

// load resolves and loads one job's model, on Serve's goroutine, so it
// changes nothing of the loop's state: OnLoaded applies the result.
func (l *Loader) load(ctx context.Context, j job) Loaded {
	start := time.Now()
	opt := l.Options(j.cfg)
	choice, err := backend.ResolveModel(ctx, j.cfg.Engine.Model, l.opt.Models, opt, l.log)
	r := Loaded{job: j, name: choice.Name, dir: choice.Dir, err: err, auto: choice.Auto, wanted: choice.Wanted}
	if errors.Is(err, backend.ErrModelMissing) {
		r.missing = true
		return r
	}
	if err != nil {
		r.name, r.dir = j.cfg.Engine.Model, ""
		return r
	}
	l.status(tray.StateLoading, fmt.Sprintf("Loading %s…", ModelName(choice.Name)))
	opt.Report = choice.Report // auto has probed the GPUs already
	opt.Yielding = l.early()
	opt.Cold = j.wake
	sw, err := l.svc.Switch(ctx, choice.Dir, opt)
	l.changed()
	r.err, r.took = err, time.Since(start)
	if err == nil {
		l.log.Info("engine loaded", "model", choice.Dir, "load", sw.Load)
	}
	return r
}

// News is what the run loop shows after a load or a download: the ready
// line with Suffix, then Error (when set) so it stays visible.
type News struct {
	Suffix, Error string
}

// OnLoaded applies a finished load: the model in use or why there is none,
// a download of a missing model, the GPU and vocabulary checks. The caller
// refreshes the menu and shows the ready line, then News.Error.
func (l *Loader) OnLoaded(ctx context.Context, r Loaded) News {
	if r.unloaded {
		return News{} // the ready line says so (ReadyText)
	}
	l.st.pending--
	var n News
	switch {
	case r.missing:
		l.st.name, l.st.err, l.st.autoNote = r.name, r.err, autoNote(r)
		if r.job.cfg.Remote.URL != "" {
			// Dictation goes to the server; a local fallback is not worth a
			// download the user did not ask for (and may not be able to run).
			l.log.Info("no local model; dictation uses the remote server alone", "model", r.name)
			l.st.err = nil
		} else {
			l.Pull(ctx, r.name)
			l.st.awaiting = r.name // dictations wait for it too
		}
	case r.err != nil && r.dir == "":
		l.st.name, l.st.err = r.name, r.err
	case r.err != nil:
		if l.svc.Current() == nil {
			l.st.name, l.st.err = r.name, r.err
		}
		// Otherwise the previous model is back and name still names it.
	default:
		l.st.name, l.st.err, l.st.autoNote = r.name, nil, autoNote(r)
		l.checkGPUUsed(r.job.cfg)
		l.CheckVocabulary()
		if r.job.timed {
			n.Suffix = fmt.Sprintf(" (loaded in %.1f s)", r.took.Seconds())
		}
		if r.auto {
			n.Suffix += " · Using " + ModelName(r.name) + " (" + autoWhy(r) + ")"
		}
	}
	l.settleGate()
	if r.err != nil && l.st.err == nil && !r.missing {
		n.Error = r.err.Error()
	}
	return n
}

// autoNote is what the Model menu's Auto item says auto chose for r, a
// load that succeeded or found its model missing; "" when r's config names
// a model.
func autoNote(r Loaded) string {
	if !r.auto {
		return ""
	}
	if r.missing {
		return r.name + ", not downloaded yet"
	}
	return ModelName(r.name) + " (" + autoWhy(r) + ")"
}

// autoWhy says why auto chose r's model.
func autoWhy(r Loaded) string {
	if r.wanted != "" {
		return r.wanted + " not downloaded; " + r.name + " found"
	}
	return "the model for this computer"
}

// WaitingText is what the tray says while a dictation waits for the model.
const WaitingText = "Waiting for the speech model; your words will be typed when it is ready"

// Pending reports whether a model load, or the download of the model to
// load, is in flight.
func (l *Loader) Pending() bool { return l.st.pending > 0 || l.st.awaiting != "" }

// Waiting reports whether a dictation waits for the model and the user was
// told (ShowWaiting), while it is still pending.
func (l *Loader) Waiting() bool { return l.st.waitShown && l.Pending() }

// ShowWaiting notes that the user is told a dictation waits for the model;
// false when it was loaded meanwhile and there is nothing to tell. When the
// model was unloaded for idleness it loads it again with cfg.
func (l *Loader) ShowWaiting(cfg config.Config) bool {
	if l.idle.asleep.Load() { // a dictation that started before the unload
		l.request(job{cfg: cfg, wake: true})
	}
	if !l.Pending() {
		return false
	}
	l.st.waitShown = true
	return true
}

// settleGate lets the dictations held for the model go on once nothing is
// pending: on the model, or to fail with "no model" when there is none.
func (l *Loader) settleGate() {
	if !l.Pending() && !l.idle.asleep.Load() {
		l.gate.end()
		l.st.waitShown = false
	}
}

// checkGPUUsed tells the user when a GPU was found but the engine runs on
// the CPU although the config did not ask for it.
func (l *Loader) checkGPUUsed(cfg config.Config) {
	if reason, ok := GPUNotUsed(l.svc.Current(), cfg); ok {
		l.tell(notify.GPUNotUsed(reason, l.opt.GuidePath))
	}
}

// CheckVocabulary tells the user, once per distinct list, which vocabulary
// terms (the config's or a profile's) the loaded model has no room for.
func (l *Loader) CheckVocabulary() {
	m := l.svc.Current()
	if m == nil || l.dict == nil {
		return
	}
	cfg := l.dict.Config()
	var msgs []string
	add := func(where string, c config.Config) {
		if msg := dictation.VocabularyLeftOut(m.FitVocabulary(dictation.DecodeOptions(c))); msg != "" {
			msgs = append(msgs, where+msg)
		}
	}
	add("", cfg)
	for _, name := range cfg.Profiles.Names() {
		if p, ok := cfg.Profiles.Find(name); ok && p.Vocabulary != nil {
			add("profile "+name+": ", cfg.WithProfile(p))
		}
	}
	msg := strings.Join(msgs, "; ")
	if msg == l.st.vocabTold {
		return
	}
	l.st.vocabTold = msg
	if msg != "" {
		l.log.Warn(msg)
		l.tell(notify.VocabularyTooLong(msg))
	}
}

// GPUNotUsed says why m runs on the CPU when an NVIDIA or AMD GPU was found
// and cfg did not ask for the CPU; ok is false otherwise.
func GPUNotUsed(m *backend.Loaded, cfg config.Config) (reason string, ok bool) {
	if m == nil || m.Spec.Device != "cpu" || cfg.Engine.Device == choice.DeviceCPU {
		return "", false
	}
	for _, g := range m.Report.GPUs {
		if g.Vendor == gpu.NVIDIA || g.Vendor == gpu.AMD {
			return m.Message, true
		}
	}
	return "", false
}

// gate holds dictations that need the local model while a load is in
// flight, so a press during a load or a switch is transcribed once the model
// is ready instead of failing.
type gate struct {
	mu   sync.Mutex
	busy chan struct{} // closed when the loads end; nil when none runs
}

func (g *gate) begin() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy == nil {
		g.busy = make(chan struct{})
	}
}

func (g *gate) end() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy != nil {
		close(g.busy)
		g.busy = nil
	}
}

// pending is closed when the loads in flight end; nil when none runs.
func (g *gate) pending() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.busy
}

// gatedEngine is the local engine behind the gate (used as a pointer: the
// dictation compares engines, and a func field is not comparable). During a
// load a dictation goes to the model that serves meanwhile (a CPU model
// whose successor loads); when there is none, it tells the user why its
// text is late and waits for the load.
type gatedEngine struct {
	dictation.Engine
	current func() *backend.Loaded // the model in use; nil while none is
	gate    *gate
	waiting func() // tells the user; called on the dictation's goroutine
}

func (e *gatedEngine) Transcribe(ctx context.Context, samples []float32, o whisper.Options) (*whisper.Result, error) {
	ch := e.gate.pending()
	if ch == nil {
		return e.Engine.Transcribe(ctx, samples, o)
	}
	res, err := e.Engine.Transcribe(ctx, samples, o)
	if !errors.Is(err, backend.ErrNoModel) {
		return res, err
	}
	if whisper.IsYielding(ctx) {
		// A hold's early transcription does not wait for the model: the
		// release would wait on it unseen. The release's own transcription
		// waits here instead, and tells the user.
		return nil, err
	}
	e.waiting()
	select {
	case <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return e.Engine.Transcribe(ctx, samples, o)
}

// CannotTranslate says why the model in use cannot translate, or "" (also
// while none is loaded: the dictation then waits for it as any other).
func (e *gatedEngine) CannotTranslate() string {
	cur := e.current()
	if cur == nil {
		return ""
	}
	return models.CannotTranslateDir(cur.Spec.ModelDir, len(cur.Languages()) > 1)
}

// status shows a step of a load or a download in the tray, and logs it as
// the desktop logs its status lines.
func (l *Loader) status(state tray.State, text string) {
	l.log.Info("status", "state", state, "text", text)
	l.tray.SetState(state, text)
}

// help is the guide to getting a model in without Hugging Face.
func (l *Loader) help() string {
	if l.opt.ModelHelp != "" {
		return l.opt.ModelHelp
	}
	return models.InstallingAtWorkDoc
}

// MissingText is what the tray says when no model is loaded, and how to fix it.
func (l *Loader) MissingText() string { return MissingModelText(l.st.name, l.st.err, l.help()) }

// ReadyText is the idle status line of the model in use.
func (l *Loader) ReadyText() string {
	if l.idle.asleep.Load() {
		return UnloadedText(l.st.name, l.unloadAfter())
	}
	return ReadyText(l.svc.Current(), l.st.name)
}

// Pulled is a finished model download.
type Pulled struct {
	Name string
	Err  error
}

// Pull downloads a model in the background, showing progress on its menu
// item; the run loop hears the result on Pulled (OnPulled). Serve waits for
// the download to end before it returns. The caller refreshes the menu.
func (l *Loader) Pull(ctx context.Context, name string) {
	if l.st.pulling[name] {
		return
	}
	l.st.pulling[name] = true
	l.status(tray.StateLoading, fmt.Sprintf("Downloading model %s…", name))
	l.pulls.Add(1)
	go func() {
		defer l.pulls.Done()
		_, err := l.opt.Models.Pull(ctx, name, func(p models.Progress) {
			l.tray.SetState(tray.StateLoading, "Downloading "+p.String())
			l.tray.SetItemLabel(tray.SelectModel, name, p.String())
		})
		if err != nil {
			err = downloadError{err}
		}
		select {
		case l.pulled <- Pulled{Name: name, Err: err}:
		case <-ctx.Done():
		}
	}()
}

// WaitPulls waits for the downloads to end (their ctx ended).
func (l *Loader) WaitPulls() { l.pulls.Wait() }

// Close stops the engine.
func (l *Loader) Close() { l.svc.Close() }

// OnPulled handles a finished download: the model the app is waiting for is
// loaded (cfg is the config in use); one picked in the menu is returned as
// pick, to become the configured model. The caller refreshes the menu and
// shows the ready line, then News.Error.
func (l *Loader) OnPulled(ctx context.Context, r Pulled, cfg config.Config) (n News, pick string) {
	delete(l.st.pulling, r.Name)
	if r.Name == FetchID {
		if r.Err != nil {
			return News{Error: "Download of cuBLAS failed: " + r.Err.Error()}, ""
		}
		l.Load(cfg, true) // OnLoaded shows the outcome
		return News{}, ""
	}
	if r.Name == l.st.awaiting {
		l.st.awaiting = ""
		defer l.settleGate() // after Load, which holds the gate on success
	}
	waiting := r.Name == l.st.name && l.svc.Current() == nil
	switch {
	case r.Err != nil && waiting:
		l.st.err = r.Err
		l.tell(notify.NoModel(MissingModelText(r.Name, r.Err, l.help())))
	case r.Err != nil:
		n.Error = fmt.Sprintf("Download of %s failed: %v", r.Name, r.Err)
	case waiting:
		l.tell(notify.ModelDownloaded(r.Name))
		l.Load(cfg, false) // OnLoaded shows the outcome
	default:
		l.tell(notify.ModelDownloaded(r.Name))
		pick = r.Name
	}
	return n, pick
}

// FetchID is the Device menu item that downloads cuBLAS, and its download
// among Pulling.
const FetchID = "fetch-cublas"

// FetchCUBLAS downloads NVIDIA's cuBLAS into the cuda engine folder in the
// background, with progress on its menu item and the status line; the run
// loop hears the result on Pulled (OnPulled), which restarts the engine so
// it comes up on the GPU. It returns why it cannot start ("" when it
// started). The caller refreshes the menu.
func (l *Loader) FetchCUBLAS(ctx context.Context) string {
	if l.st.pulling[FetchID] {
		return ""
	}
	pin, dir, err := backend.CUBLAS(backend.Options{EngineRoot: l.opt.EngineRoot}, runtime.GOOS, l.opt.CUBLASPin)
	if err != nil {
		return "Cannot download cuBLAS: " + err.Error()
	}
	l.st.pulling[FetchID] = true
	l.status(tray.StateLoading, fmt.Sprintf("Downloading %s…", pin.Name()))
	l.pulls.Add(1)
	go func() {
		defer l.pulls.Done()
		err := cublas.Download(ctx, dir, pin, l.opt.Models, func(p models.Progress) {
			l.tray.SetState(tray.StateLoading, "Downloading "+p.String())
			l.tray.SetItemLabel(tray.SelectDevice, FetchID, p.String())
		}, l.log)
		select {
		case l.pulled <- Pulled{Name: FetchID, Err: err}:
		case <-ctx.Done():
		}
	}()
	return ""
}
