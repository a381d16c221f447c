//go:build !windows

package notify_test

import (
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/notify"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

func testLogger(t *testing.T) *slog.Logger {
	return testlog.New(t, slog.LevelDebug)
}

// call is one Notify call as the server received it.
type call struct {
	App, Summary, Body string
	ReplacesID         uint32
	Hints              map[string]dbus.Variant
	Expire             int32
}

// server is a real org.freedesktop.Notifications service on the session bus, as a
// desktop's notification daemon is; it records every call.
type server struct {
	mu    sync.Mutex
	calls []call
	next  uint32
	got   chan struct{}
}

func (s *server) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, expire int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call{app, summary, body, replaces, hints, expire})
	id := replaces
	if id == 0 {
		s.next++
		id = s.next
	}
	select {
	case s.got <- struct{}{}:
	default:
	}
	return id, nil
}

func (s *server) received() []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]call(nil), s.calls...)
}

func startServer(t *testing.T) *server {
	t.Helper()
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		testenv.Require(t, "a D-Bus session bus (DBUS_SESSION_BUS_ADDRESS)",
			"scripts/testenv.sh go test ./internal/notify/, or dbus-run-session -- go test ./internal/notify/")
	}
	s := &server{got: make(chan struct{}, 16)}
	testenv.ServeNotifications(t, s)
	return s
}

func TestMessagesReachTheServer(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after the server connection closes
	srv := startServer(t)
	n, err := notify.New(notify.Config{AppName: "WhisperKey"}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	tests := []struct {
		msg         notify.Message
		wantSummary string
		wantInBody  string
	}{
		{notify.MicrophoneLost("VirtualMic"), "Microphone lost", `"VirtualMic" is gone`},
		{notify.MicrophoneBack("VirtualMic"), "Microphone back", `"VirtualMic" is back`},
		{notify.ModelDownloaded("small"), "Model downloaded", "small model is downloaded"},
		{notify.GPUNotUsed("the CUDA 12 runtime (libcublas.so.12) is missing", "https://example.org/gpu"), "GPU not used", "https://example.org/gpu"},
		{notify.EngineCrashed("exit status 2"), "Engine restarted", "restarted"},
		{notify.RecordingCut(5 * time.Minute), "Recording cut", "5m0s"},
		{notify.TextNotPasted(), "Text not pasted", "on the clipboard"},
		{notify.Recording(), "Recording", "Speak now"},
		{notify.NothingHeard(), "Nothing heard", "no speech"},
	}
	for i, tt := range tests {
		if !n.Notify(tt.msg) {
			t.Fatalf("Notify(%s) = false, want shown", tt.msg.Kind)
		}
		got := srv.received()
		if len(got) != i+1 {
			t.Fatalf("server has %d calls after %d messages", len(got), i+1)
		}
		c := got[i]
		if c.App != "WhisperKey" || c.Summary != tt.wantSummary || !strings.Contains(c.Body, tt.wantInBody) {
			t.Errorf("%s: server got app %q summary %q body %q; want summary %q, body containing %q",
				tt.msg.Kind, c.App, c.Summary, c.Body, tt.wantSummary, tt.wantInBody)
		}
	}
	got := srv.received()
	// "Microphone back" replaces "Microphone lost" on screen.
	if got[0].ReplacesID != 0 || got[1].ReplacesID == 0 {
		t.Errorf("replaces ids: lost %d, back %d; want 0 then the lost message's id", got[0].ReplacesID, got[1].ReplacesID)
	}
	if u := got[0].Hints["urgency"].Value(); u != byte(2) || got[0].Expire != 0 {
		t.Errorf("microphone lost: urgency %v expire %d, want critical and no expiry", u, got[0].Expire)
	}
	// The indicator's stand-ins are transient, and "nothing heard" replaces "recording".
	rec, nothing := got[len(got)-2], got[len(got)-1]
	if rec.Hints["transient"].Value() != true || nothing.Hints["transient"].Value() != true {
		t.Errorf("recording/nothing heard hints %v / %v, want transient", rec.Hints, nothing.Hints)
	}
	if _, ok := got[0].Hints["transient"]; ok {
		t.Error("microphone lost is transient; want it kept in the list")
	}
	if nothing.ReplacesID == 0 {
		t.Error("nothing heard does not replace the recording notice")
	}
}

func unthrottled(m notify.Message) notify.Message {
	m.Unthrottled = true
	return m
}

func TestRateLimitPerKind(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after the server connection closes
	srv := startServer(t)
	const interval = 400 * time.Millisecond
	n, err := notify.New(notify.Config{Interval: interval}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	steps := []struct {
		msg  notify.Message
		want bool
	}{
		{notify.MicrophoneLost(""), true},
		{notify.MicrophoneLost(""), false}, // same kind within the interval
		{notify.MicrophoneLost(""), false},
		{notify.MicrophoneBack(""), true}, // another kind is not held back
		{notify.EngineCrashed(""), true},
		{notify.ConfigProblem("config.yaml:3: unknown key", false), true},
		{notify.ConfigProblem("config.yaml:3: unknown key", false), false},
		{unthrottled(notify.ConfigProblem("config.yaml:3: unknown key", false)), true}, // its caller tells each problem once itself
	}
	for i, s := range steps {
		if got := n.Notify(s.msg); got != s.want {
			t.Errorf("step %d (%s): shown = %v, want %v", i, s.msg.Kind, got, s.want)
		}
	}
	if got := len(srv.received()); got != 5 {
		t.Errorf("server received %d calls, want 5", got)
	}
	time.Sleep(interval + 50*time.Millisecond)
	if !n.Notify(notify.MicrophoneLost("")) {
		t.Error("microphone lost after the interval was held back")
	}
	if got := len(srv.received()); got != 6 {
		t.Errorf("server received %d calls, want 6", got)
	}
}

func TestClosedNotifierShowsNothing(t *testing.T) {
	srv := startServer(t)
	n, err := notify.New(notify.Config{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if n.Notify(notify.ModelDownloaded("tiny")) {
		t.Error("Notify after Close reported shown")
	}
	if got := len(srv.received()); got != 0 {
		t.Errorf("server received %d calls after Close", got)
	}
}

func TestNoServerIsLoggedNotFatal(t *testing.T) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		testenv.Require(t, "a D-Bus session bus", "scripts/testenv.sh go test ./internal/notify/")
	}
	// No one owns the name on this bus unless a test server does; a desktop without a
	// notification daemon must not break anything.
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.Notifications").Store(&has); err != nil {
		t.Fatal(err)
	}
	if has {
		t.Skip("a notification daemon runs on this bus")
	}
	n, err := notify.New(notify.Config{Timeout: time.Second}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if n.Notify(notify.ModelDownloaded("tiny")) {
		t.Error("Notify with no server reported shown")
	}
}
