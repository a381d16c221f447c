package commands

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/control"
	"github.com/whisperkey/whisperkey/internal/desktop"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/hotkey/evdev"
	"github.com/whisperkey/whisperkey/internal/hotkey/grab"
	"github.com/whisperkey/whisperkey/internal/instance"
	"github.com/whisperkey/whisperkey/internal/logging"
	"github.com/whisperkey/whisperkey/internal/paths"
	"github.com/whisperkey/whisperkey/internal/power"
	"github.com/whisperkey/whisperkey/internal/remote"
	"github.com/whisperkey/whisperkey/internal/session"
)

func runApp(ctx context.Context, b Build, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("verbose", false, "log debug detail")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if err := desktop.CheckDisplay(runtime.GOOS, os.Getenv); err != nil {
		return err
	}
	release, err := instance.Acquire("app")
	if errors.Is(err, instance.ErrAlreadyRunning) {
		return errors.New("WhisperKey is already running — look for its icon in the system tray")
	}
	if err != nil {
		return err
	}
	defer release()

	// The config's log_level sets this once desktop has read the config
	// (and again when it changes); until then, info or --verbose's debug.
	level := new(slog.LevelVar)
	if *verbose {
		level.Set(slog.LevelDebug)
	}
	logDir, err := paths.LogDir()
	if err != nil {
		return err
	}
	log, closer, logPath, err := logging.Open(logDir, level)
	if err != nil {
		return err
	}
	defer closer.Close()
	log.Info("WhisperKey starting", "version", b.Version, "log", logPath)

	cfgPath, err := configPath()
	if err != nil {
		return err
	}
	env, err := newEnvironment(log, cfgPath)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	// The desktop routes are a Linux matter (X11 or Wayland): on Windows,
	// wine's DISPLAY would have them name X11 and evdev.
	var desk session.Report
	if runtime.GOOS == "linux" {
		desk = session.Evaluate(session.Probe(ctx, os.Getenv))
	}
	for _, r := range desk.Routes {
		log.Info("desktop route", "session", string(desk.Type), "desktop", string(desk.Desktop),
			"route", r.Name, "for", r.For, "available", r.Available, "used", r.Used, "note", r.Note)
	}
	var grabber hotkey.Grabber
	var lock desktop.LockRoute
	var g *grab.Grabber
	kb := keyboardReader(desk, log)
	if kb == nil {
		g, err = grab.New(log)
	}
	switch {
	case kb != nil:
		defer kb.Close() // after desktop.Run, which closes the lock route first
		lock = followLock(kb, log)
		grabber = kb
	case errors.Is(err, grab.ErrNoDisplay) && desk.Type == session.Wayland:
		log.Info("no X display: the hotkeys of config.yaml are off; the desktop's key binding runs `whisperkey ptt` (docs/wayland.md)", "err", err)
		grabber = compositorKeys{}
	case err != nil:
		return fmt.Errorf("hotkeys: %w", err)
	default:
		defer g.Close()
		grabber = g
	}
	var speech desktop.SpeechDetector
	if d := env.speechDetector(); d != nil {
		defer d.Close()
		speech = desktop.Detector(d)
	}
	// `whisperkey ptt` is for desktops whose compositor owns the keys
	// (Wayland). Windows' keyboard hook hears every window, and a folder's
	// mode bits there cannot say it is private.
	controlSocket := ""
	if runtime.GOOS != "windows" {
		controlSocket = control.DefaultPath()
	}
	var shortcut desktop.ShortcutRoute
	if desk.Uses(session.RoutePortal) {
		shortcut = portalShortcut(ctx, desk.Desktop, log)
	}
	err = desktop.Run(ctx, desktop.Options{
		ConfigPath: cfgPath, Example: b.ConfigExample, EngineRoot: env.engineRoot, CUBLASPin: env.cublasPin, StateDir: env.stateDir,
		Docs: desktop.Docs{Guide: installedDoc("gpu-setup.md", ""), ConfigHelp: installedDoc("configuration.md", "#your-words"),
			ModelHelp: installedDoc("installing-at-work.md", ""), Log: logPath},
		Version: b.Version, LogLevel: level, Verbose: *verbose, Exe: exe, Remote: remoteEngine(log), SpeechDetector: speech,
		Session: desktop.Session{Grabber: grabber, ControlSocket: controlSocket, Shortcut: shortcut, FollowLock: lock, Note: desk.Summary},
	}, log)
	if err != nil {
		log.Error("WhisperKey stopped", "err", err)
	}
	return err
}

