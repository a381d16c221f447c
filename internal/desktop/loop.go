package desktop

import (
	"context"
	"errors"
	"fmt"
	"github.com/whisperkey/whisperkey/internal/feedback"
	"github.com/whisperkey/whisperkey/internal/loader"
	"runtime"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// sources are the channels the run loop serves. A nil channel is never
// ready, so a source that closes is set to nil rather than read again.
type sources struct {
	app     <-chan app.Event
	actions <-chan tray.Action
	changes <-chan config.Change
	pulled  <-chan loader.Pulled
	loaded  <-chan loader.Loaded
	// waits says a dictation waits for the model being loaded.
	waits   <-chan struct{}
	audio   <-chan audio.Event
	hotkeys <-chan hotkey.Event
	// resumed says the computer woke from sleep (power.Watcher).
	resumed <-chan struct{}
	// live brings the hold's words so far (ahead.go).
	live <-chan string
	// shortcut says how binding the desktop's shortcut went (shortcut.go).
	shortcut <-chan shortcutNews
	again    <-chan feedback.Again // a Recent take transcribed again
	// input is where hotkey presses go to the app.
	input chan<- app.Input
}

// serve is the run loop: it handles one event at a time until ctx ends or
// the app stops. Everything that changes the desk happens here.
func (d *desk) serve(ctx context.Context, src sources) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-src.app:
			if !ok {
				return nil
			}
			d.onAppEvent(e)
		case act, ok := <-src.actions:
			if !ok {
				// The tray could not start or went away: the hotkeys still
				// work, and a closed channel must not be read in a loop.
				d.log.Info("tray menu closed; dictation continues with the hotkeys")
				src.actions = nil
				continue
			}
			if act.Kind == tray.Quit {
				return nil // Run stops the parts
			}
			if act.Kind == tray.PasteAgain {
				// Through the app, so it waits for the dictations before it.
				select {
				case src.input <- app.Input{Trigger: app.TriggerPasteAgain, At: time.Now()}:
				case <-ctx.Done():
					return nil
				}
				continue
			}
			d.onAction(ctx, act)
		case ch, ok := <-src.changes:
			if !ok {
				return nil
			}
			d.onConfigChange(ctx, ch)
		case r := <-src.pulled:
			d.onPulled(ctx, r)
		case r := <-src.loaded:
			d.onLoaded(ctx, r)
		case <-src.waits:
			d.showWaiting()
		case e, ok := <-src.audio:
			if !ok {
				src.audio = nil
				continue
			}
			d.status(feedback.MicStatus(e))
			d.fb.MicEvent(e, d.current())
		case e, ok := <-src.hotkeys:
			if !ok {
				src.hotkeys = nil
				continue
			}
			switch e.Kind {
			case hotkey.Problem:
				d.hotkeyProblem(e.Err)
				continue
			case hotkey.Renewed: // Windows: the hook heard of an unlock or a resume
				d.onResume(ctx, e.Reason, false)
				continue
			case hotkey.Pressed:
				if e.Hotkey == hotkey.Language { // hotkeys.language: as the Language menu would
					d.onAction(ctx, tray.Action{Kind: tray.SelectLanguage, Value: feedback.NextLanguage(d.current())})
					continue
				}
			}
			select {
			case src.input <- appInput(e):
			case <-ctx.Done():
				return nil
			}
		case <-src.resumed:
			d.onResume(ctx, "resumed from sleep", true)
		case text := <-src.live:
			d.showLive(text)
		case n := <-src.shortcut:
			d.onShortcut(n)
		case r := <-src.again:
			d.status(d.fb.OnAgain(ctx, r, d.paster))
			d.refreshMenu()
		}
	}
}

// hotkeyProblem shows why a hotkey cannot be used in the tray every time, and
// as a notification once per distinct problem: re-registering after a resume
// or a layout change meets the same conflict again, and the user was told.
func (d *desk) hotkeyProblem(err error) {
	d.status(tray.StateError, err.Error())
	d.fb.HotkeyProblem(err)
}

// onResume re-checks what sleep or a lock may have broken: the hotkey grabs
// (unless the grabber has just renewed them itself), the microphone's stream
// and the engine worker. It runs beside the loop, so a check that waits (the
// engine's probe) holds up no event; Run waits for it.
func (d *desk) onResume(ctx context.Context, reason string, hotkeys bool) {
	d.log.Info("session back; checking the hotkeys, the microphone and the engine", "reason", reason)
	d.checks.Add(1)
	go func() {
		defer d.checks.Done()
		var errs []error
		if hotkeys && d.listener != nil {
			errs = append(errs, d.listener.Reregister()) // problems also arrive as hotkey events
		}
		if d.recorder != nil {
			d.recorder.Recheck()
		}
		if d.ld != nil {
			errs = append(errs, d.ld.Service().Recheck(ctx))
		}
		if err := errors.Join(errs...); err != nil {
			d.log.Warn("resume checks found problems", "err", err)
			return
		}
		d.log.Info("resume checks done")
	}()
}

