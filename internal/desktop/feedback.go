package desktop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/autostart"
	"github.com/whisperkey/whisperkey/internal/backend"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/gpu"
	"github.com/whisperkey/whisperkey/internal/history"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// levelEvery is how often the indicator's level bar is fed while recording:
// about 30 frames a second, smooth enough to read as live.
const levelEvery = 33 * time.Millisecond

// notPasted is the indicator's line when the target never read the text.
const notPasted = "Not pasted — press Ctrl+V"

// feedback holds what shows the user the app's work: the indicator, the
// notifications, the recent dictations and the start-at-login entry. Each
// may be nil (turned off, or unavailable here). Only the run loop uses it.
type feedback struct {
	ind Indicator
	// note is also read by the dictation goroutine (a remote engine's
	// fallback message), hence noteMu.
	noteMu  sync.Mutex
	note    Notifier
	recent  History
	login   StartAtLogin
	level   func() float32 // the microphone's input level (Recorder.Level)
	feeding *levelFeed     // the level ticker while recording, else nil
}

// levelFeed is the goroutine that feeds the indicator the input level.
type levelFeed struct {
	stop chan struct{}
	done chan struct{}
}

// startFeedback builds the feedback parts for cfg; a part that cannot start is
// logged and left out, never stopping the app.
func (d *desk) startFeedback(cfg config.Config) {
	if d.recorder != nil {
		d.feedback.level = d.recorder.Level
	}
	d.setIndicator(cfg)
	d.setNotifier(cfg)
	d.setHistory(cfg)
	if d.opt.Exe != "" {
		if a, err := autostart.New(d.opt.Exe); err != nil {
			d.log.Warn("start at login is not available", "err", err)
		} else {
			d.feedback.login = a
		}
	}
}

// closeFeedback stops the level ticker and closes the indicator and notifier.
func (d *desk) closeFeedback() {
	d.stopLevel()
	if d.feedback.ind != nil {
		_ = d.feedback.ind.Close()
		d.feedback.ind = nil
	}
	d.swapNotifier(nil)
}

// swapNotifier installs n (nil for none) and closes the one it replaces.
func (d *desk) swapNotifier(n Notifier) {
	d.feedback.noteMu.Lock()
	old := d.feedback.note
	d.feedback.note = n
	d.feedback.noteMu.Unlock()
	if old != nil {
		_ = old.Close()
	}
}

// reconfigureFeedback rebuilds the parts whose keys changed.
func (d *desk) reconfigureFeedback(from, to config.Config) {
	if from.Feedback.Indicator != to.Feedback.Indicator {
		d.stopLevel()
		if d.feedback.ind != nil {
			_ = d.feedback.ind.Close()
			d.feedback.ind = nil
		}
		d.setIndicator(to)
	}
	if from.Feedback.Notifications != to.Feedback.Notifications {
		d.swapNotifier(nil)
		d.setNotifier(to)
	}
	if from.Feedback.KeepOnDisk != to.Feedback.KeepOnDisk {
		d.setHistory(to)
	}
}

func (d *desk) setIndicator(cfg config.Config) {
	ind, err := indicator.New(indicator.Config{Placement: cfg.Feedback.Indicator}, d.log)
	switch {
	case errors.Is(err, indicator.ErrOff):
	case err != nil:
		d.log.Warn("no recording indicator; the tray icon still shows the state", "err", err)
	default:
		d.feedback.ind = ind
	}
}

func (d *desk) setNotifier(cfg config.Config) {
	if !cfg.Feedback.Notifications {
		return
	}
	n, err := notify.New(notify.Config{}, d.log)
	if err != nil {
		d.log.Warn("no desktop notifications", "err", err)
		return
	}
	d.swapNotifier(n)
}

