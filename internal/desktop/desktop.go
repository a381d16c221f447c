package desktop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/whisperkey/whisperkey/assets"
	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/control"
	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/media"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/power"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// Options are what main hands over.
type Options struct {
	ConfigPath string
	// Example is config.example.yaml, written on first run.
	Example    []byte
	EngineRoot string
	// CUBLASPin is $WHISPERKEY_CUBLAS_PIN: a cuBLAS download to use instead
	// of the built-in one (cublas.PinEnv); "" means the built-in.
	CUBLASPin string
	StateDir  string
	// Models is the model cache; nil makes one in the config's model_cache_dir.
	Models *models.Cache
	// GuidePath is docs/gpu-setup.md as installed; LogPath the log file ("" if none).
	GuidePath, LogPath string
	// ConfigHelpPath is docs/configuration.md as installed, or its URL.
	ConfigHelpPath string
	// ModelHelpPath is docs/installing-at-work.md (models without Hugging
	// Face) as installed, or its URL; "" names the file in the repository.
	ModelHelpPath string
	// SpeechDetector (Silero VAD), when set, skips presses without speech
	// before any decoding, cuts the silence after the last words, and
	// finds the end of the speech during a hold so the text can be ready
	// at the release; main owns and closes it.
	SpeechDetector SpeechDetector
	Engine         engine.Options
	// Grabber registers hotkeys with the OS (package hotkey/grab).
	Grabber hotkey.Grabber
	// ControlSocket, when set, is where `whisperkey ptt` reaches the record
	// hotkey (package control); main holds the single-instance guard.
	ControlSocket string
	// Shortcut, when set, binds the record hotkey as a shortcut of the
	// desktop itself (the GlobalShortcuts portal on Wayland), beside
	// ControlSocket.
	Shortcut ShortcutRoute
	// FollowLock, when set, follows the login session: the keyboards read
	// directly (evdev) hear the lock screen, so a recording that runs when
	// the screen locks is thrown away rather than pasted there.
	FollowLock LockRoute
	// SessionNote, when set, follows the ready status: how to dictate in
	// this session (Wayland: bind `whisperkey ptt`; session.Report.Summary).
	SessionNote string
	Version     string
	// LogLevel, when set, is the log's level: desktop keeps it at the
	// config's log_level. Verbose pins it at debug (the --verbose flag).
	LogLevel *slog.LevelVar
	Verbose  bool

	// Exe is the executable the start-at-login entry starts; "" hides the toggle.
	Exe string

	// Seams for parts built in their own packages; a nil one is off.
	// See seams.go for what each is called with.
	Remote RemoteEngine
}

// ErrNoDisplay means there is no desktop session to run in.
var ErrNoDisplay = errors.New("no desktop session")

// CheckDisplay explains what is missing when the app cannot show itself. A
// Wayland session without XWayland will do: the desktop's key binding runs
// `whisperkey ptt`, and text goes in through Wayland's protocols.
func CheckDisplay(goos string, getenv func(string) string) error {
	if goos != "linux" || getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "" {
		return nil
	}
	return fmt.Errorf("%w: neither DISPLAY nor WAYLAND_DISPLAY is set. Start WhisperKey from your desktop session; for files use `whisperkey transcribe FILE`", ErrNoDisplay)
}

// desk holds the running parts. The app, recorder, paster and listener take
// new settings in place; the feedback parts (indicator, notifier, history)
// are rebuilt when their settings change, on the loop goroutine. The fields
// are set before the run loop starts, and only the loop goroutine touches
// the mutable ones (the feedback parts, the model and load fields, pulling).
type desk struct {
	opt    Options
	log    *slog.Logger
	store  *config.Store
	models *models.Cache
	tray   *tray.Tray
	quit   context.CancelFunc

	svc       *backend.Service
	dictation *transcriber
	app       *app.App
	// live carries the newest early transcript of the hold to the loop,
	// for the indicator (live_text); it holds one, the newest.
	live     chan string
	recorder *audio.Recorder
	paster   *output.Paster
	listener *hotkey.Listener
	sounds   *audio.Player     // nil when there is no sound output
	media    *media.Controller // audio.media: players paused or lowered while recording
	feedback feedback
	profiles *profileTracker

	// modelName is the model in use or, when loading failed, wanted.
	modelName string
	// modelErr is why no model is loaded (nil when one is).
	modelErr error

	pulls   sync.WaitGroup // download goroutines; Run waits for them
	pulled  chan pullResult
	pulling map[string]bool

	// Model loads run on the loader goroutine (requestLoad, onLoaded).
	loadReq chan loadJob // buffer 1: a job not started yet is replaced
	// earlyReq asks the loader to give the model in use its background
	// worker, or stop it, after decoding.early changed (applyEarly).
	earlyReq     chan struct{} // buffer 1
	loaded       chan loaded
	loadsPending int    // jobs asked for and not yet answered
	awaiting     string // a missing model being downloaded to be loaded
	waitShown    bool   // a dictation waits for them, and the user was told
	gate         modelGate

	checks     sync.WaitGroup  // resume checks in flight; Run waits for them
	hotkeyTold map[string]bool // hotkey problems already notified
	vocabTold  string          // the vocabulary notice last given, so it is given once
	// cfgNotice is the config file's problems, shown until it is fixed;
	// cfgTold the problems last notified, so one broken file is told once.
	cfgNotice configNotice
	cfgTold   string
	// autoNote says which model auto chose and why, for the Model menu and
	// the ready line ("" when the config names a model).
	autoNote string
	// lastEntry is the Recent entry of the last text pasted, which an undo
	// marks; "" when the last paste was a paste again.
	lastEntry string
	// controlNote, when set, says why `whisperkey ptt` cannot reach this
	// app; it follows every idle status, as the log alone is not read.
	controlNote string
}

