package desktop

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/cublas"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/tray"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// errDownload marks a model download that failed.
var errDownload = errors.New("download failed")

// downloadError is a failed download; it is errDownload, and its text is the cause's.
type downloadError struct{ err error }

func (e downloadError) Error() string        { return e.err.Error() }
func (e downloadError) Unwrap() error        { return e.err }
func (e downloadError) Is(target error) bool { return target == errDownload }

// pullResult is a finished model download.
type pullResult struct {
	name string
	err  error
}

func (d *desk) backendOptions(cfg config.Config) backend.Options {
	sample, _ := backend.SelfTestSample()
	eng := d.opt.Engine
	eng.OnRestart = func(error) { d.fb.Tell(notify.EngineCrashed("")) } // the cause is in the log
	return backend.Options{
		EngineRoot: d.opt.EngineRoot, StateDir: d.opt.StateDir, Device: cfg.Engine.Device,
		DeviceIndex: cfg.Engine.DeviceIndex, ComputeType: cfg.Engine.ComputeType, Threads: cfg.Engine.CPUThreads,
		Sample: sample, Engine: eng, SpeechDetector: d.opt.SpeechDetector,
		Yielding: cfg.Decode.Early,
	}
}

// loadJob asks the loader for the model cfg names; timed: say in the ready
// line how long it took (a switch the user asked for).
type loadJob struct {
	cfg   config.Config
	timed bool
}

// loaded is a finished load, for the run loop (onLoaded).
type loaded struct {
	job     loadJob
	name    string // the model as users know it
	dir     string
	err     error
	missing bool // not downloaded: the loop starts the download
	took    time.Duration
	// auto: the config's model: auto chose name; wanted is the model it
	// picked for the hardware when name stands in for it (not downloaded).
	auto   bool
	wanted string
}

// requestLoad has the loader load the model cfg names, beside the run loop,
// so hotkeys, the tray and recordings go on meanwhile. A
// job not yet started is replaced by the newer one. Until the last job ends
// the gate holds dictations that need the local model: they are transcribed
// when it is ready. Called from the run loop.
func (d *desk) requestLoad(job loadJob) {
	select {
	case <-d.loadReq: // replaced before it started: still one answer to wait for
	default:
		d.loadsPending++
	}
	d.gate.begin()
	d.dictation.Changed()                                    // a hold's early transcription is of the old model
	d.status(tray.StateLoading, "Loading the speech model…") // the loader names it once resolved
	d.loadReq <- job                                         // only the loop sends, and the buffer is empty now
}

// applyEarly has the loader start or stop the model's background worker
// for early transcriptions (decoding.early), so the setting takes effect
// without loading the model again. The loader applies the setting in use
// when it gets to it, after any load in flight. Called from the run loop.
func (d *desk) applyEarly() {
	select {
	case d.earlyReq <- struct{}{}:
	default: // one is pending; it reads the newest setting
	}
}

// early is decoding.early in the settings in use now, which may be newer
// than a load job's.
func (d *desk) early() bool { return d.dictation.Config().Decode.Early }

// loader runs load jobs, and early-transcription worker changes, one at a
// time until ctx ends.
func (d *desk) loader(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.earlyReq:
			d.svc.SetYielding(d.early())
		case job := <-d.loadReq:
			r := d.load(ctx, job)
			// A failed switch may have loaded the previous model again with
			// its old options: the setting in use wins.
			d.svc.SetYielding(d.early())
			select {
			case d.loaded <- r:
			case <-ctx.Done():
				return
			}
		}
	}
}

// load resolves and loads one job's model. It runs on the loader goroutine,
// so it changes nothing of the desk's: onLoaded applies the result.
func (d *desk) load(ctx context.Context, job loadJob) loaded {
	start := time.Now()
	opt := d.backendOptions(job.cfg)
	choice, err := backend.ResolveModel(ctx, job.cfg.Engine.Model, d.models, opt, d.log)
	r := loaded{job: job, name: choice.Name, dir: choice.Dir, err: err, auto: choice.Auto, wanted: choice.Wanted}
	if errors.Is(err, backend.ErrModelMissing) {
		r.missing = true
		return r
	}
	if err != nil {
		r.name, r.dir = job.cfg.Engine.Model, ""
		return r
	}
	d.status(tray.StateLoading, fmt.Sprintf("Loading %s…", modelName(choice.Name)))
	opt.Report = choice.Report // auto has probed the GPUs already
	opt.Yielding = d.early()
	sw, err := d.svc.Switch(ctx, choice.Dir, opt)
	d.dictation.Changed()
	r.err, r.took = err, time.Since(start)
	if err == nil {
		d.log.Info("engine loaded", "model", choice.Dir, "load", sw.Load)
	}
	return r
}

