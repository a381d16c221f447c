package desktop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/assets"
	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/tray"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// Options are what main hands over.
type Options struct {
	ConfigPath string
	// Example is config.example.yaml, written on first run.
	Example    []byte
	EngineRoot string
	StateDir   string
	Models     *models.Cache
	// GuidePath is docs/gpu-setup.md as installed; LogPath the log file ("" if none).
	GuidePath, LogPath string
	Engine             engine.Options
	// Grabber registers hotkeys with the OS (package hotkey/grab).
	Grabber hotkey.Grabber
	Version string
}

// ErrNoDisplay means there is no desktop session to run in.
var ErrNoDisplay = errors.New("no desktop session")

// CheckDisplay explains what is missing when the app cannot show itself.
func CheckDisplay(goos string, getenv func(string) string) error {
	if goos != "linux" {
		return nil
	}
	if getenv("DISPLAY") == "" {
		msg := "no X display: DISPLAY is not set"
		if getenv("WAYLAND_DISPLAY") != "" {
			msg = "WhisperKey needs X11 or XWayland for global hotkeys and paste, and DISPLAY is not set (enable XWayland)"
		}
		return fmt.Errorf("%w: %s. Start WhisperKey from your desktop session; for files use `whisperkey transcribe FILE`", ErrNoDisplay, msg)
	}
	return nil
}

// Run is the tray app: it loads the model, listens to the hotkeys and
// serves the tray until ctx ends or the user quits.
func Run(ctx context.Context, opt Options, log *slog.Logger) error {
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	if created, err := config.EnsureFile(opt.ConfigPath, opt.Example); err != nil {
		return err
	} else if created {
		log.Info("created the config file", "path", opt.ConfigPath)
	}
	store, err := config.New(opt.ConfigPath, config.Options{ValidateHotkey: hotkey.Validate}, log)
	if err != nil {
		return err
	}
	defer store.Close()
	d := &desk{opt: opt, log: log.With("pkg", "desktop"), store: store, quit: quit}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := store.Watch(ctx); err != nil && !errors.Is(err, context.Canceled) {
			d.log.Warn("config watch stopped", "err", err)
		}
	}()
	changes := store.Subscribe()

	d.tray = tray.New(tray.Config{Title: "WhisperKey"}, log)
	if err := d.tray.Start(); err != nil {
		// The hotkeys still work; say so once in the log.
		d.log.Warn("no tray icon; dictation still works with the hotkey", "err", err)
	}
	defer d.tray.Close()
	if err := store.Err(); err != nil {
		d.status(tray.StateError, err.Error())
	}
	for _, w := range store.Warnings() {
		d.log.Warn("config", "warning", w.String())
	}

	cfg := store.Current()
	d.status(tray.StateLoading, "Loading the speech model…")
	if err := d.startEngine(ctx, cfg); err != nil {
		d.status(tray.StateError, err.Error())
		return err
	}
	defer d.svc.Close()
	if err := d.startIO(cfg); err != nil {
		d.status(tray.StateError, err.Error())
		return err
	}
	defer d.closeIO()

	a := app.New(app.Config{MinDuration: cfg.Audio.MinDuration, Sounds: cfg.Sounds},
		app.Deps{Recorder: recorderRef{d}, Transcriber: transcriberRef{d}, Paster: pasterRef{d}, Sounds: d}, log)
	input := make(chan app.Input)
	wg.Add(2)
	go func() {
		defer wg.Done()
		_ = a.Run(ctx, input)
	}()
	go func() {
		defer wg.Done()
		d.forwardHotkeys(ctx, input)
	}()
	d.refreshMenu()
	d.status(tray.StateIdle, d.readyText())

	return d.serve(ctx, sources{app: a.Events(), actions: d.tray.Actions(), changes: changes, pulled: d.pulled})
}

// desk holds the running parts. Fields swapped at run time are guarded by mu.
type desk struct {
	opt   Options
	log   *slog.Logger
	store *config.Store
	tray  *tray.Tray
	quit  context.CancelFunc

	svc      *backend.Service
	modelArg string
	pulled   chan error

	mu       sync.Mutex
	recorder *audio.Recorder
	paster   *output.Paster
	listener *hotkey.Listener
	player   *audio.Player
	sounds   bool
	events   chan hotkey.Event // re-pointed when the listener is rebuilt
}