// Run is the tray app: it loads the model, listens to the hotkeys and
// serves the tray until ctx ends or the user quits. It keeps running when
// the model cannot be loaded, showing in the tray what is missing.
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
	cfg := store.Current()
	d := &desk{opt: opt, log: log.With("pkg", "desktop"), store: store, quit: quit,
		pulled: make(chan pullResult), pulling: map[string]bool{},
		loadReq: make(chan loadJob, 1), earlyReq: make(chan struct{}, 1), loaded: make(chan loaded)}
	d.setLogLevel(cfg)
	if d.models = opt.Models; d.models == nil {
		if d.models, err = models.New(models.Options{Dir: cfg.ModelCacheDir, Endpoint: cfg.ModelsMirror}, log); err != nil {
			return fmt.Errorf("model cache: %w", err)
		}
	}

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
	defer func() {
		quit() // ends the downloads, which report progress to the tray
		d.pulls.Wait()
	}()
	if err := store.Err(); err != nil {
		d.status(tray.StateError, err.Error())
	}
	for _, w := range store.Warnings() {
		d.log.Warn("config", "warning", w.String())
	}

	if err := d.startIO(cfg); err != nil {
		d.status(tray.StateError, err.Error())
		return err
	}
	defer d.closeIO()
	if d.opt.ControlSocket != "" {
		if srv, err := control.Listen(d.opt.ControlSocket, pttHandler{d.listener}, log); err != nil {
			d.log.Warn("no control socket; `whisperkey ptt` cannot reach this app", "err", err)
			d.controlNote = "no control socket, `whisperkey ptt` cannot reach this app: " + err.Error()
		} else {
			defer srv.Close()
			d.log.Info("control socket ready", "path", srv.Path())
		}
	}
	if d.opt.FollowLock != nil {
		defer d.opt.FollowLock(d.lockChanged).Close() // before the listener it drives closes
	}
	shortcut := make(chan shortcutNews, 1)
	if d.opt.Shortcut != nil {
		defer d.startShortcut(cfg, shortcut).Close() // before the listener it drives closes
	}
	d.startFeedback(cfg)
	defer d.closeFeedback() // before the recorder closes: the level ticker reads it
	d.noteConfig(store.Err(), store.Warnings())

	d.svc = backend.NewEmpty(d.backendOptions(cfg), d.log)
	defer d.svc.Close()
	waits := make(chan struct{}, 1)
	d.dictation = newTranscriber(&gatedEngine{Engine: d.svc, gate: &d.gate, waiting: func() {
		select {
		case waits <- struct{}{}: // the loop tells the user
		default:
		}
	}}, d.opt.SpeechDetector)
	var speculator app.Speculator
	d.live = make(chan string, 1)
	if d.opt.SpeechDetector != nil {
		speculator = ahead{d}
	}
	d.dictation.configure(cfg, d.opt.Remote, d.remoteNotice, d.log)
	loaderDone := make(chan struct{})
	go func() {
		defer close(loaderDone)
		d.loader(ctx)
	}()
	defer func() { quit(); <-loaderDone }() // before the service closes
	d.requestLoad(loadJob{cfg: cfg})        // on failure modelErr keeps the news for the tray; the app runs on

	d.app = app.New(appConfig(cfg), app.Deps{Recorder: keepRecordings(d.recorder, os.Getenv("WHISPERKEY_SAVE_RECORDINGS"), d.log),
		Transcriber: d.dictation, Paster: paster{d.paster, d.dictation}, Sounds: d,
		Chooser: d.profiles, Speculator: speculator, Editor: d.paster, Commands: spokenCommands(d.store.Current),
		Rewriter: rewriter{p: d.paster, cfg: d.store.Current, log: d.log}}, log)
	input := make(chan app.Input)
	appDone := make(chan struct{})
	defer func() { quit(); <-appDone }() // before the parts it drives close
	defer func() { quit(); d.checks.Wait() }()
	var resumed <-chan struct{}
	if w, err := power.Watch(d.log); err != nil {
		d.log.Info("not watching for resume from sleep", "err", err)
	} else {
		defer w.Close()
		resumed = w.Resumed()
	}
	go func() {
		defer close(appDone)
		_ = d.app.Run(ctx, input)
	}()
	// Media control: told by onAppEvent; stopped after the app, putting back what it paused.
	d.media = media.New(cfg.Audio.Media, d.log)
	mediaDone := make(chan struct{})
	go func() {
		defer close(mediaDone)
		_ = d.media.Run(ctx)
	}()
	defer func() { quit(); <-mediaDone }()
	d.refreshMenu()
	d.showReady("")
	err = d.serve(ctx, sources{app: d.app.Events(), actions: d.tray.Actions(), changes: changes,
		pulled: d.pulled, loaded: d.loaded, waits: waits, audio: d.recorder.Events(), hotkeys: d.listener.Events(),
		resumed: resumed, live: d.live, shortcut: shortcut, input: input})
	return err
}

