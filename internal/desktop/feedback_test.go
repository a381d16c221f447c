package desktop

import (
	"fmt"
	"github.com/whisperkey/whisperkey/internal/feedback"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/dictation"
	"github.com/whisperkey/whisperkey/internal/history"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/output"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// fakeIndicator notes what it was shown and counts level updates.
type fakeIndicator struct {
	mu     sync.Mutex
	shown  []string
	levels int
	closed bool
}

func (f *fakeIndicator) Show(s indicator.State, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shown = append(f.shown, strings.TrimSpace(s.String()+" "+text))
}
func (f *fakeIndicator) SetLevel(float32) { f.mu.Lock(); f.levels++; f.mu.Unlock() }
func (f *fakeIndicator) Live(text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shown = append(f.shown, "live "+text)
}
func (f *fakeIndicator) SetMic(open bool) {
	if open {
		f.mu.Lock()
		f.shown = append(f.shown, "mic on")
		f.mu.Unlock()
	}
}
func (f *fakeIndicator) Hide()           { f.mu.Lock(); f.shown = append(f.shown, "hidden"); f.mu.Unlock() }
func (f *fakeIndicator) Close() error    { f.closed = true; return nil }
func (f *fakeIndicator) levelCount() int { f.mu.Lock(); defer f.mu.Unlock(); return f.levels }

// A dictation's states reach the indicator; the level ticker runs only while
// recording and stops with Close (goleak checks); pasted text and text left
// on the clipboard go to Recent, and the not-pasted case is told twice.
func TestDictationShownOnIndicator(t *testing.T) {
	d := testDesk(t, "http://127.0.0.1:1")
	store, err := config.New(t.TempDir()+"/config.yaml", config.Options{}, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	d.store = store
	ind, note := &fakeIndicator{}, &fakeNotifier{}
	d.fb.Ind, d.fb.Level = ind, func() float32 { return 0.5 }
	d.fb.SetNotifier(note)
	d.fb.SetHistory(config.Defaults())

	steps := []struct {
		e         app.Event
		want      string
		ticking   bool
		recentLen int
	}{
		{app.Event{State: app.Recording, Message: "Recording…"}, "recording", true, 0},
		{app.Event{State: app.Transcribing, Message: "Transcribing…"}, "transcribing", false, 0},
		{app.Event{State: app.Idle, Message: "Ready", Text: "first dictation", Outcome: app.Delivered}, "hidden", false, 1},
		{app.Event{State: app.Recording}, "recording", true, 1},
		{app.Event{State: app.Idle, Message: "Nothing heard", Outcome: app.NothingHeard}, "nothing heard", false, 1},
		{app.Event{State: app.Error, Message: "Transcription failed: engine gone", Err: fmt.Errorf("x")}, "error Transcription failed", false, 1},
		{app.Event{State: app.Error, Message: output.ErrNotRead.Error(), Err: output.ErrNotRead, Text: "second dictation"}, "error " + feedback.NotPasted, false, 2},
	}
	for i, s := range steps {
		d.fb.ShowEvent(s.e)
		if s.e.State == app.Idle && s.e.Text != "" {
			d.fb.Remember(s.e.Text)
		}
		if s.e.State == app.Error && s.e.Text != "" {
			d.fb.Remember(s.e.Text)
		}
		if got := ind.shown[len(ind.shown)-1]; !strings.EqualFold(got, s.want) {
			t.Errorf("step %d: indicator shows %q, want %q", i, got, s.want)
		}
		if ticking := d.fb.Ticking(); ticking != s.ticking {
			t.Errorf("step %d: level ticker running %v, want %v", i, ticking, s.ticking)
		}
		if s.ticking {
			deadline := time.Now().Add(2 * time.Second)
			for ind.levelCount() == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if ind.levelCount() == 0 {
				t.Errorf("step %d: no level reached the indicator while recording", i)
			}
		}
		if n := len(d.fb.RecentItems()); n != s.recentLen {
			t.Errorf("step %d: %d recent dictations, want %d", i, n, s.recentLen)
		}
	}
	items := d.fb.RecentItems()
	if got := []string{items[0].Label, items[1].Label}; !slices.Equal(got, []string{"second dictation", "first dictation"}) {
		t.Errorf("Recent lists %q, want the newest first", got)
	}
	d.fb.ShowEvent(app.Event{State: app.Recording})
	d.fb.Close()
	if !ind.closed || d.fb.Ticking() {
		t.Error("closeFeedback left the indicator open or the level ticker running")
	}
}

// keep_on_disk moves the kept dictations into the file and back out, whole
// (text as heard, profile, cleanup mode), and turning it off deletes the file.
func TestHistoryFollowsKeepOnDisk(t *testing.T) {
	d := testDesk(t, "http://127.0.0.1:1")
	d.opt.StateDir = t.TempDir()
	d.fb = feedback.New(d.opt.StateDir, testLog(t))
	d.fb.SetHistory(config.Defaults())
	kept := history.Entry{Text: "Kept in memory.", Raw: "kept in memory", Profile: "chat", Cleanup: "tidy", At: time.Now()}
	if _, err := d.fb.Recent.AddEntry(kept); err != nil {
		t.Fatal(err)
	}
	same := func(e history.Entry) bool {
		return e.Text == kept.Text && e.Raw == kept.Raw && e.Profile == kept.Profile && e.Cleanup == kept.Cleanup
	}
	on := config.Defaults()
	on.Feedback.KeepOnDisk = true
	d.fb.Reconfigure(config.Defaults(), on)
	got, err := history.Read(history.Path(d.opt.StateDir))
	if err != nil || len(got) != 1 || !same(got[0]) {
		t.Fatalf("file after keep_on_disk on: %+v %v, want the one dictation whole", got, err)
	}
	d.fb.Reconfigure(on, config.Defaults())
	if got, err := history.Read(history.Path(d.opt.StateDir)); err != nil || len(got) != 0 {
		t.Fatalf("file after keep_on_disk off: %v %v, want none", got, err)
	}
	if e := d.fb.Recent.Entries(); len(e) != 1 || !same(e[0]) {
		t.Errorf("in memory after keep_on_disk off: %+v, want the one dictation whole", e)
	}
}

// A remote engine's fallback message reaches the user as a notification.
func TestRemoteFallbackIsNotified(t *testing.T) {
	d := testDesk(t, "http://127.0.0.1:1")
	note := &fakeNotifier{}
	d.fb.SetNotifier(note)
	dict := dictation.NewFlow(&namedEngine{name: "local"}, nil)
	failing := func(_ config.Config, local dictation.Engine, tell func(string)) (dictation.Engine, error) {
		tell("the remote server failed; dictating on this computer")
		return local, nil
	}
	dict.Configure(config.Defaults(), failing, d.fb.RemoteNotice, testLog(t))
	if len(note.got) != 1 || !strings.Contains(note.got[0], "the remote server failed") {
		t.Errorf("notifications %q, want the remote engine's message", note.got)
	}
}

// A config change rebuilds only the parts whose keys changed: the indicator
// comes and goes with `indicator`, notifications with `notifications`.
func TestFeedbackFollowsConfig(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		testenv.Require(t, "an X display for the indicator", "run through scripts/testenv.sh")
	}
	d := testDesk(t, "http://127.0.0.1:1")
	off := config.Defaults()
	off.Feedback.Indicator, off.Feedback.Notifications = choice.IndicatorOff, false
	d.fb.Start(off, nil, "")
	defer d.fb.Close()
	if d.fb.Ind != nil || d.fb.Notifier() != nil {
		t.Fatalf("indicator %v, notifier %v with both off", d.fb.Ind, d.fb.Notifier())
	}
	on := off
	on.Feedback.Indicator = choice.Bottom
	d.fb.Reconfigure(off, on)
	if d.fb.Ind == nil {
		t.Fatal("no indicator after indicator: bottom")
	}
	ind := d.fb.Ind
	d.fb.Reconfigure(on, on)
	if d.fb.Ind != ind {
		t.Error("an unchanged indicator key rebuilt the indicator")
	}
	d.fb.Reconfigure(on, off)
	if d.fb.Ind != nil {
		t.Error("the indicator stayed after indicator: off")
	}
}