func (d *desk) status(state, text string) {
	d.log.Info("status", "state", state, "text", text)
	d.tray.SetState(state, text)
}

func (d *desk) readyText() string { return readyText(d.svc.Current(), d.modelArg) }

// readyText is the idle status line for the loaded model l (nil when none is).
func readyText(l *backend.Loaded, modelArg string) string {
	if l == nil {
		return fmt.Sprintf("No speech model is loaded (%s failed to load) — pick a model in the Model menu", modelName(modelArg))
	}
	dev := "CPU"
	if l.Spec.Device != "cpu" {
		dev = "GPU"
	}
	return fmt.Sprintf("%s — model %s · %s %s · ready", l.Message, modelName(modelArg), dev, shownComputeType(l))
}

// shownComputeType names what CTranslate2 resolves "auto" to on this
// device (its documented order), so the status line says int8, not auto.
func shownComputeType(l *backend.Loaded) string {
	ct := l.Spec.ComputeType
	if ct != "auto" {
		return ct
	}
	order := []string{"int8_float32", "int16", "float32"}
	if l.Spec.Device != "cpu" {
		order = []string{"int8_float16", "int8_float32", "float16", "float32"}
	}
	for _, dev := range l.Client.Ready().Devices {
		if dev.Device != l.Spec.Device {
			continue
		}
		for _, want := range order {
			for _, have := range dev.ComputeTypes {
				if have == want {
					return want
				}
			}
		}
	}
	return ct
}

func modelName(arg string) string {
	if strings.ContainsRune(arg, os.PathSeparator) {
		return filepath.Base(arg)
	}
	return arg
}

func (d *desk) backendOptions(cfg config.Config) backend.Options {
	sample, _ := backend.SelfTestSample()
	return backend.Options{
		EngineRoot: d.opt.EngineRoot, StateDir: d.opt.StateDir, Device: cfg.Engine.Device,
		DeviceIndex: cfg.Engine.DeviceIndex, ComputeType: cfg.Engine.ComputeType, Threads: cfg.Engine.CPUThreads,
		Sample: sample, Engine: d.opt.Engine,
	}
}

// modelDir resolves the configured model, choosing one for the hardware
// when it says auto, and downloads it (with progress in the tray) if needed.
func (d *desk) modelDir(ctx context.Context, cfg config.Config) (string, error) {
	name := cfg.Engine.Model
	if name == config.ModelAuto {
		r := backend.Detect(ctx, d.backendOptions(cfg), d.log)
		dec := backend.Decide(r, d.backendOptions(cfg))
		var vram uint64
		if dec.GPU != nil {
			vram = dec.GPU.VRAM
		}
		name = models.DefaultFor(dec.Device != "cpu", vram)
	}
	d.modelArg = name
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return name, nil
	}
	if dir, ok := d.opt.Models.Resolve(name); ok {
		return dir, nil
	}
	d.status(tray.StateLoading, fmt.Sprintf("Downloading model %s…", name))
	return d.opt.Models.Pull(ctx, name, func(p models.Progress) {
		d.tray.SetState(tray.StateLoading, "Downloading "+p.String())
		d.tray.SetItemLabel(tray.SelectModel, name, p.String())
	})
}

func (d *desk) startEngine(ctx context.Context, cfg config.Config) error {
	dir, err := d.modelDir(ctx, cfg)
	if err != nil {
		return err
	}
	svc, err := backend.NewService(ctx, dir, d.backendOptions(cfg), d.log)
	if err != nil {
		return err
	}
	d.svc = svc
	d.pulled = make(chan error, 1)
	return nil
}

func (d *desk) startIO(cfg config.Config) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	rec, err := audio.New(audio.Config{Device: cfg.Audio.InputDevice, PreRoll: preRoll(cfg), MaxDuration: cfg.Audio.MaxDuration}, d.log)
	if err != nil {
		return fmt.Errorf("microphone: %w", err)
	}
	p, err := output.New(output.Config{Mode: cfg.Paste}, d.log)
	if err != nil {
		_ = rec.Close()
		return fmt.Errorf("clipboard: %w", err)
	}
	d.recorder, d.paster = rec, p
	d.sounds = cfg.Sounds
	if pl, err := audio.NewPlayer(nil, d.log); err == nil {
		d.player = pl
	} else {
		d.log.Warn("no sound output; cues are off", "err", err)
	}
	return d.startHotkeysLocked(cfg)
}

