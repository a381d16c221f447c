package desktop

import (
	"context"
	"errors"
	"fmt"

	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/tray"
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
	eng.OnRestart = func(error) { d.tell(notify.EngineCrashed("")) } // the cause is in the log
	return backend.Options{
		EngineRoot: d.opt.EngineRoot, StateDir: d.opt.StateDir, Device: cfg.Engine.Device,
		DeviceIndex: cfg.Engine.DeviceIndex, ComputeType: cfg.Engine.ComputeType, Threads: cfg.Engine.CPUThreads,
		Sample: sample, Engine: eng, SpeechDetector: d.opt.SpeechDetector,
	}
}

// loadModel loads the model cfg names into the engine. A model that is not
// downloaded is fetched in the background (onPulled loads it when it
// arrives); until then, and when loading fails, modelErr says why and the
// app keeps running. The error is the same news, for the caller to show.
func (d *desk) loadModel(ctx context.Context, cfg config.Config) error {
	opt := d.backendOptions(cfg)
	choice, err := backend.ResolveModel(ctx, cfg.Engine.Model, d.models, opt, d.log)
	if errors.Is(err, backend.ErrModelMissing) {
		d.modelName, d.modelErr = choice.Name, err
		if cfg.Remote.URL != "" {
			// Dictation goes to the server; a local fallback is not worth a
			// download the user did not ask for (and may not be able to run).
			d.log.Info("no local model; dictation uses the remote server alone", "model", choice.Name)
			return nil
		}
		d.pull(ctx, choice.Name)
		return err
	}
	if err != nil {
		d.modelName, d.modelErr = cfg.Engine.Model, err
		return err
	}
	d.status(tray.StateLoading, fmt.Sprintf("Loading %s…", modelName(choice.Name)))
	sw, err := d.svc.Switch(ctx, choice.Dir, opt)
	if err != nil {
		if d.svc.Current() == nil {
			d.modelName, d.modelErr = choice.Name, err
		}
		// Otherwise the previous model is back and modelName still names it.
		return err
	}
	d.modelName, d.modelErr = choice.Name, nil
	d.log.Info("engine loaded", "model", choice.Dir, "load", sw.Load)
	return nil
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
	waiting := r.name == d.modelName && d.svc.Current() == nil
	switch {
	case r.err != nil && waiting:
		d.modelErr = r.err
		d.tell(notify.NoModel(missingModelText(r.name, r.err)))
	case r.err != nil:
		defer d.status(tray.StateError, fmt.Sprintf("Download of %s failed: %v", r.name, r.err)) // after the refresh, so it stays visible
	case waiting:
		d.tell(notify.ModelDownloaded(r.name))
		if d.loadModel(ctx, d.store.Current()) == nil { // else modelErr says what went wrong
			d.checkGPUUsed(d.store.Current())
		}
	default:
		d.tell(notify.ModelDownloaded(r.name))
		if err := d.store.Set(config.KeyModel, r.name); err != nil {
			defer d.status(tray.StateError, err.Error())
		}
	}
	d.refreshMenu()
	d.showReady("")
}