// startIO opens the microphone, the clipboard, the hotkeys and the sound
// output: the parts that live as long as the app.
func (d *desk) startIO(cfg config.Config) error {
	rec, err := audio.New(audioConfig(cfg), d.log)
	if err != nil {
		return fmt.Errorf("microphone: %w", err)
	}
	p, err := output.New(output.Config{Mode: cfg.Paste, RemoteTokenPath: remoteTokenPath(d.opt.StateDir)}, d.log)
	if err != nil {
		_ = rec.Close()
		return fmt.Errorf("clipboard: %w", err)
	}
	l, err := hotkey.New(hotkeyConfig(cfg), d.log, d.opt.Grabber)
	if err != nil {
		_ = rec.Close()
		_ = p.Close()
		return fmt.Errorf("hotkeys: %w", err)
	}
	d.recorder, d.paster, d.listener = rec, p, l
	d.profiles = &profileTracker{focused: p.Focused, current: d.store.Current, log: d.log}
	if pl, err := audio.NewPlayer(nil, d.log); err == nil {
		d.sounds = pl
	} else {
		d.log.Warn("no sound output; cues are off", "err", err)
	}
	return nil
}

func (d *desk) closeIO() {
	_ = d.listener.Close()
	_ = d.recorder.Close()
	_ = d.paster.Close()
	if d.sounds != nil {
		_ = d.sounds.Close()
	}
}

// Play is the app's Sounds; the app decides whether cues are on.
func (d *desk) Play(name string) {
	if d.sounds != nil {
		d.sounds.Play(assets.Sound(name))
	}
}

// status shows state and text in the tray. While the config file has
// problems an idle state shows them instead: whatever is ready again, the
// file is still wrong. Only the run loop shows idle states.
func (d *desk) status(state tray.State, text string) {
	if state == tray.StateIdle && d.cfgNotice.active() {
		state, text = d.cfgNotice.state, d.cfgNotice.headline()+" · "+text
	}
	d.log.Info("status", "state", state, "text", text)
	d.tray.SetState(state, text)
}

// showReady shows the idle status: ready on a model, or what is missing.
func (d *desk) showReady(suffix string) {
	if d.opt.SessionNote != "" {
		suffix += " · " + d.opt.SessionNote
	}
	if d.controlNote != "" {
		suffix += " · " + d.controlNote
	}
	if d.modelPending() && d.dictation.status() == "" {
		return // "Loading …" or the download's progress stays until the model is there
	}
	if st := d.dictation.status(); st != "" {
		if d.modelErr != nil {
			suffix += " (no local fallback: " + modelName(d.modelName) + " is not loaded)"
		}
		d.status(tray.StateIdle, st+" · ready"+suffix)
		return
	}
	if d.modelErr != nil {
		text := missingModelText(d.modelName, d.modelErr, d.modelHelp())
		if d.controlNote != "" {
			text += " · " + d.controlNote
		}
		d.status(tray.StateError, text)
		return
	}
	d.status(tray.StateIdle, readyText(d.svc.Current(), d.modelName)+suffix+micOpenNote(d.recorder))
}

// micOpenNote tells, on the ready line, that the microphone stays open
// between dictations (audio.pre_roll), since a privacy indicator says so too.
func micOpenNote(r *audio.Recorder) string {
	if r != nil && r.HeldOpen() {
		return " · microphone open between dictations (audio.pre_roll)"
	}
	return ""
}

func (d *desk) setLogLevel(cfg config.Config) {
	if d.opt.LogLevel == nil {
		return
	}
	if d.opt.Verbose {
		d.opt.LogLevel.Set(slog.LevelDebug)
		return
	}
	d.opt.LogLevel.Set(cfg.SlogLevel())
}

// pttHandler gives `whisperkey ptt` the record hotkey itself: its commands
// become key edges of the listener, which the hotkeys take too.
type pttHandler struct{ l *hotkey.Listener }

func (h pttHandler) PTT(c hotkey.Command) error { return h.l.Command(c) }
