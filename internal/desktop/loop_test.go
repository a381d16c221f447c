package desktop

import (
	"context"
	"errors"
	"github.com/whisperkey/whisperkey/internal/feedback"
	"github.com/whisperkey/whisperkey/internal/loader"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/app"
	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/models"
	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/tray"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, testenv.IdleHTTPConnections()...)
}

func testLog(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// testDesk is a desk with an unstarted tray (it keeps state, shows nothing)
// and a model cache served by hub.
func testDesk(t *testing.T, endpoint string) *desk {
	t.Helper()
	cache, err := models.New(models.Options{Dir: t.TempDir(), Endpoint: endpoint}, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	tr := tray.New(tray.Config{}, testLog(t))
	t.Cleanup(tr.Close)
	fb := feedback.New("", testLog(t))
	ld := loader.New(loader.Options{Models: cache}, config.Defaults(), tr, fb.Tell, testLog(t))
	t.Cleanup(ld.Close)
	return &desk{log: testLog(t), fb: fb, tray: tr, ld: ld}
}

// Hotkey presses reach the app through the run loop itself (no forwarding
// goroutine), and the loop returns when ctx ends, leaving nothing running.
func TestServeForwardsHotkeys(t *testing.T) {
	d := testDesk(t, "http://127.0.0.1:1")
	keys := make(chan hotkey.Event)
	input := make(chan app.Input)
	stop := serveBeside(t, d, sources{hotkeys: keys, input: input})
	for _, tc := range []struct {
		e    hotkey.Event
		want app.Trigger
		send bool
	}{
		{hotkey.Event{Kind: hotkey.Start, Hotkey: hotkey.Record}, app.TriggerStart, false},
		{hotkey.Event{Kind: hotkey.Stop, Hotkey: hotkey.AutoSend}, app.TriggerStop, true},
		{hotkey.Event{Kind: hotkey.Cancel, Hotkey: hotkey.Record}, app.TriggerCancel, false},
	} {
		keys <- tc.e
		select {
		case in := <-input:
			if in.Trigger != tc.want || in.Send != tc.send {
				t.Fatalf("%v became %+v, want trigger %v send %v", tc.e.Kind, in, tc.want, tc.send)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%v never reached the app", tc.e.Kind)
		}
	}
	close(keys) // a closed listener is not read again
	stop()
}

// serveBeside runs d's loop on src beside the test; the stop it returns ends
// the loop, waits for it and fails the test on its error.
func serveBeside(t *testing.T, d *desk, src sources) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.serve(ctx, src) }()
	return func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// watchedDesk is a test desk whose status log and notifications are kept.
func watchedDesk(t *testing.T) (*desk, *testenv.Buffer, *fakeNotifier) {
	logged := new(testenv.Buffer)
	d := testDesk(t, "http://127.0.0.1:1")
	d.log = slog.New(slog.NewTextHandler(logged, nil))
	note := &fakeNotifier{}
	d.fb.SetNotifier(note)
	return d, logged, note
}

// fakeNotifier notes the notifications' summaries.
type fakeNotifier struct{ got []string }

func (n *fakeNotifier) Notify(m notify.Message) bool {
	n.got = append(n.got, m.Summary+": "+m.Body)
	return true
}
func (n *fakeNotifier) Close() error { return nil }

// Microphone events reach the tray and a notification each (lost, back,
// recording cut); every one is read, so the recorder never drops them.
func TestServeShowsMicrophoneEvents(t *testing.T) {
	d, logged, note := watchedDesk(t)
	mic := make(chan audio.Event)
	stop := serveBeside(t, d, sources{audio: mic})
	events := []audio.Event{
		{Kind: audio.EventDeviceLost, Device: "USB mic", Err: errors.New(`microphone "USB mic" stopped delivering audio; reconnect it`)},
		{Kind: audio.EventDeviceRestored, Device: "USB mic"},
	}
	for range 10 {
		events = append(events, audio.Event{Kind: audio.EventLimit})
	}
	for _, e := range events {
		select {
		case mic <- e:
		case <-time.After(5 * time.Second):
			t.Fatalf("the run loop stopped reading microphone events at %v", e.Kind)
		}
	}
	close(mic)
	stop()
	if len(note.got) != 12 || !strings.HasPrefix(note.got[0], "Microphone lost") || !strings.Contains(note.got[0], "USB mic") ||
		!strings.HasPrefix(note.got[1], "Microphone back") || !strings.Contains(note.got[2], "maximum") {
		t.Errorf("notifications %q, want lost and back for the USB mic, then the recording cut", note.got)
	}
	for _, want := range []string{"stopped delivering audio", "Microphone USB mic is back", "Maximum recording length"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("status log lacks %q:\n%s", want, logged.String())
		}
	}
}

// log_level takes effect at start and on each change; --verbose pins debug.
func TestLogLevelFollowsConfig(t *testing.T) {
	cfg := config.Defaults()
	tests := []struct {
		level   string
		verbose bool
		want    slog.Level
	}{
		{"info", false, slog.LevelInfo},
		{"warn", false, slog.LevelWarn},
		{"error", false, slog.LevelError},
		{"debug", false, slog.LevelDebug},
		{"error", true, slog.LevelDebug},
	}
	for _, tt := range tests {
		lv := new(slog.LevelVar)
		d := &desk{opt: Options{LogLevel: lv, Verbose: tt.verbose}}
		cfg.LogLevel = tt.level
		d.setLogLevel(cfg)
		if lv.Level() != tt.want {
			t.Errorf("log_level %s (verbose %v): level %v, want %v", tt.level, tt.verbose, lv.Level(), tt.want)
		}
	}
}

// A hotkey that cannot be registered is shown in the tray each time and
// notified once per distinct problem: re-registering after a resume or a
// layout change meets the same conflict again.
func TestHotkeyProblemToldOnce(t *testing.T) {
	d, logged, note := watchedDesk(t)
	keys := make(chan hotkey.Event)
	stop := serveBeside(t, d, sources{hotkeys: keys})
	f9, err := hotkey.Parse("ctrl+shift+f9")
	if err != nil {
		t.Fatal(err)
	}
	f10, err := hotkey.Parse("ctrl+shift+f10")
	if err != nil {
		t.Fatal(err)
	}
	taken := &hotkey.RegisterError{Key: hotkey.ConfigRecord, Combo: f9, Err: hotkey.ErrTaken}
	other := &hotkey.RegisterError{Key: hotkey.ConfigAutoSend, Combo: f10, Err: hotkey.ErrTaken}
	for _, err := range []error{taken, taken, other, taken} {
		keys <- hotkey.Event{Kind: hotkey.Problem, Err: err}
	}
	close(keys)
	stop()
	if len(note.got) != 2 || !strings.Contains(note.got[0], "ctrl+shift+f9 is already taken") ||
		!strings.Contains(note.got[0], "choose another in config hotkeys.record") || !strings.Contains(note.got[1], "ctrl+shift+f10") {
		t.Errorf("notifications %q, want one for each taken combination, with the fix", note.got)
	}
	if n := strings.Count(logged.String(), "already taken"); n != 4 {
		t.Errorf("the tray showed the problem %d times, want every time (4):\n%s", n, logged.String())
	}
}

// A resume from sleep (logind), or a session the hotkey grabber saw come
// back (Windows), runs the checks beside the loop and the loop keeps serving;
// with no parts to check they end at once.
func TestResumeRunsChecks(t *testing.T) {
	tests := []struct {
		name string
		send func(resumed chan struct{}, hotkeys chan hotkey.Event)
		want string
	}{
		{name: "logind", want: "resumed from sleep",
			send: func(resumed chan struct{}, _ chan hotkey.Event) { resumed <- struct{}{} }},
		{name: "grabber", want: "session unlocked", send: func(_ chan struct{}, hotkeys chan hotkey.Event) {
			hotkeys <- hotkey.Event{Kind: hotkey.Renewed, Reason: "session unlocked"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logged testenv.Buffer
			d := testDesk(t, "http://127.0.0.1:1")
			d.log = slog.New(slog.NewTextHandler(&logged, nil))
			resumed, hotkeys := make(chan struct{}), make(chan hotkey.Event)
			stop := serveBeside(t, d, sources{resumed: resumed, hotkeys: hotkeys})
			tt.send(resumed, hotkeys)
			stop()
			d.checks.Wait()
			for _, want := range []string{tt.want, "resume checks done"} {
				if !strings.Contains(logged.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, logged.String())
				}
			}
		})
	}
}
