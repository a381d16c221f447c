package hotkey

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// step is one synthetic input: "d rec" (down), "u rec" (up), "t" (time passes) on a source.
type step struct {
	at   int // milliseconds since the start
	what string
}

func run(m *machine, steps []step) []string {
	t0 := time.Unix(1000, 0)
	var out []string
	record := func(ev Event, ok bool) {
		if ok {
			out = append(out, fmt.Sprintf("%s/%s", ev.Kind, ev.Hotkey))
		}
	}
	srcs := map[string]source{"rec": srcRecord, "send": srcAutoSend, "esc": srcCancel}
	for _, s := range steps {
		now := t0.Add(time.Duration(s.at) * time.Millisecond)
		for _, ev := range m.tick(now) { // the timer would have fired by now
			record(ev, true)
		}
		op, name, _ := strings.Cut(s.what, " ")
		switch op {
		case "d":
			record(m.down(srcs[name], now))
		case "u":
			m.up(srcs[name], now)
		case "p":
			record(m.interrupt(srcs[name]))
		case "t":
		}
	}
	return out
}

func TestMachine(t *testing.T) {
	tests := []struct {
		name  string
		mode  choice.HotkeyMode
		steps []step
		want  []string
	}{
		{
			name:  "hold: press and release",
			mode:  choice.Hold,
			steps: []step{{0, "d rec"}, {1000, "u rec"}, {1100, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name: "hold: X11 autorepeat pairs while held are not releases",
			mode: choice.Hold,
			steps: []step{{0, "d rec"}, {660, "u rec"}, {660, "d rec"}, {700, "u rec"}, {700, "d rec"},
				{740, "u rec"}, {741, "d rec"}, {2000, "u rec"}, {2100, "t"}},
			want: []string{"start/record", "stop/record"},
		},
		{
			name:  "hold: a down within the debounce cancels the release",
			mode:  choice.Hold,
			steps: []step{{0, "d rec"}, {500, "u rec"}, {530, "d rec"}, {600, "t"}, {900, "u rec"}, {960, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name:  "hold: an up followed by a down after the debounce is a new press",
			mode:  choice.Hold,
			steps: []step{{0, "d rec"}, {500, "u rec"}, {600, "d rec"}, {900, "u rec"}, {1000, "t"}},
			want:  []string{"start/record", "stop/record", "start/record", "stop/record"},
		},
		{
			name:  "hold: one down per combo key and one up per combo key",
			mode:  choice.Hold,
			steps: []step{{0, "d rec"}, {1, "d rec"}, {2, "d rec"}, {800, "u rec"}, {801, "u rec"}, {802, "u rec"}, {900, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name:  "hold: up without down is ignored",
			mode:  choice.Hold,
			steps: []step{{0, "u rec"}, {100, "t"}},
		},
		{
			name:  "hold: cancel while held, release is silent",
			mode:  choice.Hold,
			steps: []step{{0, "d rec"}, {300, "d esc"}, {350, "u esc"}, {800, "u rec"}, {900, "t"}},
			want:  []string{"start/record", "cancel/record"},
		},
		{
			name:  "hold: cancel when idle does nothing",
			mode:  choice.Hold,
			steps: []step{{0, "d esc"}, {10, "u esc"}},
		},
		{
			name:  "hold: auto-send hotkey stops as auto-send",
			mode:  choice.Hold,
			steps: []step{{0, "d send"}, {400, "u send"}, {500, "t"}},
			want:  []string{"start/auto-send", "stop/auto-send"},
		},
		{
			name:  "hold: second hotkey while one is held is ignored",
			mode:  choice.Hold,
			steps: []step{{0, "d rec"}, {100, "d send"}, {200, "u send"}, {300, "t"}, {400, "u rec"}, {500, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name:  "toggle: press starts, next press stops",
			mode:  choice.Toggle,
			steps: []step{{0, "d rec"}, {100, "u rec"}, {2000, "d rec"}, {2100, "u rec"}, {2200, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name: "toggle: autorepeat while held does not toggle",
			mode: choice.Toggle,
			steps: []step{{0, "d rec"}, {660, "u rec"}, {660, "d rec"}, {700, "u rec"}, {700, "d rec"},
				{900, "u rec"}, {3000, "d rec"}, {3100, "u rec"}},
			want: []string{"start/record", "stop/record"},
		},
		{
			name:  "toggle: extra downs from the other combo keys do not toggle",
			mode:  choice.Toggle,
			steps: []step{{0, "d rec"}, {1, "d rec"}, {2, "d rec"}, {100, "u rec"}, {101, "u rec"}, {200, "t"}},
			want:  []string{"start/record"},
		},
		{
			name:  "toggle: auto-send stops a recording started with record",
			mode:  choice.Toggle,
			steps: []step{{0, "d rec"}, {100, "u rec"}, {1000, "d send"}, {1100, "u send"}},
			want:  []string{"start/record", "stop/auto-send"},
		},
		{
			name:  "toggle: cancel discards, the next press starts again",
			mode:  choice.Toggle,
			steps: []step{{0, "d rec"}, {100, "u rec"}, {1000, "d esc"}, {1050, "u esc"}, {2000, "d rec"}, {2100, "u rec"}},
			want:  []string{"start/record", "cancel/record", "start/record"},
		},
		{
			name:  "toggle: cancel repeats are harmless",
			mode:  choice.Toggle,
			steps: []step{{0, "d send"}, {100, "u send"}, {1000, "d esc"}, {1040, "d esc"}, {1080, "d esc"}},
			want:  []string{"start/auto-send", "cancel/auto-send"},
		},
		{
			name:  "hold: another shortcut's key while held ends it as passed; the next press starts",
			mode:  choice.Hold,
			steps: []step{{0, "d rec"}, {200, "p rec"}, {2000, "d rec"}, {3000, "u rec"}, {3100, "t"}},
			want:  []string{"start/record", "passed/record", "start/record", "stop/record"},
		},
		{
			name:  "toggle: another shortcut's key while the starting press is held",
			mode:  choice.Toggle,
			steps: []step{{0, "d rec"}, {200, "p rec"}, {2000, "d rec"}, {2100, "u rec"}},
			want:  []string{"start/record", "passed/record", "start/record"},
		},
		{
			name:  "auto: a key pressed while the stopping press is held changes nothing",
			mode:  choice.Auto,
			steps: []step{{0, "d rec"}, {100, "u rec"}, {2000, "d rec"}, {2100, "p rec"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name:  "auto: a key pressed during the locking tap does not end the lock",
			mode:  choice.Auto,
			steps: []step{{0, "d rec"}, {100, "u rec"}, {250, "d rec"}, {300, "p rec"}, {3000, "d rec"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name:  "auto: a hold is push to talk",
			mode:  choice.Auto,
			steps: []step{{0, "d rec"}, {1500, "u rec"}, {1600, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name:  "auto: a tap records on, the next press stops at its down",
			mode:  choice.Auto,
			steps: []step{{0, "d rec"}, {150, "u rec"}, {3000, "t"}, {5000, "d rec"}, {5150, "u rec"}, {5300, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name:  "auto: a hold just past the tap limit stops at its release",
			mode:  choice.Auto,
			steps: []step{{0, "d rec"}, {300, "u rec"}, {400, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name: "auto: a double tap locks; the lock ends with the next tap",
			mode: choice.Auto,
			steps: []step{{0, "d rec"}, {120, "u rec"}, {250, "d rec"}, {350, "u rec"}, {2000, "t"},
				{6000, "d rec"}, {6100, "u rec"}, {6200, "t"}},
			want: []string{"start/record", "stop/record"},
		},
		{
			name:  "auto: a second press after the double-tap gap stops",
			mode:  choice.Auto,
			steps: []step{{0, "d rec"}, {120, "u rec"}, {600, "d rec"}, {700, "u rec"}, {800, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name:  "auto: autorepeat while held is one hold",
			mode:  choice.Auto,
			steps: []step{{0, "d rec"}, {200, "u rec"}, {200, "d rec"}, {240, "u rec"}, {241, "d rec"}, {1200, "u rec"}, {1300, "t"}},
			want:  []string{"start/record", "stop/record"},
		},
		{
			name:  "auto: cancel after a tap; the next press starts again",
			mode:  choice.Auto,
			steps: []step{{0, "d rec"}, {100, "u rec"}, {1000, "d esc"}, {1050, "u esc"}, {2000, "d rec"}, {3000, "u rec"}, {3100, "t"}},
			want:  []string{"start/record", "cancel/record", "start/record", "stop/record"},
		},
		{
			name:  "auto: auto-send tapped after a tap stops as auto-send",
			mode:  choice.Auto,
			steps: []step{{0, "d rec"}, {100, "u rec"}, {2000, "d send"}, {2100, "u send"}, {2200, "t"}},
			want:  []string{"start/record", "stop/auto-send"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(newMachine(tt.mode, 50*time.Millisecond), tt.steps)
			if !slices.Equal(got, tt.want) {
				t.Errorf("events = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMachineReset(t *testing.T) {
	tests := []struct {
		name       string
		recording  bool
		wantCancel bool
	}{
		{name: "idle", recording: false},
		{name: "recording", recording: true, wantCancel: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMachine(choice.Hold, 50*time.Millisecond)
			now := time.Unix(1000, 0)
			if tt.recording {
				m.down(srcRecord, now)
			}
			ev, ok := m.reset()
			if ok != tt.wantCancel || (ok && ev.Kind != Cancel) {
				t.Fatalf("reset = %v, %v", ev, ok)
			}
			if _, pending := m.deadline(); pending || m.held[srcRecord] {
				t.Fatalf("reset left key state behind")
			}
			// A press after the reset starts a new recording: the old hold is forgotten.
			if ev, ok := m.down(srcRecord, now.Add(time.Second)); !ok || ev.Kind != Start {
				t.Fatalf("press after reset = %v, %v; want start", ev, ok)
			}
		})
	}
}
