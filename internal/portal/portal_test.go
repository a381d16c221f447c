package portal

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

func TestTrigger(t *testing.T) {
	for _, tt := range []struct{ hotkey, want string }{
		{"ctrl+win+space", "CTRL+LOGO+space"},
		{"ctrl+win", "CTRL+Super_L"},
		{"alt+shift+f9", "SHIFT+ALT+F9"},
		{"win+`", "LOGO+grave"},
		{"ctrl+alt+pagedown", "CTRL+ALT+Page_Down"},
		{"f12", "F12"},
		{"ctrl+enter", "CTRL+Return"},
		{"ctrl+alt", "CTRL+Alt_L"},
		{"ctrl+shift+a", "CTRL+SHIFT+a"},
		{"win+/", "LOGO+slash"},
	} {
		c, err := hotkey.Parse(tt.hotkey)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.hotkey, err)
		}
		if got, ok := Trigger(c); !ok || got != tt.want {
			t.Errorf("Trigger(%s) = %q, %v; want %q", tt.hotkey, got, ok, tt.want)
		}
	}
}

// Every key a hotkey can name has a keysym name; the mouse's side buttons
// have none, since the shortcuts portal binds keys only.
func TestTriggerNamesEveryKey(t *testing.T) {
	for k := hotkey.Key(1); k.String() != ""; k++ {
		_, ok := Trigger(hotkey.Combo{Mods: hotkey.ModCtrl, Key: k})
		if mouse := k.X11Button() != 0; ok == mouse {
			t.Errorf("Trigger(ctrl+%s) ok = %v, want %v", k, ok, !mouse)
		}
	}
	if got, ok := Trigger(hotkey.Combo{Key: mustKey(t, "rctrl")}); !ok || got != "Control_R" {
		t.Errorf("Trigger(rctrl) = %q, %v; want Control_R", got, ok)
	}
}

func mustKey(t *testing.T, s string) hotkey.Key {
	t.Helper()
	c, err := hotkey.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return c.Key
}

func TestHold(t *testing.T) {
	const A, D = true, false
	for _, tt := range []struct {
		name    string
		signals []bool
		want    []hotkey.Command
	}{
		{"desktop that reports releases: the first press toggles, then it is hold",
			[]bool{A, D, A, D}, []hotkey.Command{hotkey.CommandToggle, hotkey.CommandRelease, hotkey.CommandPress, hotkey.CommandRelease}},
		{"desktop that only activates: toggle each time",
			[]bool{A, A, A, A}, []hotkey.Command{hotkey.CommandToggle, hotkey.CommandToggle, hotkey.CommandToggle, hotkey.CommandToggle}},
		{"a repeat while held after the proof stays a press (the hotkey ignores it)",
			[]bool{A, D, A, A, D}, []hotkey.Command{hotkey.CommandToggle, hotkey.CommandRelease, hotkey.CommandPress, hotkey.CommandPress, hotkey.CommandRelease}},
		{"a stray release proves releases too",
			[]bool{D, A, D}, []hotkey.Command{hotkey.CommandRelease, hotkey.CommandPress, hotkey.CommandRelease}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var h Hold
			var got []hotkey.Command
			for _, s := range tt.signals {
				got = append(got, h.Signal(s))
			}
			if strings.Join(toStrings(got), ",") != strings.Join(toStrings(tt.want), ",") {
				t.Errorf("actions %v, want %v", got, tt.want)
			}
		})
	}
}

func toStrings(a []hotkey.Command) []string {
	out := make([]string, len(a))
	for i, x := range a {
		out[i] = x.String()
	}
	return out
}

// portalBus starts a private bus with the test portal on it and makes it
// this test's session bus.
func portalBus(t *testing.T) *testenv.Portal {
	t.Helper()
	addr := testenv.PrivateBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	return testenv.NewPortal(t, addr)
}

