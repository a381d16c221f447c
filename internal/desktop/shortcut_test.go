package desktop

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/config"
	"github.com/whisperkey/whisperkey/internal/hotkey"
)

type noKeys struct{}

func (noKeys) Grab(hotkey.Combo) (hotkey.Grab, error) { return noGrab{}, nil }

type noGrab struct{}

func (noGrab) Edges() <-chan hotkey.Edge { return nil }
func (noGrab) Release() error            { return nil }

type closer struct{ closed bool }

func (c *closer) Close() error { c.closed = true; return nil }

// expectKinds waits for the listener's next events, of kinds in order.
func expectKinds(t *testing.T, l *hotkey.Listener, kinds ...hotkey.Kind) {
	t.Helper()
	for _, want := range kinds {
		select {
		case e := <-l.Events():
			if e.Kind != want {
				t.Fatalf("event %v, want %v", e.Kind, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %v", want)
		}
	}
}

// The desktop's shortcut gets hotkeys.record and drives the record hotkey
// by the ptt names; a refusal reaches the tray and one notification, and
// its fix becomes the session's note.
func TestShortcutRoute(t *testing.T) {
	d := testDesk(t, "http://127.0.0.1:1")
	note := &fakeNotifier{}
	d.fb.SetNotifier(note)
	l, err := hotkey.New(hotkey.Config{Record: "ctrl+shift+f9"}, testLog(t), noKeys{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d.listener = l
	var record string
	var drive func(hotkey.Command) error
	var bound func(string, error)
	c := &closer{}
	d.opt.Session.Shortcut = func(r string, dr func(hotkey.Command) error, b func(string, error)) io.Closer {
		record, drive, bound = r, dr, b
		return c
	}
	cfg := config.Defaults()
	cfg.Hotkeys.Record = "ctrl+shift+f9"
	news := make(chan shortcutNews, 1)
	d.startShortcut(cfg, news).Close()
	if record != "ctrl+shift+f9" || !c.closed {
		t.Fatalf("the route got %q (closed %v)", record, c.closed)
	}
	for _, cmd := range []hotkey.Command{hotkey.CommandToggle, hotkey.CommandRelease} {
		if err := drive(cmd); err != nil {
			t.Fatal(err)
		}
	}
	expectKinds(t, l, hotkey.Start, hotkey.Stop)
	if err := drive(hotkey.Command(0)); err == nil {
		t.Error("an unknown command reached the hotkey")
	}

	refused := errors.New("the desktop's shortcut for dictation was declined in its dialog; bind `whisperkey ptt` to a key instead")
	bound("", refused)
	bound("a second report", nil) // dropped: reported once
	if len(news) != 1 {
		t.Fatalf("%d reports queued, want the first alone", len(news))
	}
	d.onShortcut(<-news) // what the loop does with it
	if !strings.Contains(d.opt.Session.Note, "whisperkey ptt") {
		t.Errorf("session note %q lacks the fix", d.opt.Session.Note)
	}
	if len(note.got) != 1 || !strings.Contains(note.got[0], "declined") {
		t.Errorf("notifications %q, want the refusal once", note.got)
	}
}

func TestRemoteTokenPath(t *testing.T) {
	if got := remoteTokenPath(""); got != "" {
		t.Errorf("no state folder: %q", got)
	}
	if got := remoteTokenPath("/s"); got != filepath.Join("/s", "remote-desktop.token") {
		t.Errorf("%q", got)
	}
}

// The screen locking throws a running recording away, in either mode, so
// nothing is pasted into the lock screen; unlocking starts nothing.
func TestLockThrowsTheRecordingAway(t *testing.T) {
	tests := []struct {
		name  string
		mode  choice.HotkeyMode
		start hotkey.Command
	}{
		{"held", choice.Hold, hotkey.CommandPress},
		{"toggled", choice.Toggle, hotkey.CommandToggle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := testDesk(t, "http://127.0.0.1:1")
			l, err := hotkey.New(hotkey.Config{Record: "ctrl+shift+f9", Mode: tt.mode}, testLog(t), noKeys{})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			d.listener = l
			if err := l.Command(tt.start); err != nil {
				t.Fatal(err)
			}
			d.lockChanged(false)
			d.lockChanged(true)
			expectKinds(t, l, hotkey.Start, hotkey.Cancel)
			select {
			case e := <-l.Events():
				t.Fatalf("after the unlock: %v, want nothing", e.Kind)
			case <-time.After(200 * time.Millisecond):
			}
		})
	}
}