// setHistory makes the recent dictations live in memory, or in the state
// directory's file with keep_on_disk; the entries so far carry over, and
// turning keep_on_disk off deletes the file.
func (d *desk) setHistory(cfg config.Config) {
	var kept []history.Entry
	if d.feedback.recent != nil {
		kept = d.feedback.recent.Entries()
	}
	hc := history.Config{}
	if d.opt.StateDir != "" {
		path := history.Path(d.opt.StateDir)
		if cfg.Feedback.KeepOnDisk {
			hc.File = path
		} else if err := history.Forget(path); err != nil {
			d.log.Warn("could not delete the kept dictations", "err", err)
		}
	}
	h, err := history.New(hc, d.log)
	if err != nil {
		d.log.Warn("kept dictations not read; starting an empty list", "err", err)
		if h, err = history.New(history.Config{}, d.log); err != nil {
			return
		}
	}
	for i := len(kept) - 1; i >= 0; i-- { // oldest first, so the newest stays on top
		if _, err := h.AddEntry(kept[i]); err != nil { // with its text as heard, profile and cleanup
			d.log.Warn("could not keep a dictation on disk", "err", err)
		}
	}
	d.feedback.recent = h
}

// tell shows m as a notification, when they are on.
func (d *desk) tell(m notify.Message) {
	d.feedback.noteMu.Lock()
	n := d.feedback.note
	d.feedback.noteMu.Unlock()
	if n != nil {
		n.Notify(m)
	}
}

// remoteNotice is the remote engine's fallback message, as a notification.
func (d *desk) remoteNotice(msg string) {
	d.tell(notify.RemoteFallback(msg))
}

// showOnIndicator shows a dictation's state on the indicator.
func (d *desk) showOnIndicator(e app.Event) {
	if e.State != app.Recording {
		d.stopLevel()
	}
	ind := d.feedback.ind
	if ind == nil {
		return
	}
	switch e.State {
	case app.Recording:
		ind.Show(indicator.Recording, e.Profile)
		d.startLevel()
	case app.Transcribing, app.Output:
		ind.Show(indicator.Transcribing, "")
	case app.Error:
		if errors.Is(e.Err, output.ErrNotRead) {
			ind.Show(indicator.Error, notPasted)
			return
		}
		ind.Show(indicator.Error, shortError(e.Message))
	default:
		if e.Outcome == app.NothingHeard {
			ind.Show(indicator.NothingHeard, "")
			return
		}
		ind.Hide()
	}
}

// shortError is the first clause of msg, short enough for the indicator.
func shortError(msg string) string {
	if i := strings.IndexAny(msg, ":;"); i > 0 {
		msg = msg[:i]
	}
	return history.Label(msg, 32)
}

// startLevel starts feeding the recorder's level to the indicator.
func (d *desk) startLevel() {
	d.stopLevel()
	if d.feedback.ind == nil || d.feedback.level == nil {
		return
	}
	f := &levelFeed{stop: make(chan struct{}), done: make(chan struct{})}
	ind, level := d.feedback.ind, d.feedback.level
	go func() {
		defer close(f.done)
		t := time.NewTicker(levelEvery)
		defer t.Stop()
		for {
			select {
			case <-f.stop:
				return
			case <-t.C:
				ind.SetLevel(level())
			}
		}
	}()
	d.feedback.feeding = f
}

// stopLevel stops the level ticker, if it runs, and waits for it.
func (d *desk) stopLevel() {
	if f := d.feedback.feeding; f != nil {
		close(f.stop)
		<-f.done
		d.feedback.feeding = nil
	}
}

// remember keeps a pasted (or waiting) text for the Recent menu; the
// caller refreshes the menu.
func (d *desk) remember(text string) {
	if d.feedback.recent == nil || text == "" {
		return
	}
	if _, err := d.feedback.recent.Add(text, time.Now()); err != nil {
		d.log.Warn("could not keep the dictation on disk", "err", err)
	}
}

// recentItems are the Recent submenu's items, newest first.
func (d *desk) recentItems() []tray.Item {
	if d.feedback.recent == nil {
		return nil
	}
	var items []tray.Item
	for _, e := range d.feedback.recent.Entries() {
		items = append(items, tray.Item{ID: e.ID, Label: e.Label()})
		if e.Raw != "" { // the text as heard, under its AI-cleaned version
			items = append(items, tray.Item{ID: e.ID + history.RawSuffix, Label: history.Label("   as heard: "+e.Raw, history.LabelLength)})
		}
	}
	return items
}

// recentLanguages are the languages of the Recent dictations, newest first, once each.
func (d *desk) recentLanguages() []string {
	if d.feedback.recent == nil {
		return nil
	}
	var codes []string
	for _, e := range d.feedback.recent.Entries() {
		if e.Language != "" && !slices.Contains(codes, e.Language) {
			codes = append(codes, e.Language)
		}
	}
	return codes
}

