package desktop

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// Each running part takes new settings in place, as syncthing's config
// Committers do; these are the few methods reconfiguration needs of them.
type (
	appSettings    interface{ Reconfigure(app.Config) }
	hotkeySettings interface{ Reconfigure(hotkey.Config) error }
	micSettings    interface{ Reconfigure(audio.Config) error }
	pasteSettings  interface{ SetMode(choice.PasteMode) error }
)

// parts are the reconfigurable parts.
type parts struct {
	app      appSettings
	hotkeys  hotkeySettings
	mic      micSettings
	paste    pasteSettings
	settings func(config.Config) // logging level, decoding and engine choice: cheap, always applied
}

// reconfigure hands each part its own settings from to when they differ from
// its settings in from, as syncthing's Committers compare their own section:
// what belongs to a part is said once, in appConfig, audioConfig,
// hotkeyConfig and the paste mode. Each part checks what it is handed before
// it takes it, and a refusal leaves it as it was; a hotkey that cannot be
// registered goes back to the old combinations, so the user keeps a working
// hotkey. The errors are for the user, one per part that refused.
func reconfigure(from, to config.Config, p parts) error {
	var errs []error
	p.settings(to)
	if a := appConfig(to); a != appConfig(from) {
		p.app.Reconfigure(a)
	}
	if from.Paste != to.Paste {
		if err := p.paste.SetMode(to.Paste); err != nil {
			errs = append(errs, fmt.Errorf("paste: %w", err))
		}
	}
	if a := audioConfig(to); !reflect.DeepEqual(a, audioConfig(from)) { // audio.Config holds a slice
		if err := p.mic.Reconfigure(a); err != nil {
			errs = append(errs, fmt.Errorf("microphone: %w", err))
		}
	}
	if h := hotkeyConfig(to); h != hotkeyConfig(from) {
		if err := p.hotkeys.Reconfigure(h); err != nil {
			errs = append(errs, fmt.Errorf("hotkeys: %w; keeping %s", err, from.Hotkeys.Record))
			if err := p.hotkeys.Reconfigure(hotkeyConfig(from)); err != nil {
				errs = append(errs, fmt.Errorf("hotkeys: going back to %s: %w", from.Hotkeys.Record, err))
			}
		}
	}
	return errors.Join(errs...)
}

// onConfigChange applies a new config: the parts reconfigure themselves, and
// the engine loads another model or device when those changed.
func (d *desk) onConfigChange(ctx context.Context, ch config.Change) {
	d.fb.NoteConfig(ch.Err, ch.Warnings, d.store.Path())
	if ch.Err != nil { // the last good config stays; the tray says why
		d.refreshMenu()
		d.showReady("")
		return
	}
	cfg := ch.New
	err := reconfigure(ch.Old, cfg, parts{app: d.app, hotkeys: d.listener, mic: d.recorder, paste: d.paster,
		settings: func(c config.Config) {
			d.setLogLevel(c)
			d.dictation.Configure(c, d.opt.Remote, d.fb.RemoteNotice, d.log)
			d.media.SetMode(c.Audio.Media)
		}})
	d.fb.Reconfigure(ch.Old, cfg)
	d.ld.CheckVocabulary()
	d.ld.ApplyUnload(cfg)
	if ch.NeedsEngineRestart {
		d.ld.Load(cfg, true) // onLoaded says how it went
	} else if ch.Old.Decode.Early != cfg.Decode.Early {
		d.ld.ApplyEarly()
	}
	d.refreshMenu()
	d.showReady("")
	if err != nil && d.ld.Err() == nil {
		d.status(tray.StateError, err.Error()) // after the ready line, so it stays visible
	}
}

// appConfig, audioConfig and hotkeyConfig are each part's settings in cfg.
func appConfig(cfg config.Config) app.Config {
	return app.Config{MinDuration: cfg.Audio.MinDuration, Sounds: cfg.Sounds, KeepCancelled: cfg.Feedback.KeepAudioDays > 0}
}

func audioConfig(cfg config.Config) audio.Config {
	c := audio.Config{Device: cfg.Audio.InputDevice, MaxDuration: cfg.Audio.MaxDuration}
	if cfg.Audio.PreRoll {
		c.PreRoll = cfg.Audio.PreRollLength
	}
	return c
}

func hotkeyConfig(cfg config.Config) hotkey.Config {
	return hotkey.Config{Record: cfg.Hotkeys.Record, AutoSend: cfg.Hotkeys.AutoSend,
		Cancel: cfg.Hotkeys.Cancel, Mode: cfg.Hotkeys.Mode, PasteAgain: cfg.Hotkeys.PasteAgain, Undo: cfg.Hotkeys.Undo,
		Edit: cfg.Hotkeys.Edit, Translate: cfg.Hotkeys.Translate, Language: cfg.Hotkeys.Language}
}
