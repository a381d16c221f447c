package feedback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whisperkey/whisperkey/assets"
	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/autostart"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/history"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/paths"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// levelEvery is how often the indicator's level bar is fed while recording:
// about 30 frames a second, smooth enough to read as live.
const levelEvery = 33 * time.Millisecond

// NotPasted is the indicator's line when the target never read the text.
const NotPasted = "Not pasted — press Ctrl+V"

// Indicator is what feedback needs of the on-screen indicator
// (indicator.Indicator).
type Indicator interface {
	Show(s indicator.State, text string)
	SetLevel(level float32)
	// Live shows the hold's words so far while recording; the indicator
	// fits them to its space at its own font.
	Live(text string)
	// SetMic says whether the microphone is open (indicator.MicMark).
	SetMic(open bool)
	Hide()
	Close() error
}

// Microphone is what feedback reads of the recorder (audio.Recorder).
type Microphone interface {
	Level() float32 // the input level while recording
	// HeldOpen: the microphone stays open between dictations (audio.pre_roll).
	HeldOpen() bool
}

// Notifier is what feedback needs of desktop notifications (notify.Notifier).
// Notify must not block long.
type Notifier interface {
	Notify(m notify.Message) bool
	Close() error
}

// History is what feedback needs of the recent dictations (history.History).
type History interface {
	Add(text string, at time.Time) (history.Entry, error)
	AddEntry(e history.Entry) (history.Entry, error)
	Entries() []history.Entry
	Get(id string) (history.Entry, bool)
	MarkUndone(id string) error
	SetText(id string, a history.Again) (history.Entry, bool, error)
}

// StartAtLogin is what the tray's "Start at login" toggle needs
// (autostart.Autostart).
type StartAtLogin interface {
	Enabled() (bool, error)
	Set(on bool) error
	Where() string
}

// Feedback holds the parts that show the user the app's work. Each may be
// nil (turned off, or unavailable here). Only the desktop's run loop calls
// it, except Tell and Play, which the dictation's goroutines call too.
type Feedback struct {
	log      *slog.Logger
	stateDir string // where keep_on_disk keeps Recent; "" keeps it in memory

	Ind Indicator
	// note is also read by the dictation goroutine (a remote engine's
	// fallback message), hence noteMu.
	noteMu  sync.Mutex
	note    Notifier
	Recent  History
	Login   StartAtLogin
	Level   func() float32 // the microphone's input level (Recorder.Level)
	micOpen func() bool    // the microphone stays open between dictations (Recorder.HeldOpen); nil: no
	feeding *ticking       // the level ticker while recording, else nil
	sounds  *audio.Player  // nil when there is no sound output
	// lastEntry is the Recent entry of the last text pasted, which an undo
	// marks; "" when the last paste was a paste again.
	lastEntry string
	// cfg is the config file's problems, shown until it is fixed; cfgTold
	// the problems last notified, so one broken file is told once.
	cfg        ConfigNotice
	cfgTold    string
	hotkeyTold map[string]bool // hotkey problems already notified
	// takes keeps each take's recording for Recent (paths.TakesDir; nil
	// without a state folder) while keepDays (history.keep_audio_days) is
	// above 0; pruning deletes the old ones daily.
	takes    *Takes
	keepDays atomic.Int64
	pruning  *ticking
	redo     redos // takes being transcribed again (again.go)
}

// New is feedback with nothing started; stateDir is where keep_on_disk
// keeps Recent.
func New(stateDir string, log *slog.Logger) *Feedback {
	f := &Feedback{log: log, stateDir: stateDir, redo: redos{running: map[string]context.CancelFunc{}, done: make(chan Again)}}
	if stateDir != "" {
		f.takes = NewTakes(paths.TakesDir(stateDir), log)
	}
	return f
}

// Start builds the parts for cfg: mic is the microphone the indicator
// shows the level and the open stream of (nil: none), exe the executable the start-at-login entry starts ("" hides
// the toggle). A part that cannot start is logged and left out, never
// stopping the app.
func (f *Feedback) Start(cfg config.Config, mic Microphone, exe string) {
	if mic != nil {
		f.Level, f.micOpen = mic.Level, mic.HeldOpen
	}
	f.setIndicator(cfg)
	f.setNotifier(cfg)
	f.SetHistory(cfg)
	f.keepDays.Store(int64(cfg.Feedback.KeepAudioDays))
	f.startPruning()
	if exe != "" {
		if a, err := autostart.New(exe); err != nil {
			f.log.Warn("start at login is not available", "err", err)
		} else {
			f.Login = a
		}
	}
	if pl, err := audio.NewPlayer(nil, f.log); err == nil {
		f.sounds = pl
	} else {
		f.log.Warn("no sound output; cues are off", "err", err)
	}
}