func preRoll(cfg config.Config) time.Duration {
	if !cfg.Audio.PreRoll {
		return 0
	}
	return cfg.Audio.PreRollLength
}

func (d *desk) startHotkeysLocked(cfg config.Config) error {
	l, err := hotkey.New(hotkey.Config{Record: cfg.Hotkeys.Record, AutoSend: cfg.Hotkeys.AutoSend,
		Cancel: cfg.Hotkeys.Cancel, Mode: cfg.Hotkeys.Mode}, d.log, d.opt.Grabber)
	if err != nil {
		return fmt.Errorf("hotkeys: %w", err)
	}
	d.listener = l
	return nil
}

func (d *desk) closeIO() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.listener != nil {
		_ = d.listener.Close()
	}
	if d.recorder != nil {
		_ = d.recorder.Close()
	}
	if d.paster != nil {
		_ = d.paster.Close()
	}
	if d.player != nil {
		_ = d.player.Close()
	}
}

// forwardHotkeys turns hotkey events into app input, following the
// listener across rebuilds.
func (d *desk) forwardHotkeys(ctx context.Context, input chan<- app.Input) {
	defer close(input)
	for {
		d.mu.Lock()
		l := d.listener
		d.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case e, ok := <-l.Events():
			if !ok {
				// Rebuilt or closed: wait for the next one.
				select {
				case <-ctx.Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
				continue
			}
			in := app.Input{At: time.Now(), Send: e.Hotkey == hotkey.AutoSend}
			switch e.Kind {
			case hotkey.Start:
				in.Trigger = app.TriggerStart
			case hotkey.Stop:
				in.Trigger = app.TriggerStop
			case hotkey.Cancel:
				in.Trigger = app.TriggerCancel
			case hotkey.Problem:
				d.status(tray.StateError, e.Err.Error())
				continue
			}
			select {
			case input <- in:
			case <-ctx.Done():
				return
			}
		}
	}
}

func (d *desk) onAppEvent(e app.Event) {
	state := map[app.State]string{app.Idle: tray.StateIdle, app.Recording: tray.StateRecording,
		app.Transcribing: tray.StateTranscribing, app.Output: tray.StateTranscribing, app.Error: tray.StateError}[e.State]
	text := e.Message
	if e.State == app.Idle && e.Message == "Ready" {
		text = d.readyText()
	}
	if e.Text != "" && e.State == app.Idle {
		tm := e.Timings
		d.log.Info("dictated", "chars", len(e.Text), "audio_ms", tm.Audio.Milliseconds(),
			"release_to_paste_ms", tm.ReleaseToPaste.Milliseconds(), "capture_stop_ms", tm.CaptureStop.Milliseconds(),
			"features_ms", tm.Features.Milliseconds(), "engine_ms", tm.Engine.Milliseconds(), "paste_ms", tm.Paste.Milliseconds())
	}
	d.status(state, text)
}

func (d *desk) onAction(ctx context.Context, a tray.Action) {
	set := func(key string, v any) {
		if err := d.store.Set(key, v); err != nil {
			d.status(tray.StateError, err.Error())
		}
	}
	switch a.Kind {
	case tray.SelectModel:
		if _, ok := d.opt.Models.Resolve(a.Value); !ok {
			if _, err := os.Stat(a.Value); err != nil {
				go d.pull(ctx, a.Value)
				return
			}
		}
		set(config.KeyModel, a.Value)
	case tray.SelectDevice:
		set(config.KeyDevice, a.Value)
	case tray.SelectComputeType:
		set(config.KeyComputeType, a.Value)
	case tray.SelectLanguage:
		set(config.KeyLanguage, a.Value)
	case tray.SelectInputDevice:
		set(config.KeyInputDevice, a.Value)
	case tray.SelectPasteMode:
		set(config.KeyPaste, a.Value)
	case tray.OpenConfig:
		d.open(d.opt.ConfigPath)
	case tray.OpenGuide:
		d.open(d.opt.GuidePath)
	case tray.OpenLog:
		d.open(d.opt.LogPath)
	case tray.Quit:
		d.quit()
	}
}

