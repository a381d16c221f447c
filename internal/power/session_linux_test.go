//go:build linux

package power

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// The session's Active and LockedHint on a logind stand-in of the test's own:
// the state found is reported first, then each change of open (active and
// unlocked), and a change that keeps it (locked while already in the
// background) reports nothing.
func TestSessionFromLogind(t *testing.T) {
	addr := testenv.PrivateBus(t)
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", addr)
	logind := testenv.NewLogind(t, addr)
	sess := logind.Session(t, "3")
	got := make(chan bool, 16)
	w, err := WatchSession(slog.New(slog.NewTextHandler(io.Discard, nil)), func(open bool) { got <- open })
	if err != nil {
		t.Fatalf("WatchSession: %v", err)
	}
	defer w.Close()
	expect := func(step string, want bool) {
		t.Helper()
		select {
		case open := <-got:
			if open != want {
				t.Fatalf("%s: open = %v, want %v", step, open, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no report within 5 s", step)
		}
	}
	expect("start", true)
	if open, err := SessionOpen(); err != nil || !open {
		t.Errorf("SessionOpen = %v, %v; want true", open, err)
	}
	steps := []struct {
		prop  string
		value bool
		want  string // "open", "closed" or "" for no report
	}{
		{"LockedHint", true, "closed"},
		{"LockedHint", false, "open"},
		{"Active", false, "closed"}, // another user's session in front
		{"LockedHint", true, ""},    // locked behind it: still closed
		{"Active", true, ""},        // back in front, but locked
		{"LockedHint", false, "open"},
	}
	for i, st := range steps {
		sess.Set(st.prop, st.value)
		name := st.prop + "=" + map[bool]string{true: "true", false: "false"}[st.value]
		if st.want != "" {
			expect(name, st.want == "open")
			continue
		}
		select {
		case open := <-got:
			t.Fatalf("step %d %s: reported open = %v, want no report", i, name, open)
		case <-time.After(300 * time.Millisecond):
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// Without logind, or without a bus, WatchSession and SessionOpen say why.
func TestSessionWithoutLogind(t *testing.T) {
	tests := []struct {
		name string
		bus  func(t testing.TB) string
		want string
	}{
		{"no system bus", func(testing.TB) string { return "unix:path=/nonexistent/whisperkey-test-bus" }, "connect to the system bus"},
		{"a bus without logind", testenv.PrivateBus, "ask logind for this process's session"},
		{"logind without this process's session", func(t testing.TB) string {
			addr := testenv.PrivateBus(t)
			testenv.NewLogind(t, addr)
			return addr
		}, "ask logind for this process's session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", tt.bus(t))
			w, err := WatchSession(slog.New(slog.NewTextHandler(io.Discard, nil)), func(bool) { t.Error("open reported") })
			if err == nil {
				w.Close()
				t.Fatal("WatchSession succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("WatchSession: %v, want it to say %q", err, tt.want)
			}
			if _, err := SessionOpen(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("SessionOpen: %v, want it to say %q", err, tt.want)
			}
		})
	}
}