// Close stops the level ticker, the pruning of old takes and the
// transcriptions again, and closes the indicator, the notifier and the sound
// output.
func (f *Feedback) Close() {
	f.stopLevel()
	f.stopPruning()
	f.stopRedos()
	if f.Ind != nil {
		_ = f.Ind.Close()
		f.Ind = nil
	}
	f.SetNotifier(nil)
	if f.sounds != nil {
		_ = f.sounds.Close()
		f.sounds = nil
	}
}

// Play is the app's Sounds; the app decides whether cues are on.
func (f *Feedback) Play(name string) {
	if f.sounds != nil {
		f.sounds.Play(assets.Sound(name))
	}
}

// SetNotifier installs n (nil for none) and closes the one it replaces.
func (f *Feedback) SetNotifier(n Notifier) {
	f.noteMu.Lock()
	old := f.note
	f.note = n
	f.noteMu.Unlock()
	if old != nil {
		_ = old.Close()
	}
}

// Notifier is the notifier in use; nil when notifications are off.
func (f *Feedback) Notifier() Notifier {
	f.noteMu.Lock()
	defer f.noteMu.Unlock()
	return f.note
}

// Reconfigure rebuilds the parts whose keys changed.
func (f *Feedback) Reconfigure(from, to config.Config) {
	if from.Feedback.Indicator != to.Feedback.Indicator {
		f.stopLevel()
		if f.Ind != nil {
			_ = f.Ind.Close()
			f.Ind = nil
		}
		f.setIndicator(to)
	}
	if from.Feedback.Notifications != to.Feedback.Notifications {
		f.SetNotifier(nil)
		f.setNotifier(to)
	}
	if from.Feedback.KeepOnDisk != to.Feedback.KeepOnDisk {
		f.SetHistory(to)
	}
	if from.Feedback.KeepAudioDays != to.Feedback.KeepAudioDays {
		f.setKeepDays(to.Feedback.KeepAudioDays)
	}
}

func (f *Feedback) setIndicator(cfg config.Config) {
	ind, err := indicator.New(indicator.Config{Placement: cfg.Feedback.Indicator}, f.log)
	switch {
	case errors.Is(err, indicator.ErrOff):
	case err != nil:
		f.log.Warn("no recording indicator; the tray icon still shows the state", "err", err)
	default:
		f.Ind = ind
	}
}

func (f *Feedback) setNotifier(cfg config.Config) {
	if !cfg.Feedback.Notifications {
		return
	}
	n, err := notify.New(notify.Config{}, f.log)
	if err != nil {
		f.log.Warn("no desktop notifications", "err", err)
		return
	}
	f.SetNotifier(n)
}

// SetHistory makes the recent dictations live in memory, or in the state
// directory's file with keep_on_disk; the entries so far carry over, and
// turning keep_on_disk off deletes the file.
func (f *Feedback) SetHistory(cfg config.Config) {
	var kept []history.Entry
	if f.Recent != nil {
		kept = f.Recent.Entries()
	}
	hc := history.Config{}
	if f.stateDir != "" {
		path := history.Path(f.stateDir)
		if cfg.Feedback.KeepOnDisk {
			hc.File = path
		} else if err := history.Forget(path); err != nil {
			f.log.Warn("could not delete the kept dictations", "err", err)
		}
	}
	h, err := history.New(hc, f.log)
	if err != nil {
		f.log.Warn("kept dictations not read; starting an empty list", "err", err)
		if h, err = history.New(history.Config{}, f.log); err != nil {
			return
		}
	}
	for i := len(kept) - 1; i >= 0; i-- { // oldest first, so the newest stays on top
		if _, err := h.AddEntry(kept[i]); err != nil { // with its text as heard, profile and cleanup
			f.log.Warn("could not keep a dictation on disk", "err", err)
		}
	}
	f.Recent = h
}

// Tell shows m as a notification, when they are on.
func (f *Feedback) Tell(m notify.Message) {
	if n := f.Notifier(); n != nil {
		n.Notify(m)
	}
}

// RemoteNotice is the remote engine's fallback message, as a notification.
func (f *Feedback) RemoteNotice(msg string) { f.Tell(notify.RemoteFallback(msg)) }

// Show puts s and text on the indicator, when there is one.
func (f *Feedback) Show(s indicator.State, text string) {
	if f.Ind != nil {
		f.Ind.Show(s, text)
	}
}

