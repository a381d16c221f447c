package hotkey

import (
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// chanGrabber stands in for the OS: a test presses keys by sending edges into the grab of a combination.
type chanGrabber struct {
	mu     sync.Mutex
	t0     time.Time // edges are stamped t0 + the step's milliseconds
	taken  map[Combo]bool
	active map[Combo]*chanGrab
	calls  []string
}

type chanGrab struct {
	g     *chanGrabber
	c     Combo
	edges chan Edge
}

func newChanGrabber(taken ...string) *chanGrabber {
	g := &chanGrabber{t0: time.Now(), taken: map[Combo]bool{}, active: map[Combo]*chanGrab{}}
	for _, s := range taken {
		g.taken[mustParse(s)] = true
	}
	return g
}

func (g *chanGrabber) Grab(c Combo) (Grab, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.taken[c] || g.active[c] != nil {
		g.calls = append(g.calls, "taken "+c.String())
		return nil, ErrTaken
	}
	gr := &chanGrab{g: g, c: c, edges: make(chan Edge)}
	g.active[c] = gr
	g.calls = append(g.calls, "grab "+c.String())
	return gr, nil
}

func (gr *chanGrab) Edges() <-chan Edge { return gr.edges }

func (gr *chanGrab) Release() error {
	gr.g.mu.Lock()
	defer gr.g.mu.Unlock()
	delete(gr.g.active, gr.c)
	gr.g.calls = append(gr.g.calls, "release "+gr.c.String())
	return nil
}

// edge delivers a key edge, stamped ms after the start, to the grab of combo s; it fails
// the test if s is not registered.
func (g *chanGrabber) edge(t *testing.T, s string, down bool, ms int) {
	t.Helper()
	g.send(t, s, Edge{Down: down, At: g.t0.Add(time.Duration(ms) * time.Millisecond)})
}

// send delivers e to the grab of combo s.
func (g *chanGrabber) send(t *testing.T, s string, e Edge) {
	t.Helper()
	g.mu.Lock()
	gr := g.active[mustParse(s)]
	g.mu.Unlock()
	if gr == nil {
		t.Fatalf("%s is not registered; calls: %v", s, g.log())
	}
	select {
	case gr.edges <- e:
	case <-time.After(5 * time.Second):
		t.Fatalf("listener did not take the edge for %s", s)
	}
}

func (g *chanGrabber) registered(s string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.active[mustParse(s)] != nil
}

func (g *chanGrabber) log() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.calls)
}

// keyboardGrabber adds a readable keyboard, as the X11 grabber has.
type keyboardGrabber struct {
	*chanGrabber
	mu   sync.Mutex
	down map[Combo]bool
}

func (k *keyboardGrabber) ComboDown(c Combo) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.down[c], nil
}

func (k *keyboardGrabber) set(s string, down bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.down[mustParse(s)] = down
}

func testLogger(t *testing.T) *slog.Logger { return testlog.New(t, slog.LevelDebug) }