func connect(t *testing.T) *Conn {
	t.Helper()
	c, err := Connect(context.Background(), testlog.New(t, slog.LevelDebug))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestGlobalShortcuts(t *testing.T) {
	p := portalBus(t)
	c := connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if v, err := c.Version(ctx, IfaceGlobalShortcuts); err != nil || v != 1 {
		t.Fatalf("version %d, %v; want 1", v, err)
	}
	g, err := c.GlobalShortcuts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(g.Path()), "/org/freedesktop/portal/desktop/session/") {
		t.Errorf("session path %s", g.Path())
	}
	bound, err := g.Bind(ctx, []Shortcut{{ID: "record", Description: "Dictate", Trigger: "CTRL+LOGO+space"}, {ID: "send", Description: "Dictate and send"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(bound) != 2 || bound[0].ID != "record" || bound[0].Description != "Dictate" || bound[0].TriggerDescription != "CTRL+LOGO+space" {
		t.Errorf("bound %+v", bound)
	}
	if got := p.Trigger("record"); got != "CTRL+LOGO+space" {
		t.Errorf("the portal was asked for trigger %q", got)
	}
	if _, err := g.Bind(ctx, []Shortcut{{ID: "again", Description: "x"}}); err == nil {
		t.Error("a second Bind in one session was accepted")
	}
	p.TakeProblems() // that second Bind was on purpose

	p.Press(t, "record")
	p.Release(t, "record")
	p.Press(t, "send")
	for _, want := range []Activation{{ID: "record", Active: true}, {ID: "record"}, {ID: "send", Active: true}} {
		select {
		case a := <-g.Events():
			if a.ID != want.ID || a.Active != want.Active || a.Millis == 0 {
				t.Errorf("activation %+v, want %+v", a, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no activation %+v", want)
		}
	}
	if err := g.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !p.Registered() {
		t.Error("the client did not register its app id before its first portal call")
	}
}

func TestBindAnswers(t *testing.T) {
	for _, tt := range []struct {
		code uint32
		want error
	}{{1, ErrCancelled}, {2, ErrFailed}} {
		p := portalBus(t)
		p.AnswerBind(tt.code)
		c := connect(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		g, err := c.GlobalShortcuts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Bind(ctx, []Shortcut{{ID: "record", Description: "Dictate"}}); !errors.Is(err, tt.want) {
			t.Errorf("response %d: error %v, want %v", tt.code, err, tt.want)
		}
		cancel()
	}
}

// No portal on the bus: a clear error, not a hang.
func TestNoPortal(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", testenv.PrivateBus(t))
	c := connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.GlobalShortcuts(ctx); err == nil || !strings.Contains(err.Error(), "CreateSession") {
		t.Errorf("error %v, want one naming CreateSession", err)
	}
}

// The stand-in refuses what the spec forbids, so the tests above prove the
// protocol: a handle_token of the wrong type, and a missing description.
func TestPortalIsStrict(t *testing.T) {
	p := portalBus(t)
	bus, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	obj := bus.Object(BusName, ObjectPath)
	err = obj.Call(IfaceGlobalShortcuts+".CreateSession", 0, map[string]dbus.Variant{"handle_token": dbus.MakeVariant(uint32(7))}).Err
	if err == nil {
		t.Error("CreateSession took a uint32 handle_token")
	}
	c := connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g, err := c.GlobalShortcuts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = obj.Call(IfaceGlobalShortcuts+".BindShortcuts", 0, g.Path(),
		[]struct {
			ID string
			O  map[string]dbus.Variant
		}{{"record", map[string]dbus.Variant{"preferred_trigger": dbus.MakeVariant("Ctrl+<Super>")}}},
		"", map[string]dbus.Variant{"handle_token": dbus.MakeVariant("t1")}).Err
	if err == nil {
		t.Error("BindShortcuts took a shortcut without a description")
	}
	if got := p.TakeProblems(); len(got) != 2 {
		t.Errorf("problems %q, want 2", got)
	}
}

// StartRecord binds the record shortcut and turns its signals into key
// actions; a refusal is reported once, with the error.
func TestStartRecord(t *testing.T) {
	p := portalBus(t)
	var mu sync.Mutex
	var acts []hotkey.Command
	bound := make(chan error, 1)
	r := StartRecord(context.Background(), RecordOptions{
		Trigger: "CTRL+Super_L",
		Drive: func(a hotkey.Command) error {
			mu.Lock()
			acts = append(acts, a)
			mu.Unlock()
			return nil
		},
		Bound: func(b []Bound, err error) { bound <- err },
	}, testlog.New(t, slog.LevelDebug))
	defer r.Close()
	select {
	case err := <-bound:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not bound")
	}
	if got := p.Trigger(RecordID); got != "CTRL+Super_L" {
		t.Errorf("trigger %q", got)
	}
	p.Press(t, RecordID)
	p.Release(t, RecordID)
	p.Press(t, RecordID)
	p.Release(t, RecordID)
	want := "toggle,release,press,release"
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		got := strings.Join(toStrings(acts), ",")
		mu.Unlock()
		if got == want {
			return
		}
	}
	t.Errorf("actions %v, want %s", acts, want)
}

func TestStartRecordCancelled(t *testing.T) {
	p := portalBus(t)
	p.AnswerBind(1)
	bound := make(chan error, 1)
	r := StartRecord(context.Background(), RecordOptions{Drive: func(hotkey.Command) error { return nil },
		Bound: func(b []Bound, err error) { bound <- err }}, testlog.Discard())
	defer r.Close()
	select {
	case err := <-bound:
		if !errors.Is(err, ErrCancelled) {
			t.Errorf("error %v, want ErrCancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
	}
}

// Versions asks every interface over one connection: 0 for one the
// portal lacks, and for all when no portal is on the bus.
func TestVersions(t *testing.T) {
	t.Run("portal on the bus", func(t *testing.T) {
		portalBus(t)
		got := Versions(context.Background(), IfaceGlobalShortcuts, IfaceRemoteDesktop, "org.freedesktop.portal.Nothing")
		if want := []uint32{1, 2, 0}; !slices.Equal(got, want) {
			t.Fatalf("Versions = %v, want %v", got, want)
		}
	})
	t.Run("no portal", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", testenv.PrivateBus(t))
		if got := Versions(context.Background(), IfaceGlobalShortcuts); !slices.Equal(got, []uint32{0}) {
			t.Fatalf("Versions = %v, want [0]", got)
		}
	})
	t.Run("no session bus", func(t *testing.T) {
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
		if got := Versions(context.Background(), IfaceGlobalShortcuts, IfaceRemoteDesktop); !slices.Equal(got, []uint32{0, 0}) {
			t.Fatalf("Versions = %v, want [0 0]", got)
		}
	})
}
