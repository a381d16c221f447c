//go:build linux

package evdev

import (
	"bytes"
	"context"
	"encoding/binary"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

// encode writes ev as the kernel does: struct input_event in the machine's
// byte order, a timeval of two longs first (TestKernelLayout checks it
// against the C struct's own memory).
func encode(ev event) []byte {
	b := make([]byte, eventSize)
	sec, usec := ev.at.Unix(), int64(ev.at.Nanosecond()/1000)
	if wordSize == 8 {
		binary.NativeEndian.PutUint64(b, uint64(sec))
		binary.NativeEndian.PutUint64(b[8:], uint64(usec))
	} else {
		binary.NativeEndian.PutUint32(b, uint32(sec))
		binary.NativeEndian.PutUint32(b[4:], uint32(usec))
	}
	rest := b[2*wordSize:]
	binary.NativeEndian.PutUint16(rest, ev.typ)
	binary.NativeEndian.PutUint16(rest[2:], ev.code)
	binary.NativeEndian.PutUint32(rest[4:], uint32(ev.value))
	return b
}

// t0 is when the scripted key events happen; each event is 10 ms after the previous.
var t0 = time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)

// frames encodes key events the way a keyboard driver reports them: each
// key event in its own frame (then SYN_REPORT), from at on.
func frames(at time.Time, keys ...event) []byte {
	var buf bytes.Buffer
	for i, k := range keys {
		ts := at.Add(time.Duration(i) * 10 * time.Millisecond)
		k.at = ts
		buf.Write(encode(k))
		buf.Write(encode(event{at: ts, typ: evSyn, code: synReport}))
	}
	return buf.Bytes()
}

func down(code uint16) event { return event{typ: evKey, code: code, value: keyDown} }
func up(code uint16) event   { return event{typ: evKey, code: code, value: keyUp} }
func rep(code uint16) event  { return event{typ: evKey, code: code, value: keyRepeat} }

// syn is a bare SYN event (SYN_REPORT or SYN_DROPPED).
func syn(code uint16) event { return event{typ: evSyn, code: code} }

// logBuffer is a logger's text, which the test can read (also shown with -v).
type logBuffer struct{ testenv.Buffer }

func newLog(t testing.TB) (*slog.Logger, *logBuffer) {
	lb := new(logBuffer)
	var h slog.Handler = slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})
	if testing.Verbose() {
		h = both{h, testlog.New(t, slog.LevelDebug).Handler()}
	}
	return slog.New(h), lb
}

// waitFor waits up to 5 s for the log to hold every one of words on one line.
func (l *logBuffer) waitFor(t testing.TB, words ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, line := range strings.Split(l.String(), "\n") {
			all := true
			for _, w := range words {
				all = all && strings.Contains(line, w)
			}
			if all {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line with %q in:\n%s", words, l.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// both sends each record to two handlers.
type both [2]slog.Handler

func (b both) Enabled(ctx context.Context, l slog.Level) bool {
	return b[0].Enabled(ctx, l) || b[1].Enabled(ctx, l)
}

func (b both) Handle(ctx context.Context, r slog.Record) error {
	_ = b[0].Handle(ctx, r.Clone())
	return b[1].Handle(ctx, r)
}

func (b both) WithAttrs(a []slog.Attr) slog.Handler {
	return both{b[0].WithAttrs(a), b[1].WithAttrs(a)}
}

func (b both) WithGroup(n string) slog.Handler { return both{b[0].WithGroup(n), b[1].WithGroup(n)} }

func putNative64(b []byte, v uint64) { binary.NativeEndian.PutUint64(b, v) }
func putNative32(b []byte, v uint32) { binary.NativeEndian.PutUint32(b, v) }

// expectRecord waits for the listener's next event: kind, of the record hotkey.
func expectRecord(t testing.TB, l *hotkey.Listener, kind hotkey.Kind) {
	t.Helper()
	select {
	case ev := <-l.Events():
		if ev.Kind != kind || ev.Hotkey != hotkey.Record {
			t.Fatalf("event %s %s, want %s record", ev.Kind, ev.Hotkey, kind)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s event", kind)
	}
}