// installedDoc is docs/NAME as installed beside the exe (or in the source
// tree), else the online copy at anchor. A local file opens without the
// anchor: editors and viewers ignore one.
func installedDoc(name, anchor string) string {
	if exe, err := os.Executable(); err == nil {
		for _, p := range []string{
			filepath.Join(filepath.Dir(exe), "docs", name),
			filepath.Join(filepath.Dir(exe), "..", "docs", name),
		} {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return "https://github.com/whisperkey/whisperkey/blob/main/docs/" + name + anchor
}

// remoteEngine is desktop's RemoteEngine: with remote.url set, dictation goes
// to that server first and falls back to the local engine, telling the user
// once per outage through notify (desktop's notifications).
func remoteEngine(log *slog.Logger) desktop.RemoteEngine {
	return func(cfg config.Config, local dictation.Engine, notify func(msg string)) (dictation.Engine, error) {
		if cfg.Remote.URL == "" {
			return local, nil
		}
		c, err := remote.New(remote.Config{URL: cfg.Remote.URL, APIKey: cfg.Remote.APIKey, Model: cfg.Remote.Model}, log)
		if err != nil {
			return nil, err
		}
		return remote.NewFallback(c, local, notify, log), nil
	}
}

// keyboardReader reads the keyboards directly (evdev) where the session's
// routes say so: Wayland, keyboards readable, no portal. It returns nil, and
// logs why, when it cannot; the X grab or the compositor's binding is then
// the hotkey.
func keyboardReader(desk session.Report, log *slog.Logger) *evdev.Grabber {
	if !desk.Uses(session.RouteEvdev) {
		return nil
	}
	kb, err := evdev.New(log)
	if err != nil {
		log.Warn("cannot read the keyboards; the hotkeys of config.yaml fall back to the X grab (XWayland windows) or `whisperkey ptt`", "err", err)
		return nil
	}
	log.Info("hotkeys from the keyboards read directly (evdev)", "keyboards", len(kb.Keyboards()))
	return kb
}

// followLock shuts kb's keys while this user's session is locked or another
// user's is in front (logind): the keyboards are the seat's, so kb hears
// the lock screen and the other session too. At the lock the desktop first
// throws away a running recording, then kb lets go of its keys. When nothing
// can tell, it logs why once and the keys count everywhere.
func followLock(kb *evdev.Grabber, log *slog.Logger) desktop.LockRoute {
	return func(changed func(open bool)) io.Closer {
		w, err := power.WatchSession(log, func(open bool) {
			if !open {
				changed(false)
			}
			kb.SetOpen(open)
			if open {
				changed(true)
			}
		})
		if err != nil {
			log.Info("cannot tell when the screen is locked or another user's session is in front: "+
				"the keyboards' hotkeys count there too", "err", err)
			return io.NopCloser(nil) // nothing to stop
		}
		return w
	}
}

// compositorKeys stands in for the X grab in a Wayland session without
// XWayland, where no program may grab a key: the compositor's own binding
// drives the record hotkey through `whisperkey ptt` (hotkey.Listener.Command),
// so nothing is registered with the OS and the combinations never fire.
type compositorKeys struct{}

func (compositorKeys) Grab(hotkey.Combo) (hotkey.Grab, error) { return compositorGrab{}, nil }

type compositorGrab struct{}

func (compositorGrab) Edges() <-chan hotkey.Edge { return nil }
func (compositorGrab) Release() error            { return nil }