// Live puts the hold's words so far on the indicator.
func (f *Feedback) Live(text string) {
	if f.Ind != nil {
		f.Ind.Live(text)
	}
}

// ShowEvent shows a dictation's state on the indicator.
func (f *Feedback) ShowEvent(e app.Event) {
	if e.State != app.Recording {
		f.stopLevel()
	}
	ind := f.Ind
	if ind == nil {
		return
	}
	// After the release the microphone is closed, unless the pre-roll
	// holds it: the indicator says so, as the privacy indicator does.
	ind.SetMic(e.State != app.Recording && f.micOpen != nil && f.micOpen())
	switch e.State {
	case app.Recording:
		ind.Show(indicator.Recording, recordingLabel(e.Profile, e.Language))
		f.startLevel()
	case app.Transcribing, app.Output:
		ind.Show(indicator.Transcribing, "")
	case app.Error:
		if errors.Is(e.Err, output.ErrNotRead) {
			ind.Show(indicator.Error, NotPasted)
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

// CleanupNotice tells the user, on the indicator and in a notification,
// that a dictation went out as heard because its AI cleanup failed.
func (f *Feedback) CleanupNotice(e app.Event) {
	if e.Notice == "" || e.State != app.Idle {
		return
	}
	f.log.Info("AI cleanup not used", "notice", e.Notice)
	f.Show(indicator.Error, e.Notice)
	f.Tell(notify.CleanupFallback(strings.TrimSuffix(e.Notice, ", pasted as heard")))
}

// shortError is the first clause of msg, short enough for the indicator.
func shortError(msg string) string {
	if i := strings.IndexAny(msg, ":;"); i > 0 {
		msg = msg[:i]
	}
	return history.Label(msg, 32)
}

// startLevel starts feeding the recorder's level to the indicator.
func (f *Feedback) startLevel() {
	f.stopLevel()
	if f.Ind == nil || f.Level == nil {
		return
	}
	ind, level := f.Ind, f.Level
	f.feeding = every(levelEvery, func() { ind.SetLevel(level()) })
}

// stopLevel stops the level ticker, if it runs, and waits for it.
func (f *Feedback) stopLevel() {
	if f.feeding != nil {
		f.feeding.end()
		f.feeding = nil
	}
}

// Ticking reports whether the level ticker runs.
func (f *Feedback) Ticking() bool { return f.feeding != nil }

// Remember keeps a pasted (or waiting) text for the Recent menu; the
// caller refreshes the menu.
func (f *Feedback) Remember(text string) {
	if f.Recent == nil || text == "" {
		return
	}
	if _, err := f.Recent.Add(text, time.Now()); err != nil {
		f.log.Warn("could not keep the dictation on disk", "err", err)
	}
}

// RememberDictation keeps a finished dictation for the Recent menu, with
// its text as heard, profile, cleanup mode and model, as the one an undo
// marks, and its recording with history.keep_audio_days; the caller
// refreshes the menu.
func (f *Feedback) RememberDictation(e app.Event, model string) {
	if f.Recent == nil || e.Text == "" {
		return
	}
	at := time.Now()
	entry, err := f.Recent.AddEntry(history.Entry{Text: e.Text, At: at, Raw: e.Raw,
		Profile: e.Profile, Cleanup: e.Cleanup, Language: e.Language, Model: model, Audio: f.keepTake(e.Audio, at)})
	if err != nil {
		f.log.Warn("could not keep the dictation on disk", "err", err)
	}
	f.lastEntry = entry.ID
}

// MarkUndone marks the last dictation pasted undone in Recent; it reports
// whether there was one.
func (f *Feedback) MarkUndone() bool {
	id := f.lastEntry
	f.lastEntry = ""
	if id == "" || f.Recent == nil {
		return false
	}
	if err := f.Recent.MarkUndone(id); err != nil {
		f.log.Warn("could not mark the dictation undone on disk", "err", err)
	}
	return true
}

// ForgetLast notes that an undo now has no dictation of Recent to take back.
func (f *Feedback) ForgetLast() { f.lastEntry = "" }

// RecentItems are the Recent submenu's items, newest first.
func (f *Feedback) RecentItems() []tray.Item {
	if f.Recent == nil {
		return nil
	}
	var items []tray.Item
	for _, e := range f.Recent.Entries() {
		if e.Cancelled {
			items = append(items, cancelledItem(e))
			continue
		}
		items = append(items, tray.Item{ID: e.ID, Label: e.Label()})
		if e.Raw != "" { // the text as heard, under its AI-cleaned version
			items = append(items, tray.Item{ID: e.ID + history.RawSuffix, Label: history.Label("   as heard: "+e.Raw, history.LabelLength)})
		}
		items = append(items, againItems(e)...)
	}
	return items
}

// RecentLanguages are the languages of the Recent dictations, newest first, once each.
func (f *Feedback) RecentLanguages() []string {
	if f.Recent == nil {
		return nil
	}
	var codes []string
	for _, e := range f.Recent.Entries() {
		if e.Language != "" && !slices.Contains(codes, e.Language) {
			codes = append(codes, e.Language)
		}
	}
	return codes
}

// RecentText is the text of the Recent dictation id.
func (f *Feedback) RecentText(id string) (string, error) {
	if f.Recent == nil {
		return "", errors.New("no Recent list")
	}
	e, ok := f.Recent.Get(id)
	if !ok {
		return "", errors.New("that dictation is no longer in the Recent list")
	}
	return e.Text, nil
}

// LoginToggle is the "Start at login" checkbox as the system has it now.
func (f *Feedback) LoginToggle() tray.Toggle {
	if f.Login == nil {
		return tray.Toggle{}
	}
	on, err := f.Login.Enabled()
	if err != nil {
		f.log.Warn("cannot tell whether WhisperKey starts at login", "err", err)
	}
	return tray.Toggle{Available: true, On: on}
}

// SetStartAtLogin turns the start-at-login entry on or off, and says how it
// went in the tray's words; ok is false when there is no entry to turn.
func (f *Feedback) SetStartAtLogin(on bool) (state tray.State, text string, ok bool) {
	if f.Login == nil {
		return tray.StateIdle, "", false
	}
	if err := f.Login.Set(on); err != nil {
		return tray.StateError, fmt.Sprintf("Start at login: %v", err), true
	}
	if on {
		return tray.StateIdle, "WhisperKey will start at login (" + f.Login.Where() + ") — ready", true
	}
	return tray.StateIdle, "WhisperKey will not start at login — ready", true
}

// MicEvent tells the user about the microphone beyond the tray; cfg is the
// config in use.
func (f *Feedback) MicEvent(e audio.Event, cfg config.Config) {
	switch e.Kind {
	case audio.EventDeviceLost:
		f.Tell(notify.MicrophoneLost(e.Device))
	case audio.EventDeviceRestored:
		f.Tell(notify.MicrophoneBack(e.Device))
	case audio.EventDeviceChanged:
		why := "it is the system's default input now"
		if cfg.Audio.InputDevice != "" && e.Was != "" {
			why = fmt.Sprintf("%q is gone, and the default input stands in until it returns", e.Was)
		}
		f.Tell(notify.MicrophoneChanged(e.Device, why))
	case audio.EventLimit:
		f.Tell(notify.RecordingCut(cfg.Audio.MaxDuration))
	}
}

// MicStatus is the tray state and text for a microphone event.
func MicStatus(e audio.Event) (state tray.State, text string) {
	dev := e.Device
	if dev == "" {
		dev = "the default microphone"
	}
	switch e.Kind {
	case audio.EventDeviceLost:
		if e.Err != nil {
			return tray.StateError, "Microphone unavailable: " + e.Err.Error()
		}
		return tray.StateError, fmt.Sprintf("Microphone %s unavailable; reconnect it or pick another in the Input device menu", dev)
	case audio.EventDeviceRestored:
		return tray.StateIdle, fmt.Sprintf("Microphone %s is back — ready", dev)
	case audio.EventDeviceChanged:
		if e.Was != "" {
			return tray.StateIdle, fmt.Sprintf("Recording from %s (was %s) — ready", dev, e.Was)
		}
		return tray.StateIdle, fmt.Sprintf("Recording from %s — ready", dev)
	case audio.EventLimit:
		return tray.StateRecording, "Maximum recording length reached — release the hotkey to transcribe what was said (audio.max_duration)"
	}
	return tray.StateIdle, e.Kind.String()
}

// MicOpenNote tells, on the ready line, that the microphone stays open
// between dictations (audio.pre_roll), since a privacy indicator says so too.
func MicOpenNote(r *audio.Recorder) string {
	if r != nil && r.HeldOpen() {
		return " · microphone open between dictations (audio.pre_roll)"
	}
	return ""
}

// TrayState is the tray's state for a dictation state.
func TrayState(s app.State) tray.State {
	switch s {
	case app.Recording:
		return tray.StateRecording
	case app.Transcribing, app.Output:
		return tray.StateTranscribing
	case app.Error:
		return tray.StateError
	}
	return tray.StateIdle
}