// onLoaded applies a finished load: the model in use or why there is none,
// a download of a missing model, the GPU check, the menu and the ready line.
func (d *desk) onLoaded(ctx context.Context, r loaded) {
	d.loadsPending--
	var suffix string
	switch {
	case r.missing:
		d.modelName, d.modelErr, d.autoNote = r.name, r.err, autoNote(r)
		if r.job.cfg.Remote.URL != "" {
			// Dictation goes to the server; a local fallback is not worth a
			// download the user did not ask for (and may not be able to run).
			d.log.Info("no local model; dictation uses the remote server alone", "model", r.name)
			d.modelErr = nil
		} else {
			d.pull(ctx, r.name)
			d.awaiting = r.name // dictations wait for it too
		}
	case r.err != nil && r.dir == "":
		d.modelName, d.modelErr = r.name, r.err
	case r.err != nil:
		if d.svc.Current() == nil {
			d.modelName, d.modelErr = r.name, r.err
		}
		// Otherwise the previous model is back and modelName still names it.
	default:
		d.modelName, d.modelErr, d.autoNote = r.name, nil, autoNote(r)
		d.checkGPUUsed(r.job.cfg)
		d.checkVocabulary()
		if r.job.timed {
			suffix = fmt.Sprintf(" (loaded in %.1f s)", r.took.Seconds())
		}
		if r.auto {
			suffix += " · Using " + modelName(r.name) + " (" + autoWhy(r) + ")"
		}
	}
	d.settleGate()
	d.refreshMenu()
	d.showReady(suffix)
	if r.err != nil && d.modelErr == nil && !r.missing {
		d.status(tray.StateError, r.err.Error()) // after the ready line, so it stays visible
	}
}

// autoNote is what the Model menu's Auto item says auto chose for r, a
// load that succeeded or found its model missing; "" when r's config names
// a model.
func autoNote(r loaded) string {
	if !r.auto {
		return ""
	}
	if r.missing {
		return r.name + ", not downloaded yet"
	}
	return modelName(r.name) + " (" + autoWhy(r) + ")"
}

// autoWhy says why auto chose r's model.
func autoWhy(r loaded) string {
	if r.wanted != "" {
		return r.wanted + " not downloaded; " + r.name + " found"
	}
	return "the model for this computer"
}

// waitingText is what the tray says while a dictation waits for the model.
const waitingText = "Waiting for the speech model; your words will be typed when it is ready"

// modelPending reports whether a model load, or the download of the model
// to load, is in flight.
func (d *desk) modelPending() bool { return d.loadsPending > 0 || d.awaiting != "" }

// settleGate lets the dictations held for the model go on once nothing is
// pending: on the model, or to fail with "no model" when there is none.
func (d *desk) settleGate() {
	if !d.modelPending() {
		d.gate.end()
		d.waitShown = false
	}
}

// showWaiting tells the user that a dictation waits for the model being
// loaded, in the tray and on the indicator.
func (d *desk) showWaiting() {
	if !d.modelPending() {
		return // it was loaded meanwhile
	}
	d.waitShown = true
	d.status(tray.StateLoading, waitingText)
	d.fb.Show(indicator.Transcribing, "Waiting for the model…")
}

// modelGate holds dictations that need the local model while a load is in
// flight, so a press during a load or a switch is transcribed once the model
// is ready instead of failing.
type modelGate struct {
	mu   sync.Mutex
	busy chan struct{} // closed when the loads end; nil when none runs
}

func (g *modelGate) begin() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy == nil {
		g.busy = make(chan struct{})
	}
}

func (g *modelGate) end() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy != nil {
		close(g.busy)
		g.busy = nil
	}
}

