package feedback

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/history"
	"github.com/whisperkey/whisperkey/internal/paths"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/tray"
)

// clipboard records what Recent copies.
type clipboard struct{ got []string }

func (c *clipboard) Copy(_ context.Context, text string) error {
	c.got = append(c.got, text)
	return nil
}

// transcriber answers text, and records the samples and profile it was given.
type transcriber struct {
	mu      sync.Mutex
	text    string
	samples []float32
	profile string
}

func (t *transcriber) Transcribe(_ context.Context, req app.Request, s []float32) (app.Transcript, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.samples, t.profile = s, req.Profile()
	return app.Transcript{Text: t.text, Language: "de"}, nil
}

// keeping is feedback whose state folder is dir, with Recent in memory and
// history.keep_audio_days at days.
func keeping(t *testing.T, dir string, days int) *Feedback {
	t.Helper()
	f := New(dir, testlog.New(t, slog.LevelDebug))
	cfg := config.Defaults()
	cfg.Feedback.KeepAudioDays = days
	f.SetHistory(cfg)
	f.setKeepDays(days)
	t.Cleanup(f.Close)
	return f
}

// take is a second of a recognisable recording.
func take() []float32 {
	s := make([]float32, 16000)
	for i := range s {
		s[i] = float32(i%200)/200 - 0.5
	}
	return s
}

// Privacy: with history.keep_audio_days off (the default) no recording is
// written, not of a dictation, nor of a cancelled take, and Recent offers
// nothing that needs one.
func TestNoRecordingKeptWhenOff(t *testing.T) {
	dir := t.TempDir()
	f := keeping(t, dir, 0)
	f.RememberDictation(app.Event{State: app.Idle, Outcome: app.Delivered, Text: "Hello there.", Audio: take()}, "base")
	if f.RememberCancelled(app.Event{State: app.Idle, Outcome: app.Cancelled, Audio: take()}) {
		t.Error("a cancelled take was kept with history.keep_audio_days off")
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if path != dir {
			t.Errorf("%s written with history.keep_audio_days off, want nothing in the state folder", path)
		}
		return err
	})
	for _, it := range f.RecentItems() {
		if strings.HasSuffix(it.ID, redoSuffix) {
			t.Errorf("Recent offers %q with no recording kept", it.Label)
		}
	}
	if st, line := f.RecentAction(t.Context(), f.Recent.Entries()[0].ID+redoSuffix, &clipboard{}, &transcriber{}, "base"); st != tray.StateError ||
		!strings.Contains(line, "history.keep_audio_days") {
		t.Errorf("transcribe again with no recording: %v %q, want an error naming history.keep_audio_days", st, line)
	}
}