func next(t *testing.T, l *Listener) Event {
	t.Helper()
	select {
	case ev, ok := <-l.Events():
		if !ok {
			t.Fatal("events closed")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return Event{}
}

func expect(t *testing.T, l *Listener, kind Kind, h Hotkey) Event {
	t.Helper()
	ev := next(t, l)
	if ev.Kind != kind || ev.Hotkey != h {
		t.Fatalf("got %s/%s (err %v), want %s/%s", ev.Kind, ev.Hotkey, ev.Err, kind, h)
	}
	return ev
}

func newListener(t *testing.T, cfg Config, g Grabber) *Listener {
	t.Helper()
	l, err := New(cfg, testLogger(t), g)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestListenerHold(t *testing.T) {
	g := newChanGrabber()
	l := newListener(t, Config{Record: "ctrl+shift+f9", Mode: "hold"}, g)

	if g.registered("esc") {
		t.Fatal("cancel key registered while idle: it would steal Esc from other applications")
	}
	g.edge(t, "ctrl+shift+f9", true, 0)
	expect(t, l, Start, Record)
	g.edge(t, "ctrl+shift+f9", true, 1) // X11: one down per key of the combination
	g.edge(t, "ctrl+shift+f9", false, 70)
	g.edge(t, "ctrl+shift+f9", true, 70) // autorepeat pair: not a release
	g.edge(t, "ctrl+shift+f9", false, 90)
	expect(t, l, Stop, Record) // from the debounce timer
	if g.registered("esc") {
		t.Fatal("cancel key still registered after the recording stopped")
	}
	want := []string{"grab ctrl+shift+f9", "grab esc", "grab ctrl+shift+esc", "release esc", "release ctrl+shift+esc"}
	if got := g.log(); !slices.Equal(got, want) {
		t.Fatalf("grabber calls = %v, want %v", got, want)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, ok := <-l.Events(); ok {
		t.Fatal("Events not closed by Close")
	}
	if g.registered("ctrl+shift+f9") {
		t.Fatal("Close left the hotkey registered")
	}
}

func TestListenerToggleCancelAndAutoSend(t *testing.T) {
	g := newChanGrabber()
	l := newListener(t, Config{Record: "ctrl+win", AutoSend: "ctrl+shift+enter", Mode: "toggle"}, g)

	g.edge(t, "ctrl+win", true, 0)
	expect(t, l, Start, Record)
	g.edge(t, "ctrl+win", false, 100)
	g.edge(t, "esc", true, 1000)
	expect(t, l, Cancel, Record)
	g.edge(t, "ctrl+shift+enter", true, 2000)
	expect(t, l, Start, AutoSend)
	g.edge(t, "ctrl+shift+enter", false, 2100)
	g.edge(t, "ctrl+shift+enter", true, 3000)
	expect(t, l, Stop, AutoSend)
	if g.registered("esc") || g.registered("ctrl+win+esc") {
		t.Fatalf("cancel registrations left behind: %v", g.log())
	}
}

// The edit hotkey records like the record key; its events name it, so the
// app knows the words are an instruction, and its cancel variant carries its
// own modifiers.
func TestListenerEditHotkey(t *testing.T) {
	g := newChanGrabber()
	l := newListener(t, Config{Record: "ctrl+win", Edit: "ctrl+alt+e"}, g)

	recordsLikeRecord(t, g, l, "ctrl+alt+e", Edit)
	g.edge(t, "ctrl+win", true, 2000)
	expect(t, l, Start, Record)
}

// recordsLikeRecord holds key (a ctrl+alt combination) from 0 to 500 ms and
// again from 1000, then presses its cancel variant, ctrl+alt+esc: each event
// names h, a start, a stop, a start and a cancel.
func recordsLikeRecord(t *testing.T, g *chanGrabber, l *Listener, key string, h Hotkey) {
	t.Helper()
	g.edge(t, key, true, 0)
	expect(t, l, Start, h)
	g.edge(t, key, false, 500)
	expect(t, l, Stop, h)
	g.edge(t, key, true, 1000)
	expect(t, l, Start, h)
	if !g.registered("ctrl+alt+esc") {
		t.Fatalf("no cancel variant with the modifiers of %s: %v", key, g.log())
	}
	g.edge(t, "ctrl+alt+esc", true, 1200)
	expect(t, l, Cancel, h)
}

func TestListenerConflict(t *testing.T) {
	g := newChanGrabber("ctrl+shift+space")
	l := newListener(t, Config{Record: "ctrl+shift+space", AutoSend: "ctrl+alt+space", Mode: "toggle"}, g)

	ev := next(t, l)
	if ev.Kind != Problem || !errors.Is(ev.Err, ErrTaken) {
		t.Fatalf("got %v, want a Problem wrapping ErrTaken", ev)
	}
	const want = "ctrl+shift+space is already taken by another application; choose another in config hotkeys.record"
	if ev.Err.Error() != want {
		t.Fatalf("message = %q, want %q", ev.Err, want)
	}
	// The other hotkey still works.
	g.edge(t, "ctrl+alt+space", true, 0)
	expect(t, l, Start, AutoSend)

	// Re-registering reports the same problem again, and cancels the recording in progress.
	err := l.Reregister()
	if !errors.Is(err, ErrTaken) {
		t.Fatalf("Reregister = %v, want ErrTaken", err)
	}
	expect(t, l, Cancel, AutoSend)
	if ev := next(t, l); ev.Kind != Problem {
		t.Fatalf("got %v, want the Problem again", ev)
	}
	g.edge(t, "ctrl+alt+space", true, 100) // the old hold is forgotten: a new press
	expect(t, l, Start, AutoSend)
}

func TestListenerCancelTaken(t *testing.T) {
	g := newChanGrabber("esc")
	l := newListener(t, Config{Record: "f9", Mode: "toggle"}, g)
	g.edge(t, "f9", true, 0)
	expect(t, l, Start, Record)
	if ev := next(t, l); ev.Kind != Problem || ev.Err.Error() != "esc is already taken by another application; choose another in config hotkeys.cancel" {
		t.Fatalf("got %v, want the cancel problem", ev)
	}
	g.edge(t, "f9", false, 100)
	g.edge(t, "f9", true, 1000)
	expect(t, l, Stop, Record)
	g.edge(t, "f9", false, 1100)
	g.edge(t, "f9", true, 2000)
	expect(t, l, Start, Record) // the problem is reported once, not on every recording
	g.edge(t, "f9", false, 2100)
	g.edge(t, "f9", true, 3000)
	expect(t, l, Stop, Record)
}

func TestListenerKeyState(t *testing.T) {
	k := &keyboardGrabber{chanGrabber: newChanGrabber(), down: map[Combo]bool{}}
	// The auto-send hotkey only serves to know the listener is done with an edge: the
	// loop takes the next edge only after it has read the key state for the last one.
	l := newListener(t, Config{Record: "ctrl+shift+f9", AutoSend: "ctrl+alt+f10", Mode: "hold"}, k)
	edge := func(down bool, ms int) {
		k.edge(t, "ctrl+shift+f9", down, ms)
		k.edge(t, "ctrl+alt+f10", false, ms)
	}

	// A key pressed on the root window reaches every grab on X11: not the hotkey.
	edge(true, 0)
	k.set("ctrl+shift+f9", true)
	edge(true, 10)
	expect(t, l, Start, Record)

	// Another key going up while the combination is still down is not a release,
	// however long it stands.
	edge(false, 100)
	// Esc while the record grab holds the keyboard arrives on the record grab.
	k.set("esc", true)
	edge(true, 1000)
	expect(t, l, Cancel, Record)
	// Releasing everything after a cancel is silent.
	k.set("esc", false)
	k.set("ctrl+shift+f9", false)
	edge(false, 1100)
	// A new press starts again.
	k.set("ctrl+shift+f9", true)
	edge(true, 2000)
	expect(t, l, Start, Record)
}

// Edges the grabber is sure of are taken as they are, whatever the keyboard shows
// when the Listener gets to them: under load a quick tap is already released, and a
// release may be followed by the next press, before the Listener reads the keyboard.
func TestListenerSureEdges(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mode  choice.HotkeyMode
		steps []Edge // Sure edges of the record hotkey, in order
		keys  bool   // what the keyboard shows meanwhile
		want  []Kind
	}{
		{name: "tap already released, toggle", mode: "toggle", keys: false,
			steps: []Edge{{Down: true}, {Down: false}, {Down: true}, {Down: false}}, want: []Kind{Start, Stop}},
		{name: "tap already released, hold", mode: "hold", keys: false,
			steps: []Edge{{Down: true}, {Down: false}}, want: []Kind{Start, Stop}},
		{name: "release then pressed again, hold", mode: "hold", keys: true,
			steps: []Edge{{Down: true}, {Down: false}, {Down: true}}, want: []Kind{Start, Stop, Start}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &keyboardGrabber{chanGrabber: newChanGrabber(), down: map[Combo]bool{}}
			k.set("ctrl+shift+f9", tc.keys)
			l := newListener(t, Config{Record: "ctrl+shift+f9", Mode: tc.mode}, k)
			for i, e := range tc.steps {
				e.Sure, e.At = true, k.t0.Add(time.Duration(i)*time.Millisecond)
				k.send(t, "ctrl+shift+f9", e)
			}
			for _, kind := range tc.want {
				expect(t, l, kind, Record)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		g    Grabber
	}{
		{name: "bad combo", cfg: Config{Record: "ctrl+spce"}, g: newChanGrabber()},
		{name: "no grabber", cfg: Config{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if l, err := New(tt.cfg, testLogger(t), tt.g); err == nil {
				l.Close()
				t.Fatal("New succeeded")
			}
		})
	}
}

// Reconfigure swaps combinations and mode in place: the same Events channel
// carries the new hotkey's events, a recording in progress is cancelled, and
// an invalid config changes nothing.
func TestListenerReconfigure(t *testing.T) {
	g := newChanGrabber()
	l := newListener(t, Config{Record: "ctrl+shift+f9", Mode: "hold"}, g)
	events := l.Events()

	g.edge(t, "ctrl+shift+f9", true, 0)
	expect(t, l, Start, Record)
	if err := l.Reconfigure(Config{Record: "ctrl+alt+r", Mode: "toggle"}); err != nil {
		t.Fatalf("Reconfigure: %v", err)
	}
	expect(t, l, Cancel, Record) // the held key's release would never arrive
	if g.registered("ctrl+shift+f9") || !g.registered("ctrl+alt+r") {
		t.Fatalf("after Reconfigure: calls %v", g.log())
	}
	if l.Events() != events {
		t.Fatal("Events changed across Reconfigure")
	}
	g.edge(t, "ctrl+alt+r", true, 1000)
	expect(t, l, Start, Record)
	g.edge(t, "ctrl+alt+r", false, 1100)
	g.edge(t, "ctrl+alt+r", true, 2000)
	expect(t, l, Stop, Record) // toggle: the second press stops

	if err := l.Reconfigure(Config{Record: "ctrl+alt+r", Mode: "sideways"}); err == nil {
		t.Fatal("Reconfigure accepted mode sideways")
	}
	if !g.registered("ctrl+alt+r") {
		t.Fatalf("a rejected Reconfigure unregistered the hotkey: %v", g.log())
	}
	if err := l.Reconfigure(Config{Record: "ctrl+shift+space"}); err != nil {
		t.Fatalf("Reconfigure: %v", err)
	}
	g.mu.Lock()
	g.taken[mustParse("ctrl+alt+q")] = true
	g.mu.Unlock()
	err := l.Reconfigure(Config{Record: "ctrl+alt+q"})
	var re *RegisterError
	if !errors.As(err, &re) || re.Key != ConfigRecord {
		t.Fatalf("Reconfigure to a taken combination: err = %v, want a RegisterError for %s", err, ConfigRecord)
	}
	if ev := next(t, l); ev.Kind != Problem {
		t.Fatalf("got %s, want the Problem event for the taken combination", ev.Kind)
	}
}

// resumingGrabber is a grabber that hears about the session, as the Windows one does.
type resumingGrabber struct {
	*chanGrabber
	renewals chan Renewal
}

func (r *resumingGrabber) Resumed() <-chan Renewal { return r.renewals }

// Every renewal registers the hotkeys again; only a session's return (unlock,
// resume) is passed on, so that the app re-checks the microphone and the
// engine then and not at every keyboard layout switch.
func TestListenerRenewals(t *testing.T) {
	tests := []struct {
		name      string
		renewal   Renewal
		wantEvent bool
	}{
		{name: "resume", renewal: Renewal{Reason: "resumed from sleep", Session: true}, wantEvent: true},
		{name: "layout switch", renewal: Renewal{Reason: "keyboard mapping changed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &resumingGrabber{chanGrabber: newChanGrabber(), renewals: make(chan Renewal)}
			l := newListener(t, Config{Record: "ctrl+shift+f9", Mode: "hold"}, g)
			g.renewals <- tt.renewal
			if tt.wantEvent {
				if ev := next(t, l); ev.Kind != Renewed || ev.Reason != tt.renewal.Reason {
					t.Fatalf("got %+v, want Renewed %q", ev, tt.renewal.Reason)
				}
			}
			// The hotkey was released and registered again, and still works.
			deadline := time.Now().Add(5 * time.Second)
			for !slices.Contains(g.log()[1:], "grab ctrl+shift+f9") && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if calls := g.log(); !slices.Contains(calls[1:], "grab ctrl+shift+f9") {
				t.Fatalf("not registered again: %v", calls)
			}
			g.edge(t, "ctrl+shift+f9", true, 0)
			expect(t, l, Start, Record) // the first event: a layout switch gave none
		})
	}
}

// The paste-again and undo hotkeys act once per press: X11's autorepeat
// (up and down pairs while the key stays down) is not a new press, and a
// release the keyboard confirms lets the next press through.
func TestListenerPressedOncePerPress(t *testing.T) {
	k := &keyboardGrabber{chanGrabber: newChanGrabber(), down: map[Combo]bool{}}
	l := newListener(t, Config{Record: "ctrl+shift+f9", PasteAgain: "ctrl+alt+v", Undo: "ctrl+alt+z"}, k)
	// A press on the record key only serves to know the listener took the
	// edges before it: its Start comes after whatever they gave.
	fence := func(ms int) {
		k.set("ctrl+shift+f9", true)
		k.edge(t, "ctrl+shift+f9", true, ms)
		expect(t, l, Start, Record)
		k.set("ctrl+shift+f9", false)
		k.edge(t, "ctrl+shift+f9", false, ms+1)
		expect(t, l, Stop, Record)
	}

	k.set("ctrl+alt+v", true)
	k.edge(t, "ctrl+alt+v", true, 0)
	expect(t, l, Pressed, PasteAgain)
	for ms := 10; ms < 100; ms += 30 { // autorepeat while held
		k.edge(t, "ctrl+alt+v", false, ms)
		k.edge(t, "ctrl+alt+v", true, ms+1)
	}
	fence(200)
	k.set("ctrl+alt+v", false)
	k.edge(t, "ctrl+alt+v", false, 300)
	// A key pressed on the root window that is not the combination.
	k.edge(t, "ctrl+alt+z", true, 350)
	fence(400)

	k.set("ctrl+alt+z", true)
	k.edge(t, "ctrl+alt+z", true, 500)
	expect(t, l, Pressed, Undo)
	k.set("ctrl+alt+z", false)
	k.edge(t, "ctrl+alt+z", false, 550)
	fence(560)
	k.set("ctrl+alt+z", true)
	k.edge(t, "ctrl+alt+z", true, 600)
	expect(t, l, Pressed, Undo)
}

func TestPasteAgainAndUndoMustDiffer(t *testing.T) {
	for _, cfg := range []Config{{Record: "ctrl+alt+z", Undo: "ctrl+alt+z"}, {PasteAgain: "ctrl+alt+v", Undo: "ctrl+alt+v"},
		{AutoSend: "ctrl+alt+v", PasteAgain: "ctrl+alt+v"}} {
		if l, err := New(cfg, testLogger(t), newChanGrabber()); err == nil {
			l.Close()
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

// A compositor's key binding (`whisperkey ptt …`) drives the record hotkey
// through the same machine as the OS grab, in both modes.
func TestListenerCommands(t *testing.T) {
	type step struct {
		cmd  Command
		want Kind // 0: no event
	}
	tests := []struct {
		name  string
		mode  choice.HotkeyMode
		steps []step
	}{
		{"hold: press, release", "hold", []step{{CommandPress, Start}, {CommandPress, 0}, {CommandRelease, Stop}, {CommandRelease, 0}}},
		{"hold: toggle twice", "hold", []step{{CommandToggle, Start}, {CommandToggle, Stop}}},
		{"hold: toggle stops a press", "hold", []step{{CommandPress, Start}, {CommandToggle, Stop}}},
		{"toggle: press, release, press", "toggle", []step{{CommandPress, Start}, {CommandRelease, 0}, {CommandPress, Stop}, {CommandRelease, 0}}},
		{"toggle: toggle twice", "toggle", []step{{CommandToggle, Start}, {CommandToggle, Stop}, {CommandToggle, Start}}},
		{"release alone does nothing", "hold", []step{{CommandRelease, 0}, {CommandToggle, Start}}},
		{"hold: cancel while held, the release is silent", "hold", []step{{CommandPress, Start}, {CommandCancel, Cancel}, {CommandRelease, 0}, {CommandPress, Start}}},
		{"toggle: cancel, then a new recording", "toggle", []step{{CommandToggle, Start}, {CommandCancel, Cancel}, {CommandToggle, Start}}},
		{"cancel with nothing recording does nothing", "hold", []step{{CommandCancel, 0}, {CommandPress, Start}}},
		{"auto: toggle twice", "auto", []step{{CommandToggle, Start}, {CommandToggle, Stop}, {CommandToggle, Start}}},
		{"auto: toggle stops a press however short", "auto", []step{{CommandPress, Start}, {CommandToggle, Stop}, {CommandRelease, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newChanGrabber()
			l := newListener(t, Config{Record: "ctrl+shift+f9", Mode: tt.mode}, g)
			for i, s := range tt.steps {
				if err := l.Command(s.cmd); err != nil {
					t.Fatalf("step %d %s: %v", i, s.cmd, err)
				}
				if s.want != 0 {
					expect(t, l, s.want, Record)
					continue
				}
				select {
				case ev := <-l.Events():
					t.Fatalf("step %d %s: got %s, want no event", i, s.cmd, ev.Kind)
				case <-time.After(100 * time.Millisecond):
				}
			}
			if first := tt.steps[0].cmd; first != CommandRelease && first != CommandCancel && !slices.Contains(g.log(), "grab esc") {
				t.Fatalf("the cancel key was not registered while recording: %v", g.log())
			}
		})
	}
	t.Run("after Close", func(t *testing.T) {
		l := newListener(t, Config{Record: "ctrl+shift+f9"}, newChanGrabber())
		l.Close()
		if err := l.Command(CommandPress); err == nil {
			t.Fatal("Command after Close: no error")
		}
	})
}

func TestParseCommand(t *testing.T) {
	for _, c := range []Command{CommandPress, CommandRelease, CommandToggle, CommandCancel} {
		if got, err := ParseCommand(c.String()); err != nil || got != c {
			t.Errorf("ParseCommand(%q) = %v, %v", c.String(), got, err)
		}
	}
	if _, err := ParseCommand("hold"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"press", "release", "toggle" or "cancel"`) {
		t.Errorf("ParseCommand(hold) error %v does not list the commands", err)
	}
}