// pull downloads a model picked in the menu, showing progress on its item,
// then selects it.
func (d *desk) pull(ctx context.Context, name string) {
	_, err := d.opt.Models.Pull(ctx, name, func(p models.Progress) {
		d.tray.SetItemLabel(tray.SelectModel, name, p.String())
	})
	if err == nil {
		err = d.store.Set(config.KeyModel, name)
	}
	select {
	case d.pulled <- err:
	default:
	}
}

func (d *desk) open(path string) {
	if path == "" {
		return
	}
	if err := tray.OpenPath(path); err != nil {
		d.status(tray.StateError, fmt.Sprintf("Could not open %s: %v", path, err))
	}
}

func (d *desk) onConfigChange(ctx context.Context, ch config.Change) {
	if ch.Err != nil {
		d.status(tray.StateError, ch.Err.Error())
		return
	}
	cfg := ch.New
	loaded := ""
	if ch.NeedsEngineRestart {
		d.status(tray.StateLoading, "Switching the speech model…")
		dir, err := d.modelDir(ctx, cfg)
		if err == nil {
			var sw backend.Switched
			sw, err = d.svc.Switch(ctx, dir, d.backendOptions(cfg))
			if err == nil {
				d.log.Info("engine switched", "model", dir, "load", sw.Load)
				loaded = fmt.Sprintf(" (loaded in %.1f s)", sw.Load.Seconds())
			}
		}
		if err != nil {
			defer d.status(tray.StateError, err.Error()) // after the refresh below, so it stays visible
			loaded = ""
		}
	}
	d.mu.Lock()
	if ch.Old.Paste != cfg.Paste {
		if p, err := output.New(output.Config{Mode: cfg.Paste}, d.log); err == nil {
			_ = d.paster.Close()
			d.paster = p
		}
	}
	if ch.Old.Audio != cfg.Audio {
		if rec, err := audio.New(audio.Config{Device: cfg.Audio.InputDevice, PreRoll: preRoll(cfg), MaxDuration: cfg.Audio.MaxDuration}, d.log); err == nil {
			_ = d.recorder.Close()
			d.recorder = rec
		} else {
			d.log.Warn("keeping the previous microphone", "err", err)
		}
	}
	if ch.Old.Hotkeys != cfg.Hotkeys {
		_ = d.listener.Close()
		if err := d.startHotkeysLocked(cfg); err != nil {
			d.mu.Unlock()
			d.status(tray.StateError, err.Error())
			d.mu.Lock()
			_ = d.startHotkeysLocked(ch.Old)
		}
	}
	d.sounds = cfg.Sounds
	d.mu.Unlock()
	d.refreshMenu()
	d.status(tray.StateIdle, d.readyText()+loaded)
}