// With history.keep_audio_days on, a take is kept for the user alone,
// transcribed again from Recent with the settings in use (both texts kept,
// the new one copied), and a cancelled take is retried into its entry.
func TestRecentTranscribesAgain(t *testing.T) {
	dir := t.TempDir()
	f := keeping(t, dir, 7)
	rec := take()
	f.RememberDictation(app.Event{State: app.Idle, Outcome: app.Delivered, Text: "Hello their.", Language: "en",
		Profile: "chat", Audio: rec}, "base")
	first := f.Recent.Entries()[0]
	if first.Audio == "" || first.Model != "base" {
		t.Fatalf("entry %+v, want its recording and model", first)
	}
	info, err := os.Stat(filepath.Join(paths.TakesDir(dir), first.Audio))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("kept recording is %v, want 0600 (the user's alone)", info.Mode().Perm())
	}

	redo := func(id string, tr *transcriber, clip *clipboard) (tray.State, string) {
		t.Helper()
		if st, line := f.RecentAction(t.Context(), id, clip, tr, "small"); st != tray.StateTranscribing {
			t.Fatalf("RecentAction(%s) = %v %q, want it transcribing", id, st, line)
		}
		select {
		case a := <-f.Agains():
			return f.OnAgain(t.Context(), a, clip)
		case <-time.After(time.Minute):
			t.Fatal("the take was never transcribed again")
		}
		return "", ""
	}
	tr, clip := &transcriber{text: "Hello there."}, &clipboard{}
	if st, line := redo(first.ID+redoSuffix, tr, clip); st != tray.StateIdle || !strings.Contains(line, "small (de)") {
		t.Errorf("after transcribing again: %v %q, want ready, naming the model and language", st, line)
	}
	if !slices.Equal(tr.samples, rec) || tr.profile != "chat" {
		t.Errorf("transcribed %d samples with profile %q, want the take's %d with its profile", len(tr.samples), tr.profile, len(rec))
	}
	e, _ := f.Recent.Get(first.ID)
	if e.Text != "Hello their." || len(e.Again) != 1 || e.Again[0] != (history.Again{Text: "Hello there.", Model: "small", Language: "de"}) {
		t.Errorf("entry after transcribing again: %+v, want both texts", e)
	}
	if !slices.Equal(clip.got, []string{"Hello there."}) {
		t.Errorf("copied %q, want the new text", clip.got)
	}
	var labels []string
	for _, it := range f.RecentItems() {
		labels = append(labels, it.Label)
	}
	if want := []string{"Hello their.", "   again (small, de): Hello there.", "   ↻ Transcribe again"}; !slices.Equal(labels, want) {
		t.Errorf("Recent lists %q, want %q", labels, want)
	}
	st, _ := f.RecentAction(t.Context(), first.ID+history.AgainSuffix+"0", clip, tr, "small")
	if st != tray.StateIdle || clip.got[len(clip.got)-1] != "Hello there." {
		t.Errorf("choosing the text again copied %q (%v), want it", clip.got, st)
	}

	if !f.RememberCancelled(app.Event{State: app.Idle, Outcome: app.Cancelled, Audio: rec}) {
		t.Fatal("a cancelled take was not kept")
	}
	cancelled := f.RecentItems()[0]
	if !strings.HasPrefix(cancelled.Label, "(cancelled ") || !strings.HasSuffix(cancelled.ID, redoSuffix) {
		t.Fatalf("Recent's newest item %+v, want the cancelled take to retry", cancelled)
	}
	redo(cancelled.ID, &transcriber{text: "Said and cancelled."}, clip)
	if e := f.Recent.Entries()[0]; e.Cancelled || e.Text != "Said and cancelled." {
		t.Errorf("retried take %+v, want its text in place", e)
	}
}

// Old takes are deleted on schedule: those older than keep, all of them
// with 0; a file that is not a take stays.
func TestPruneTakes(t *testing.T) {
	dir := t.TempDir()
	takes := NewTakes(dir, slog.New(slog.DiscardHandler))
	now := time.Now()
	for name, age := range map[string]time.Duration{"old.wav": 8 * 24 * time.Hour, "new.wav": time.Hour, "notes.txt": 30 * 24 * time.Hour} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	left := func() []string {
		list, _ := os.ReadDir(dir)
		var names []string
		for _, de := range list {
			names = append(names, de.Name())
		}
		return names
	}
	if n, err := takes.Prune(now, 7*24*time.Hour); n != 1 || err != nil {
		t.Errorf("Prune(7 days) = %d, %v; want the one old take", n, err)
	}
	if got := left(); !slices.Equal(got, []string{"new.wav", "notes.txt"}) {
		t.Errorf("left %q after 7 days' pruning", got)
	}
	if n, err := takes.Prune(now, 0); n != 1 || err != nil {
		t.Errorf("Prune(0) = %d, %v; want the last take", n, err)
	}
	if got := left(); !slices.Equal(got, []string{"notes.txt"}) {
		t.Errorf("left %q after turning it off, want only the file that is not a take", got)
	}
	if n, err := NewTakes(filepath.Join(dir, "none"), slog.New(slog.DiscardHandler)).Prune(now, 0); n != 0 || err != nil {
		t.Errorf("pruning a missing folder: %d, %v; want nothing to do", n, err)
	}
}
