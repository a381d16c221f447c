//go:build linux

package evdev

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/power"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// The lock screen and another user's session, as logind reports them (a
// stand-in on a bus of the test's own), shut the keyboards read over a pipe:
// a hold-to-talk recording held when the screen locks stops at once, keys
// typed while locked or in the background start nothing, and a combination
// held across the unlock starts nothing until pressed again. Close stops
// every goroutine.
func TestLockedSessionShutsKeys(t *testing.T) {
	// Registered first, so it runs after every other cleanup (the buses).
	t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreCurrent()) })
	addr := testenv.PrivateBus(t)
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", addr)
	sess := testenv.NewLogind(t, addr).Session(t, "2")

	log, _ := newLog(t)
	g := newGrabber(log)
	kbd := pipe(t)
	g.attach("kbd", kbd.r, nil)
	l, err := hotkey.New(hotkey.Config{Record: "ctrl+win", Mode: choice.Hold}, log, g)
	if err != nil {
		t.Fatal(err)
	}
	states := make(chan bool, 8)
	w, err := power.WatchSession(log, func(open bool) { g.SetOpen(open); states <- open })
	if err != nil {
		t.Fatalf("WatchSession: %v", err)
	}

	send := func(keys ...event) { kbd.send(t, frames(time.Now(), keys...)) }
	state := func(want bool) {
		t.Helper()
		select {
		case open := <-states:
			if open != want {
				t.Fatalf("session open = %v, want %v", open, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no session state (want open = %v)", want)
		}
	}
	nothing := func(why string) {
		t.Helper()
		select {
		case ev := <-l.Events():
			t.Fatalf("%s: event %s %s, want none", why, ev.Kind, ev.Hotkey)
		case <-time.After(300 * time.Millisecond):
		}
	}

	state(true) // the state found at the start
	send(down(keyLeftCtrl), down(keyLeftMeta))
	expectRecord(t, l, hotkey.Start)
	sess.Set("LockedHint", true)
	state(false)
	expectRecord(t, l, hotkey.Stop) // released as the lock came, though still held
	send(up(keyLeftMeta), down(keyLeftMeta))
	nothing("pressed again on the lock screen")

	sess.Set("LockedHint", false)
	state(true)
	send(rep(keyLeftMeta))
	nothing("held across the unlock")
	send(up(keyLeftMeta), down(keyLeftMeta))
	expectRecord(t, l, hotkey.Start) // pressed again after the unlock
	send(up(keyLeftMeta), up(keyLeftCtrl))
	expectRecord(t, l, hotkey.Stop)

	sess.Set("Active", false) // another user's session in front
	state(false)
	send(down(keyLeftCtrl), down(keyLeftMeta), up(keyLeftMeta), up(keyLeftCtrl))
	nothing("pressed in another user's session")
	sess.Set("Active", true)
	state(true)
	send(down(keyRightCtrl), down(keyRightMeta))
	expectRecord(t, l, hotkey.Start)
	send(up(keyRightMeta), up(keyRightCtrl))
	expectRecord(t, l, hotkey.Stop)

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	closeWithin(t, g)
}
