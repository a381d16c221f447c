package hotkey

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// The stop after silence ends a recording no key holds (toggle mode's, auto
// mode's after a tap or a double tap) as its next press would, and the next
// press starts a new one; it never ends a held one.
func TestQuietStopsOnlyToggledRecordings(t *testing.T) {
	tests := []struct {
		name   string
		mode   choice.HotkeyMode
		before []step // then quiet
		after  []step
		want   []string
	}{
		{"toggle: speech over", choice.Toggle, []step{{0, "d rec"}, {100, "u rec"}}, []step{{3000, "d rec"}, {3100, "u rec"}},
			[]string{"start/record", "quiet: stop/record", "start/record"}},
		{"toggle: the auto-send key's recording still sends", choice.Toggle, []step{{0, "d send"}, {100, "u send"}}, nil,
			[]string{"start/auto-send", "quiet: stop/auto-send"}},
		{"toggle: stopped by the key already", choice.Toggle, []step{{0, "d rec"}, {100, "u rec"}, {2000, "d rec"}, {2100, "u rec"}}, nil,
			[]string{"start/record", "stop/record"}},
		{"hold: the key holds it", choice.Hold, []step{{0, "d rec"}}, []step{{3000, "u rec"}, {3200, "t"}},
			[]string{"start/record", "stop/record"}},
		{"auto: a tap latched it", choice.Auto, []step{{0, "d rec"}, {100, "u rec"}, {200, "t"}}, []step{{3000, "d rec"}, {3400, "u rec"}, {3500, "t"}},
			[]string{"start/record", "quiet: stop/record", "start/record", "stop/record"}},
		{"auto: a double tap locked it", choice.Auto, []step{{0, "d rec"}, {100, "u rec"}, {200, "t"}, {300, "d rec"}, {400, "u rec"}, {500, "t"}}, nil,
			[]string{"start/record", "quiet: stop/record"}},
		{"auto: the key holds it", choice.Auto, []step{{0, "d rec"}, {2000, "t"}}, []step{{3000, "u rec"}, {3200, "t"}},
			[]string{"start/record", "stop/record"}},
		{"no recording", choice.Toggle, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(tt.mode, 50*time.Millisecond)
			got := run(m, tt.before)
			if ev, ok := m.quiet(); ok {
				got = append(got, fmt.Sprintf("quiet: %s/%s", ev.Kind, ev.Hotkey))
			}
			got = append(got, run(m, tt.after)...)
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
		})
	}
}

// Through the listener: the stop after silence takes the path of a press,
// so the cancel key is given back and the next press starts again.
func TestListenerStopHandsFree(t *testing.T) {
	g := newChanGrabber()
	l := newListener(t, Config{Record: "ctrl+win", Mode: "toggle"}, g)
	g.edge(t, "ctrl+win", true, 0)
	expect(t, l, Start, Record)
	g.edge(t, "ctrl+win", false, 100)
	l.StopHandsFree(t.Context())
	expect(t, l, Stop, Record)
	g.edge(t, "ctrl+win", true, 3000)
	expect(t, l, Start, Record)
}