// pending is closed when the loads in flight end; nil when none runs.
func (g *modelGate) pending() <-chan struct{} {
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
	gate    *modelGate
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
	e.waiting()
	select {
	case <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return e.Engine.Transcribe(ctx, samples, o)
}

// modelHelp is the guide to getting a model in without Hugging Face.
func (d *desk) modelHelp() string {
	if d.opt.ModelHelpPath != "" {
		return d.opt.ModelHelpPath
	}
	return models.InstallingAtWorkDoc
}

// pull downloads a model in the background, showing progress on its menu
// item; the run loop hears the result on d.pulled (onPulled). Run waits for
// the download to end before it returns. The caller refreshes the menu.
func (d *desk) pull(ctx context.Context, name string) {
	if d.pulling[name] {
		return
	}
	d.pulling[name] = true
	d.status(tray.StateLoading, fmt.Sprintf("Downloading model %s…", name))
	d.pulls.Add(1)
	go func() {
		defer d.pulls.Done()
		_, err := d.models.Pull(ctx, name, func(p models.Progress) {
			d.tray.SetState(tray.StateLoading, "Downloading "+p.String())
			d.tray.SetItemLabel(tray.SelectModel, name, p.String())
		})
		if err != nil {
			err = downloadError{err}
		}
		select {
		case d.pulled <- pullResult{name: name, err: err}:
		case <-ctx.Done():
		}
	}()
}

// onPulled handles a finished download: the model the app is waiting for is
// loaded; one picked in the menu becomes the configured model.
func (d *desk) onPulled(ctx context.Context, r pullResult) {
	delete(d.pulling, r.name)
	if r.name == fetchID {
		d.onFetched(r.err)
		return
	}
	if r.name == d.awaiting {
		d.awaiting = ""
		defer d.settleGate() // after requestLoad, which holds the gate on success
	}
	waiting := r.name == d.modelName && d.svc.Current() == nil
	switch {
	case r.err != nil && waiting:
		d.modelErr = r.err
		d.fb.Tell(notify.NoModel(missingModelText(r.name, r.err, d.modelHelp())))
	case r.err != nil:
		defer d.status(tray.StateError, fmt.Sprintf("Download of %s failed: %v", r.name, r.err)) // after the refresh, so it stays visible
	case waiting:
		d.fb.Tell(notify.ModelDownloaded(r.name))
		d.requestLoad(loadJob{cfg: d.store.Current()}) // onLoaded shows the outcome
	default:
		d.fb.Tell(notify.ModelDownloaded(r.name))
		if err := d.store.Set(config.KeyModel, r.name); err != nil {
			defer d.status(tray.StateError, err.Error())
		}
	}
	d.refreshMenu()
	d.showReady("")
}

// fetchID is the Device menu item that downloads cuBLAS, and its download
// among d.pulling.
const fetchID = "fetch-cublas"

// fetchCUBLAS downloads NVIDIA's cuBLAS into the cuda engine folder in the
// background, with progress on its menu item and the status line; the run
// loop hears the result on d.pulled (onFetched). The caller refreshes the menu.
func (d *desk) fetchCUBLAS(ctx context.Context) {
	if d.pulling[fetchID] {
		return
	}
	pin, dir, err := backend.CUBLAS(backend.Options{EngineRoot: d.opt.EngineRoot}, runtime.GOOS, d.opt.CUBLASPin)
	if err != nil {
		d.status(tray.StateError, "Cannot download cuBLAS: "+err.Error())
		return
	}
	d.pulling[fetchID] = true
	d.status(tray.StateLoading, fmt.Sprintf("Downloading %s…", pin.Name()))
	d.pulls.Add(1)
	go func() {
		defer d.pulls.Done()
		err := cublas.Download(ctx, dir, pin, d.models, func(p models.Progress) {
			d.tray.SetState(tray.StateLoading, "Downloading "+p.String())
			d.tray.SetItemLabel(tray.SelectDevice, fetchID, p.String())
		}, d.log)
		select {
		case d.pulled <- pullResult{name: fetchID, err: err}:
		case <-ctx.Done():
		}
	}()
}

// onFetched restarts the engine once cuBLAS is in, so it comes up on the GPU.
func (d *desk) onFetched(err error) {
	if err != nil {
		defer d.status(tray.StateError, "Download of cuBLAS failed: "+err.Error()) // after the refresh, so it stays visible
		d.refreshMenu()
		return
	}
	d.requestLoad(loadJob{cfg: d.store.Current(), timed: true}) // onLoaded shows the outcome
}