// loginToggle is the "Start at login" checkbox as the system has it now.
func (d *desk) loginToggle() tray.Toggle {
	if d.feedback.login == nil {
		return tray.Toggle{}
	}
	on, err := d.feedback.login.Enabled()
	if err != nil {
		d.log.Warn("cannot tell whether WhisperKey starts at login", "err", err)
	}
	return tray.Toggle{Available: true, On: on}
}

// copyRecent puts a Recent dictation on the clipboard.
func (d *desk) copyRecent(ctx context.Context, id string) {
	if d.feedback.recent == nil {
		return
	}
	e, ok := d.feedback.recent.Get(id)
	if !ok {
		d.status(tray.StateError, "That dictation is no longer in the Recent list")
		return
	}
	if err := d.paster.Copy(ctx, e.Text); err != nil {
		d.status(tray.StateError, "Could not copy the dictation: "+err.Error())
		return
	}
	d.status(tray.StateIdle, "Copied to the clipboard — ready")
}

// setStartAtLogin turns the start-at-login entry on or off.
func (d *desk) setStartAtLogin(value string) {
	if d.feedback.login == nil {
		return
	}
	on := value == "on"
	if err := d.feedback.login.Set(on); err != nil {
		d.status(tray.StateError, fmt.Sprintf("Start at login: %v", err))
	} else if on {
		d.status(tray.StateIdle, "WhisperKey will start at login ("+d.feedback.login.Where()+") — ready")
	} else {
		d.status(tray.StateIdle, "WhisperKey will not start at login — ready")
	}
	d.refreshMenu()
}

// onMicEvent tells the user about the microphone beyond the tray.
func (d *desk) onMicEvent(e audio.Event) {
	switch e.Kind {
	case audio.EventDeviceLost:
		d.tell(notify.MicrophoneLost(e.Device))
	case audio.EventDeviceRestored:
		d.tell(notify.MicrophoneBack(e.Device))
	case audio.EventDeviceChanged:
		why := "it is the system's default input now"
		if d.store != nil && d.store.Current().Audio.InputDevice != "" && e.Was != "" {
			why = fmt.Sprintf("%q is gone, and the default input stands in until it returns", e.Was)
		}
		d.tell(notify.MicrophoneChanged(e.Device, why))
	case audio.EventLimit:
		limit := config.Defaults().Audio.MaxDuration
		if d.store != nil {
			limit = d.store.Current().Audio.MaxDuration
		}
		d.tell(notify.RecordingCut(limit))
	}
}

// checkGPUUsed tells the user when a GPU was found but the engine runs on
// the CPU although the config did not ask for it.
func (d *desk) checkGPUUsed(cfg config.Config) {
	if reason, ok := gpuNotUsed(d.svc.Current(), cfg); ok {
		d.tell(notify.GPUNotUsed(reason, d.opt.GuidePath))
	}
}

// checkVocabulary tells the user, once per distinct list, which vocabulary
// terms (the config's or a profile's) the loaded model has no room for.
func (d *desk) checkVocabulary() {
	l := d.svc.Current()
	if l == nil {
		return
	}
	cfg := d.dictation.cur.Load().cfg
	var msgs []string
	add := func(where string, c config.Config) {
		if msg := dictation.VocabularyLeftOut(l.FitVocabulary(dictation.DecodeOptions(c))); msg != "" {
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
	if msg == d.vocabTold {
		return
	}
	d.vocabTold = msg
	if msg != "" {
		d.log.Warn(msg)
		d.tell(notify.VocabularyTooLong(msg))
	}
}

// gpuNotUsed says why l runs on the CPU when an NVIDIA or AMD GPU was found
// and cfg did not ask for the CPU; ok is false otherwise.
func gpuNotUsed(l *backend.Loaded, cfg config.Config) (reason string, ok bool) {
	if l == nil || l.Spec.Device != "cpu" || cfg.Engine.Device == choice.DeviceCPU {
		return "", false
	}
	for _, g := range l.Report.GPUs {
		if g.Vendor == gpu.NVIDIA || g.Vendor == gpu.AMD {
			return l.Message, true
		}
	}
	return "", false
}
