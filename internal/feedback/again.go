package feedback

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/history"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// redoSuffix marks the Recent item that transcribes an entry's kept take
// (history.keep_audio_days) again, or retries a cancelled one.
const redoSuffix = ":redo"

// pruneEvery is how often kept takes past history.keep_audio_days are
// deleted, besides at the start and when the setting changes.
const pruneEvery = 24 * time.Hour

// Clipboard is what Recent needs to hand a text over (output.Paster).
type Clipboard interface {
	Copy(ctx context.Context, text string) error
}

// Again is a take transcribed again from Recent, for the run loop (OnAgain).
type Again struct {
	ID    string // the Recent entry
	Model string
	Text  string
	Lang  string
	Err   error
}

// redos are the transcriptions again under way, by entry ID. The run loop
// starts them; Close, on the supervisor's goroutine, ends them.
type redos struct {
	mu      sync.Mutex
	running map[string]context.CancelFunc
	wg      sync.WaitGroup
	done    chan Again
}

// profileRequest asks the dictation pipeline for a profile's settings by
// name, as they are now.
type profileRequest string

func (p profileRequest) Profile() string { return string(p) }

// Agains brings the takes transcribed again (OnAgain).
func (f *Feedback) Agains() <-chan Again { return f.redo.done }

// RecentAction does what a chosen Recent item asks: a text is copied to the
// clipboard; "transcribe again" transcribes the entry's kept take with tr
// (the settings in use now: model, the name of the model loaded, and the
// language chosen), beside the run loop, answered on Agains. It returns the
// tray's state and line.
func (f *Feedback) RecentAction(ctx context.Context, id string, clip Clipboard, tr app.Transcriber, model string) (tray.State, string) {
	if f.Recent == nil {
		return tray.StateError, "There is no Recent list"
	}
	base, redo := strings.CutSuffix(id, redoSuffix)
	e, ok := f.Recent.Get(base)
	if !ok {
		return tray.StateError, "That dictation is no longer in the Recent list"
	}
	if !redo {
		if err := clip.Copy(ctx, e.Text); err != nil {
			return tray.StateError, "Could not copy the dictation: " + err.Error()
		}
		return tray.StateIdle, "Copied to the clipboard — ready"
	}
	if e.Audio == "" || f.takes == nil {
		return tray.StateError, "That take's recording is not kept; set history.keep_audio_days to keep the next ones"
	}
	f.redo.mu.Lock()
	defer f.redo.mu.Unlock()
	if _, busy := f.redo.running[base]; busy {
		return tray.StateTranscribing, "That take is being transcribed again already…"
	}
	ctx, cancel := context.WithCancel(ctx)
	f.redo.running[base] = cancel
	f.redo.wg.Add(1)
	go func(takes *Takes) {
		defer f.redo.wg.Done()
		a := Again{ID: base, Model: model}
		samples, err := takes.Load(e.Audio)
		if err == nil {
			var t app.Transcript
			t, err = tr.Transcribe(ctx, profileRequest(e.Profile), samples)
			a.Text, a.Lang = t.Text, t.Language
		}
		a.Err = err
		select {
		case f.redo.done <- a:
		case <-ctx.Done():
		}
	}(f.takes)
	f.log.Info("transcribing a kept take again", "entry", base, "model", model, "cancelled_take", e.Cancelled)
	return tray.StateTranscribing, "Transcribing the take again with " + model + "…"
}

// OnAgain keeps a take's new transcription in Recent beside its first text
// (or as the text of a cancelled take) and copies it to the clipboard. It
// returns the tray's state and line; the caller refreshes the menu.
func (f *Feedback) OnAgain(ctx context.Context, a Again, clip Clipboard) (tray.State, string) {
	f.redo.mu.Lock()
	if cancel, ok := f.redo.running[a.ID]; ok {
		cancel()
		delete(f.redo.running, a.ID)
	}
	f.redo.mu.Unlock()
	switch {
	case errors.Is(a.Err, context.Canceled):
		return tray.StateIdle, "ready"
	case a.Err != nil:
		f.log.Warn("kept take not transcribed again", "err", a.Err)
		return tray.StateError, "Could not transcribe the take again: " + a.Err.Error()
	case strings.TrimSpace(a.Text) == "":
		return tray.StateIdle, "Nothing heard in that take — ready"
	case f.Recent == nil:
		return tray.StateError, "That dictation is no longer in the Recent list"
	}
	_, ok, err := f.Recent.SetText(a.ID, history.Again{Text: a.Text, Model: a.Model, Language: a.Lang})
	if err != nil {
		f.log.Warn("could not keep the dictation on disk", "err", err)
	}
	if !ok {
		return tray.StateError, "That dictation is no longer in the Recent list"
	}
	if err := clip.Copy(ctx, a.Text); err != nil {
		return tray.StateError, "Transcribed again (kept in Recent), but not copied: " + err.Error()
	}
	return tray.StateIdle, fmt.Sprintf("Transcribed again with %s (%s), kept in Recent and copied to the clipboard — ready", a.Model, a.Lang)
}