// appInput translates a hotkey press for the app.
func appInput(e hotkey.Event) app.Input {
	in := app.Input{At: time.Now(), Send: e.Hotkey == hotkey.AutoSend, Edit: e.Hotkey == hotkey.Edit, Translate: e.Hotkey == hotkey.Translate}
	switch e.Kind {
	case hotkey.Pressed:
		in.Trigger = app.TriggerPasteAgain
		if e.Hotkey == hotkey.Undo {
			in.Trigger = app.TriggerUndo
		}
	case hotkey.Stop:
		in.Trigger = app.TriggerStop
	case hotkey.Cancel:
		in.Trigger = app.TriggerCancel
	case hotkey.Passed:
		in.Trigger = app.TriggerPassed
	default:
		in.Trigger = app.TriggerStart
	}
	return in
}

func (d *desk) onAppEvent(e app.Event) {
	d.media.Recording(e.State == app.Recording)
	d.ld.Use(e.State == app.Recording || e.State == app.Transcribing || e.State == app.Output, d.current())
	if e.Action != app.Dictate && (e.State == app.Idle || e.State == app.Error) {
		d.onCommandEvent(e)
		return
	}
	if e.Text != "" && e.State == app.Idle {
		tm := e.Timings
		d.log.Info("dictated", "chars", len(e.Text), "audio_ms", tm.Audio.Milliseconds(),
			"release_to_paste_ms", tm.ReleaseToPaste.Milliseconds(), "capture_stop_ms", tm.CaptureStop.Milliseconds(),
			"features_ms", tm.Features.Milliseconds(), "engine_ms", tm.Engine.Milliseconds(), "paste_ms", tm.Paste.Milliseconds(),
			"profile", e.Profile, "cleanup", e.Cleanup, "cleanup_ms", tm.Cleanup.Milliseconds(),
			"early", tm.Early, "wasted_ms", tm.Wasted.Milliseconds(), "reused_windows", tm.Reused, "forced_tokens", tm.Forced,
			"goroutines", runtime.NumGoroutine()) // a leak shows over a long day (make soak)
		d.fb.RememberDictation(e, loader.ModelName(d.ld.Name()))
		d.refreshMenu()
	}
	if d.fb.RememberCancelled(e) { // with history.keep_audio_days, to be retried
		d.refreshMenu()
	}
	d.fb.CleanupNotice(e)
	if e.State == app.Transcribing && d.ld.Waiting() {
		d.showWaiting() // still waiting: "Transcribing…" would hide why
		return
	}
	d.fb.ShowEvent(e)
	if e.State == app.Error && errors.Is(e.Err, output.ErrNotRead) {
		d.fb.Remember(e.Text) // it waits on the clipboard; keep it in Recent too
		d.refreshMenu()
		d.fb.Tell(notify.TextNotPasted())
	}
	if e.Outcome == app.Delivered || (e.State == app.Idle && e.Message == "") { // "": ended without a word
		d.showReady("")
		return
	}
	d.status(feedback.TrayState(e.State), e.Message)
}

func (d *desk) onAction(ctx context.Context, a tray.Action) {
	set := func(key string, v any) {
		if err := d.store.Set(key, v); err != nil {
			d.status(tray.StateError, err.Error())
		}
	}
	switch a.Kind {
	case tray.SelectModel:
		if a.Value == choice.ModelAuto {
			set(config.KeyModel, choice.ModelAuto) // the load says what auto chose
			return
		}
		if _, ok := d.ld.Models().Resolve(a.Value); !ok {
			d.ld.Pull(ctx, a.Value)
			d.refreshMenu()
			return
		}
		if a.Value == d.ld.Name() && d.ld.Err() != nil {
			d.ld.Load(d.store.Current(), false) // the config already names it
			return
		}
		set(config.KeyModel, a.Value)
	case tray.SelectDevice:
		if a.Value == loader.FetchID {
			if msg := d.ld.FetchCUBLAS(ctx); msg != "" {
				d.status(tray.StateError, msg)
			}
			d.refreshMenu()
			return
		}
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
		d.open(d.opt.Docs.Guide)
	case tray.OpenConfigHelp, tray.ShowCommands:
		d.open(d.opt.Docs.ConfigHelp)
	case tray.OpenLog:
		d.open(d.opt.Docs.Log)
	case tray.CopyRecent:
		d.status(d.fb.RecentAction(ctx, a.Value, d.paster, d.dictation, loader.ModelName(d.ld.Name())))
	case tray.ToggleStartAtLogin:
		d.setStartAtLogin(a.Value)
	case tray.SelectProfile:
		d.onProfileAction(a.Value)
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

// current is the config in use; the defaults when there is no store yet.
func (d *desk) current() config.Config {
	if d.store == nil {
		return config.Defaults()
	}
	return d.store.Current()
}