// refreshMenu rebuilds the tray's submenus from the registry, the engine's
// report and the config.
func (d *desk) refreshMenu() {
	cfg := d.store.Current()
	l := d.svc.Current()
	var m tray.Menu
	for _, e := range d.opt.Models.List() {
		label := e.Name
		if !e.Downloaded {
			label = fmt.Sprintf("%s (%s, download)", e.Name, sizeText(e.Size))
		}
		m.Models = append(m.Models, tray.Item{ID: e.Name, Label: label, Checked: e.Name == d.modelArg})
	}
	if !containsID(m.Models, d.modelArg) {
		m.Models = append([]tray.Item{{ID: d.modelArg, Label: modelName(d.modelArg), Checked: true}}, m.Models...)
	}
	m.Devices = []tray.Item{{ID: config.DeviceAuto, Label: "Auto", Checked: cfg.Engine.Device == config.DeviceAuto}}
	var gpus []gpu.GPU
	if l != nil {
		gpus = l.Report.GPUs
	}
	for _, g := range gpus {
		id := "cuda"
		if g.Vendor == gpu.AMD {
			id = "rocm"
		}
		if g.Vendor == gpu.NVIDIA || g.Vendor == gpu.AMD {
			m.Devices = append(m.Devices, tray.Item{ID: id, Label: g.Label(), Checked: cfg.Engine.Device == id})
		}
	}
	m.Devices = append(m.Devices, tray.Item{ID: "cpu", Label: "CPU", Checked: cfg.Engine.Device == "cpu"})
	types := []string{"auto"}
	if l != nil {
		for _, dev := range l.Client.Ready().Devices {
			if dev.Device == l.Spec.Device {
				types = append(types, dev.ComputeTypes...)
			}
		}
	}
	for _, t := range types {
		m.ComputeTypes = append(m.ComputeTypes, tray.Item{ID: t, Label: t, Checked: cfg.Engine.ComputeType == t})
	}
	m.Languages = []tray.Item{{ID: "auto", Label: "Detect automatically", Checked: cfg.Decode.Language == "auto" || cfg.Decode.Language == ""}}
	var langs []string
	if l != nil {
		langs = l.Client.Ready().Model.Languages
	}
	for _, code := range langs {
		m.Languages = append(m.Languages, tray.Item{ID: code, Label: code, Checked: cfg.Decode.Language == code})
	}
	d.mu.Lock()
	if devs, err := d.recorder.Devices(); err == nil {
		m.InputDevices = append(m.InputDevices, tray.Item{ID: "", Label: "System default", Checked: cfg.Audio.InputDevice == ""})
		for _, dev := range devs {
			m.InputDevices = append(m.InputDevices, tray.Item{ID: dev.Name, Label: dev.Name, Checked: cfg.Audio.InputDevice == dev.Name})
		}
	}
	d.mu.Unlock()
	for _, p := range []struct{ id, label string }{{config.PastePaste, "Paste at the cursor"},
		{config.PasteEnter, "Paste and press Enter"}, {config.PasteClipboard, "Clipboard only"}} {
		m.PasteModes = append(m.PasteModes, tray.Item{ID: p.id, Label: p.label, Checked: cfg.Paste == p.id})
	}
	d.tray.SetMenu(m)
}

func containsID(items []tray.Item, id string) bool {
	for _, it := range items {
		if it.ID == id {
			return true
		}
	}
	return false
}

func sizeText(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%d MB", b>>20)
}

// Play is the app's Sounds.
func (d *desk) Play(name string) {
	d.mu.Lock()
	p, on := d.player, d.sounds
	d.mu.Unlock()
	if p != nil && on {
		p.Play(assets.Sound(name))
	}
}

// The app holds these for its whole run; they look up the current part, so
// a rebuilt recorder or paster takes effect on the next dictation.
type recorderRef struct{ d *desk }

func (r recorderRef) cur() *audio.Recorder {
	r.d.mu.Lock()
	defer r.d.mu.Unlock()
	return r.d.recorder
}
func (r recorderRef) Start() error { return r.cur().Start() }
func (r recorderRef) Cancel()      { r.cur().Cancel() }

// Stop also keeps a copy of the recording when WHISPERKEY_SAVE_RECORDINGS
// names a folder (for bug reports: what did the app actually hear?).
func (r recorderRef) Stop() ([]float32, error) {
	s, err := r.cur().Stop()
	if dir := os.Getenv("WHISPERKEY_SAVE_RECORDINGS"); dir != "" && len(s) > 0 {
		name := filepath.Join(dir, time.Now().Format("20060102-150405.000")+".wav")
		if f, ferr := os.Create(name); ferr == nil {
			_ = audio.EncodeWAV(f, s, audio.SampleRate, 1)
			_ = f.Close()
		}
	}
	return s, err
}

type pasterRef struct{ d *desk }

func (p pasterRef) Output(ctx context.Context, text string, enter bool) (time.Time, error) {
	p.d.mu.Lock()
	ps := p.d.paster
	p.d.mu.Unlock()
	res, err := ps.Output(ctx, text, output.Options{PressEnter: enter})
	return res.PastedAt, err
}

type transcriberRef struct{ d *desk }

func (t transcriberRef) Transcribe(ctx context.Context, samples []float32) (app.Transcript, error) {
	cfg := t.d.store.Current()
	o := whisper.DefaultOptions()
	o.Language = cfg.Decode.Language
	o.BeamSize = cfg.Decode.BeamSize
	o.InitialPrompt = cfg.Decode.InitialPrompt
	o.Hotwords = cfg.Decode.Hotwords
	res, err := t.d.svc.Transcribe(ctx, samples, o)
	if err != nil {
		return app.Transcript{}, err
	}
	return app.Transcript{Text: res.Text, Features: res.Timings.Features, Engine: res.Timings.Engine}, nil
}