// stopRedos ends the transcriptions again under way and waits for them.
func (f *Feedback) stopRedos() {
	f.redo.mu.Lock()
	for _, cancel := range f.redo.running {
		cancel()
	}
	f.redo.mu.Unlock()
	f.redo.wg.Wait()
}

// keepTake saves a take's recording for Recent when history.keep_audio_days
// is on, and returns its name; "" when it is off (nothing is written) or the
// write failed (logged).
func (f *Feedback) keepTake(samples []float32, at time.Time) string {
	if f.takes == nil || f.keepDays.Load() <= 0 || len(samples) == 0 {
		return ""
	}
	name := TakeName(at)
	if err := f.takes.Save(name, samples); err != nil {
		f.log.Warn("could not keep the take's recording", "err", err)
		return ""
	}
	return name
}

// RememberCancelled keeps a cancelled take in Recent, to be retried, when
// history.keep_audio_days is on; it reports whether it did (the caller
// refreshes the menu).
func (f *Feedback) RememberCancelled(e app.Event) bool {
	if e.Outcome != app.Cancelled || f.Recent == nil {
		return false
	}
	at := time.Now()
	name := f.keepTake(e.Audio, at)
	if name == "" {
		return false
	}
	if _, err := f.Recent.AddEntry(history.Entry{At: at, Audio: name, Cancelled: true, Profile: e.Profile}); err != nil {
		f.log.Warn("could not keep the dictation on disk", "err", err)
	}
	return true
}

// setKeepDays applies history.keep_audio_days: the takes older than that
// are deleted now, all of them when it is 0.
func (f *Feedback) setKeepDays(days int) {
	f.keepDays.Store(int64(days))
	f.pruneTakes()
}

// pruneTakes deletes the kept takes older than history.keep_audio_days.
func (f *Feedback) pruneTakes() {
	if f.takes == nil {
		return
	}
	keep := time.Duration(f.keepDays.Load()) * 24 * time.Hour
	n, err := f.takes.Prune(time.Now(), keep)
	if err != nil {
		f.log.Warn("could not delete old recordings", "err", err)
	}
	if n > 0 {
		f.log.Info("old recordings deleted", "count", n, "keep_audio_days", f.keepDays.Load())
	}
}

// startPruning deletes old takes now and once a day until stopPruning.
func (f *Feedback) startPruning() {
	f.pruneTakes()
	f.pruning = every(pruneEvery, f.pruneTakes)
}

// stopPruning stops the daily pruning, if it runs, and waits for it.
func (f *Feedback) stopPruning() {
	if f.pruning != nil {
		f.pruning.end()
		f.pruning = nil
	}
}

// againItems are the Recent items of e's take beyond its text: its
// transcriptions again, then the item that makes one more.
func againItems(e history.Entry) []tray.Item {
	var items []tray.Item
	for i, a := range e.Again {
		items = append(items, tray.Item{ID: e.ID + history.AgainSuffix + strconv.Itoa(i),
			Label: "   " + history.Label("again ("+a.Model+", "+a.Language+"): "+a.Text, history.LabelLength)})
	}
	if e.Audio != "" {
		items = append(items, tray.Item{ID: e.ID + redoSuffix, Label: "   ↻ Transcribe again"})
	}
	return items
}

// cancelledItem is the Recent item of a cancelled take: choosing it retries it.
func cancelledItem(e history.Entry) tray.Item {
	return tray.Item{ID: e.ID + redoSuffix, Label: "(cancelled " + e.At.Local().Format("15:04:05") + ") ↻ Retry"}
}
