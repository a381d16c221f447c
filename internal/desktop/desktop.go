package desktop

import (
	"context"
	"errors"
	"fmt"
	"github.com/whisperkey/whisperkey/internal/loader"
	"log/slog"
	"os"
	"sync"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/control"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/engine"
	"github.com/whisperkey/whisperkey/internal/feedback"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/media"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/power"
	"github.com/whisperkey/whisperkey/internal/service"
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
	Docs   Docs
	// SpeechDetector (Silero VAD), when set, skips presses without speech
	// before any decoding, cuts the silence after the last words, and
	// finds the end of the speech during a hold so the text can be ready
	// at the release; main owns and closes it.
	SpeechDetector SpeechDetector
	Engine         engine.Options
	Session        Session
	Version        string
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

// Docs are the files the tray's items and notices open, each as installed
// or its URL.
type Docs struct {
	// Guide is docs/gpu-setup.md; Log the log file ("" if none).
	Guide, Log string
	// ConfigHelp is docs/configuration.md.
	ConfigHelp string
	// ModelHelp is docs/installing-at-work.md (models without Hugging
	// Face); "" names the file in the repository.
	ModelHelp string
}

// Session is how the app reaches the desktop session's keys.
type Session struct {
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
	// Note, when set, follows the ready status: how to dictate in this
	// session (Wayland: bind `whisperkey ptt`; session.Report.Summary).
	Note string
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
	opt   Options
	log   *slog.Logger
	store *config.Store
	tray  *tray.Tray

	ld        *loader.Loader // the engine, the model loads and downloads
	dictation *dictation.Flow
	app       *app.App
	recorder  *audio.Recorder
	paster    *output.Paster
	listener  *hotkey.Listener
	fb        *feedback.Feedback
	profiles  *dictation.Chooser
	media     *media.Controller // audio.media: players paused or lowered while recording

	checks sync.WaitGroup // resume checks in flight; Run waits for them
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
	store, err := config.New(opt.ConfigPath, config.Options{ValidateHotkey: hotkey.Validate, CannotTranslate: models.CannotTranslate}, log)
	if err != nil {
		return err
	}
	cfg := store.Current()
	d := &desk{opt: opt, log: log.With("pkg", "desktop"), store: store, fb: feedback.New(opt.StateDir, log)}
	// Each part is added to sup as it opens; sup serves them and, once ctx
	// ends, stops them in reverse: a part stops before those it uses.
	sup := service.New(d.log)
	var served chan struct{} // closed once sup has stopped every part; nil until it runs
	defer func() {
		quit()
		if served == nil {
			_ = sup.Serve(ctx) // a part could not open: stop those opened so far
			return
		}
		<-served
	}()
	sup.Add("config file", service.Closer(func() { _ = store.Close() }))
	sup.Add("config watch", service.Func(store.Watch)) // a failed watch is started again
	changes := store.Subscribe()
	d.setLogLevel(cfg)
	cache := opt.Models
	if cache == nil {
		if cache, err = models.New(models.Options{Dir: cfg.ModelCacheDir, Endpoint: cfg.ModelsMirror}, log); err != nil {
			return fmt.Errorf("model cache: %w", err)
		}
	}

	d.tray = tray.New(tray.Config{Title: "WhisperKey"}, log)
	if err := d.tray.Start(); err != nil {
		// The hotkeys still work; say so once in the log.
		d.log.Warn("no tray icon; dictation still works with the hotkey", "err", err)
	}
	sup.Add("tray", service.Closer(d.tray.Close))
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
	sup.Add("microphone, clipboard and hotkeys", service.Closer(d.closeIO))
	if d.opt.Session.ControlSocket != "" {
		if srv, err := control.Listen(d.opt.Session.ControlSocket, pttHandler{d.listener}, log); err != nil {
			d.log.Warn("no control socket; `whisperkey ptt` cannot reach this app", "err", err)
			d.controlNote = "no control socket, `whisperkey ptt` cannot reach this app: " + err.Error()
		} else {
			sup.Add("control socket", service.Closer(func() { _ = srv.Close() }))
			d.log.Info("control socket ready", "path", srv.Path())
		}
	}
	if d.opt.Session.FollowLock != nil { // stops before the listener it drives
		lock := d.opt.Session.FollowLock(d.lockChanged)
		sup.Add("session lock", service.Closer(func() { _ = lock.Close() }))
	}
	shortcut := make(chan shortcutNews, 1)
	if d.opt.Session.Shortcut != nil { // stops before the listener it drives
		sc := d.startShortcut(cfg, shortcut)
		sup.Add("desktop shortcut", service.Closer(func() { _ = sc.Close() }))
	}
	d.fb.Start(cfg, d.recorder, d.opt.Exe)
	sup.Add("feedback", service.Closer(d.fb.Close)) // stops before the recorder: the level ticker reads it
	d.fb.NoteConfig(store.Err(), store.Warnings(), store.Path())

	d.ld = loader.New(loader.Options{EngineRoot: opt.EngineRoot, StateDir: opt.StateDir, CUBLASPin: opt.CUBLASPin,
		ModelHelp: opt.Docs.ModelHelp, GuidePath: opt.Docs.Guide, Engine: opt.Engine, SpeechDetector: opt.SpeechDetector,
		Models: cache}, cfg, d.tray, d.fb.Tell, d.log)
	sup.Add("engine", service.Closer(d.ld.Close))
	sup.Add("model loader", d.ld) // waits for the downloads, which report progress to the tray
	d.dictation = dictation.NewFlow(d.ld.Engine(), d.opt.SpeechDetector)
	d.ld.SetDictation(d.dictation)
	var speculator app.Speculator
	live := make(chan string, 1)
	if d.opt.SpeechDetector != nil {
		d.dictation.Capture(d.recorder.Captured, latest(live))
		speculator = d.dictation
	}
	d.profiles = dictation.NewChooser(d.paster.Focused, d.dictation, d.log)
	d.dictation.Configure(cfg, d.opt.Remote, d.fb.RemoteNotice, d.log)
	d.ld.Load(cfg, false) // on failure the loader keeps the news for the tray; the app runs on

	d.app = app.New(appConfig(cfg), app.Deps{Recorder: feedback.KeepRecordings(d.recorder, os.Getenv("WHISPERKEY_SAVE_RECORDINGS"), d.log),
		Transcriber: d.dictation, Paster: output.ProfilePaster{P: d.paster, Config: d.dictation.Config}, Sounds: d.fb,
		Chooser: d.profiles, Speculator: speculator, Editor: d.paster, Commands: dictation.Commands(d.store.Current),
		Rewriter: output.Rewriter{P: d.paster, Cfg: d.store.Current, Log: d.log}, Silence: d.dictation.Hush(d.listener.StopHandsFree)}, log)
	d.media = media.New(cfg.Audio.Media, d.log)
	sup.Add("media control", service.Func(d.media.Run)) // after the app stops, puts back what it paused
	input := make(chan app.Input)
	sup.Add("app", service.Func(func(ctx context.Context) error { return d.app.Run(ctx, input) })) // stops before the parts it drives
	sup.Add("resume checks", service.Closer(d.checks.Wait))
	var resumed <-chan struct{}
	if w, err := power.Watch(d.log); err != nil {
		d.log.Info("not watching for resume from sleep", "err", err)
	} else {
		sup.Add("resume watch", service.Closer(func() { _ = w.Close() }))
		resumed = w.Resumed()
	}
	served = make(chan struct{})
	go func() {
		defer close(served)
		_ = sup.Serve(ctx)
	}()
	d.refreshMenu()
	d.showReady("")
	return d.serve(ctx, sources{app: d.app.Events(), actions: d.tray.Actions(), changes: changes,
		pulled: d.ld.Pulled(), loaded: d.ld.Loaded(), waits: d.ld.Waits(), audio: d.recorder.Events(), hotkeys: d.listener.Events(),
		resumed: resumed, live: live, shortcut: shortcut, again: d.fb.Agains(), input: input})
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
	l, err := hotkey.New(hotkeyConfig(cfg), d.log, d.opt.Session.Grabber)
	if err != nil {
		_ = rec.Close()
		_ = p.Close()
		return fmt.Errorf("hotkeys: %w", err)
	}
	d.recorder, d.paster, d.listener = rec, p, l
	return nil
}

func (d *desk) closeIO() {
	_ = d.listener.Close()
	_ = d.recorder.Close()
	_ = d.paster.Close()
}

// status shows state and text in the tray. While the config file has
// problems an idle state shows them instead: whatever is ready again, the
// file is still wrong. Only the run loop shows idle states.
func (d *desk) status(state tray.State, text string) {
	if n := d.fb.ConfigNotice(); state == tray.StateIdle && n.Active() {
		state, text = n.State, n.Headline()+" · "+text
	}
	d.log.Info("status", "state", state, "text", text)
	d.tray.SetState(state, text)
}

// showReady shows the idle status: ready on a model, or what is missing.
func (d *desk) showReady(suffix string) {
	if d.opt.Session.Note != "" {
		suffix += " · " + d.opt.Session.Note
	}
	if d.controlNote != "" {
		suffix += " · " + d.controlNote
	}
	if d.ld.Pending() && d.dictation.Status() == "" {
		return // "Loading …" or the download's progress stays until the model is there
	}
	if st := d.dictation.Status(); st != "" {
		if d.ld.Err() != nil {
			suffix += " (no local fallback: " + loader.ModelName(d.ld.Name()) + " is not loaded)"
		}
		d.status(tray.StateIdle, st+" · ready"+suffix)
		return
	}
	if d.ld.Err() != nil {
		text := d.ld.MissingText()
		if d.controlNote != "" {
			text += " · " + d.controlNote
		}
		d.status(tray.StateError, text)
		return
	}
	d.status(tray.StateIdle, d.ld.ReadyText()+suffix+feedback.MicOpenNote(d.recorder)+feedback.LanguageNote(d.current()))
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
