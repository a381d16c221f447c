//go:build linux

package evdev

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/tabletest"
)

// Linux key codes the scripts press.
const (
	kEsc   = 1
	kA     = 30
	kSpace = 57
	kF9    = 67
)

// step is what one keyboard sends at once, or, with gate set, the session
// locking (closed) or unlocking (open).
type step struct {
	dev  string
	data []byte
	gate string
}

// Gate steps: the session is locked or goes to the background, or comes back.
var (
	lock   = step{gate: "closed"}
	unlock = step{gate: "open"}
)

// on is a step of single-event frames on dev.
func on(dev string, keys ...event) step { return step{dev: dev, data: frames(t0, keys...)} }

// raw is a step of events exactly as given, SYN events included.
func raw(dev string, evs ...event) step {
	var b []byte
	for _, e := range evs {
		e.at = t0
		b = append(b, encode(e)...)
	}
	return step{dev: dev, data: b}
}

// play registers combos (name → combination) on a board, feeds the steps
// through each keyboard's stream as bytes, and returns the edges in order as
// "name↓" and "name↑".
func play(t *testing.T, combos map[string]string, steps []step, read func(io.Reader) io.Reader) []string {
	t.Helper()
	b := newBoard()
	names := map[*keyGrab]string{}
	for name, s := range combos {
		c, err := hotkey.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		names[b.add(c)] = name
	}
	streams := map[string]*stream{}
	var got []string
	record := func(out []fired) {
		for _, f := range out {
			if !f.edge.Sure || f.edge.At.IsZero() {
				t.Errorf("edge %+v: want sure and timed", f.edge)
			}
			arrow := "↑"
			if f.edge.Down {
				arrow = "↓"
			}
			got = append(got, names[f.g]+arrow)
		}
	}
	for _, st := range steps {
		if st.gate != "" {
			record(b.setShut(st.gate == "closed", t0))
			continue
		}
		s := streams[st.dev]
		if s == nil {
			s = &stream{dev: st.dev, board: b}
			streams[st.dev] = s
		}
		var r io.Reader = bytes.NewReader(st.data)
		if read != nil {
			r = read(r)
		}
		err := s.run(r, record)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("run: %v, want io.EOF at the end of the bytes", err)
		}
	}
	return got
}

func TestCombinations(t *testing.T) {
	record := map[string]string{"rec": "ctrl+win"}
	tests := []struct {
		name   string
		combos map[string]string
		steps  []step
		want   []string
	}{
		{"ctrl then win, win released", record,
			[]step{on("kbd", down(keyLeftCtrl), down(keyLeftMeta), up(keyLeftMeta), up(keyLeftCtrl))},
			[]string{"rec↓", "rec↑"}},
		{"win then ctrl, ctrl released", record,
			[]step{on("kbd", down(keyLeftMeta), down(keyLeftCtrl), up(keyLeftCtrl), up(keyLeftMeta))},
			[]string{"rec↓", "rec↑"}},
		{"right-hand modifiers", record,
			[]step{on("kbd", down(keyRightCtrl), down(keyRightMeta), up(keyRightCtrl))},
			[]string{"rec↓", "rec↑"}},
		{"autorepeat of a held modifier-only combination", record,
			[]step{on("kbd", down(keyLeftCtrl), down(keyLeftMeta), rep(keyLeftMeta), rep(keyLeftMeta), up(keyLeftMeta))},
			[]string{"rec↓", "rec↑"}},
		{"extra modifier held first: no match", record,
			[]step{on("kbd", down(keyLeftShift), down(keyLeftCtrl), down(keyLeftMeta), up(keyLeftMeta))},
			nil},
		{"a letter held first: ctrl+win is a shortcut being typed, no match", record,
			[]step{on("kbd", down(kA), down(keyLeftCtrl), down(keyLeftMeta))},
			nil},
		{"ctrl alone is nothing", record,
			[]step{on("kbd", down(keyLeftCtrl), up(keyLeftCtrl))},
			nil},
		{"extra modifier while held changes nothing; losing ctrl is the up", record,
			[]step{on("kbd", down(keyLeftCtrl), down(keyLeftMeta), down(keyLeftShift), up(keyLeftShift), up(keyLeftCtrl))},
			[]string{"rec↓", "rec↑"}},
		{"ctrl+shift+space, space repeats, space released",
			map[string]string{"rec": "ctrl+shift+space"},
			[]step{on("kbd", down(keyLeftCtrl), down(keyLeftShift), down(kSpace), rep(kSpace), rep(kSpace), rep(kSpace), up(kSpace))},
			[]string{"rec↓", "rec↑"}},
		{"ctrl+shift+space, modifiers in the other order, ctrl released first",
			map[string]string{"rec": "ctrl+shift+space"},
			[]step{on("kbd", down(keyRightShift), down(keyLeftCtrl), down(kSpace), up(keyLeftCtrl), up(kSpace))},
			[]string{"rec↓", "rec↑"}},
		{"ctrl+shift+space with alt held too: no match",
			map[string]string{"rec": "ctrl+shift+space"},
			[]step{on("kbd", down(keyLeftAlt), down(keyLeftCtrl), down(keyLeftShift), down(kSpace), up(kSpace))},
			nil},
		{"ctrl+space while ctrl+shift are held: no match",
			map[string]string{"rec": "ctrl+space"},
			[]step{on("kbd", down(keyLeftCtrl), down(keyLeftShift), down(kSpace))},
			nil},
		{"space before its modifiers: no match",
			map[string]string{"rec": "ctrl+shift+space"},
			[]step{on("kbd", down(kSpace), down(keyLeftCtrl), down(keyLeftShift), up(kSpace))},
			nil},
		{"right ctrl alone", map[string]string{"rc": "rctrl"},
			[]step{on("kbd", down(keyRightCtrl), rep(keyRightCtrl), up(keyRightCtrl))},
			[]string{"rc↓", "rc↑"}},
		{"left ctrl is not right ctrl", map[string]string{"rc": "rctrl"},
			[]step{on("kbd", down(keyLeftCtrl), up(keyLeftCtrl))},
			nil},
		{"right ctrl after shift is another shortcut", map[string]string{"rc": "rctrl"},
			[]step{on("kbd", down(keyLeftShift), down(keyRightCtrl), up(keyRightCtrl))},
			nil},
		{"right alt alone", map[string]string{"ra": "ralt"},
			[]step{on("kbd", down(keyRightAlt), up(keyRightAlt))},
			[]string{"ra↓", "ra↑"}},
		{"a lone f9, twice, with autorepeat",
			map[string]string{"f9": "f9"},
			[]step{on("kbd", down(kF9), rep(kF9), up(kF9), down(kF9), up(kF9))},
			[]string{"f9↓", "f9↑", "f9↓", "f9↑"}},
		{"f9 with ctrl held is another shortcut",
			map[string]string{"f9": "f9"},
			[]step{on("kbd", down(keyLeftCtrl), down(kF9), up(kF9))},
			nil},
		{"modifier on one keyboard, key on another",
			map[string]string{"rec": "ctrl+shift+space"},
			[]step{on("laptop", down(keyLeftCtrl), down(keyLeftShift)), on("usb", down(kSpace)), on("laptop", up(keyLeftShift))},
			[]string{"rec↓", "rec↑"}},
		{"ctrl on one keyboard, win on the other", record,
			[]step{on("laptop", down(keyLeftCtrl)), on("usb", down(keyLeftMeta)), on("usb", up(keyLeftMeta))},
			[]string{"rec↓", "rec↑"}},
		{"ctrl held on both keyboards: up only when the last is released", record,
			[]step{on("laptop", down(keyLeftCtrl)), on("usb", down(keyLeftCtrl), down(keyLeftMeta)),
				on("laptop", up(keyLeftCtrl)), on("usb", up(keyLeftCtrl))},
			[]string{"rec↓", "rec↑"}},
		{"shift on another keyboard spoils the match", record,
			[]step{on("usb", down(keyLeftShift)), on("laptop", down(keyLeftCtrl), down(keyLeftMeta))},
			nil},
		{"cancel while recording: esc with the record hotkey held is its own variant",
			map[string]string{"rec": "ctrl+win", "cancel": "esc", "cancelHeld": "ctrl+win+esc"},
			[]step{on("kbd", down(keyLeftCtrl), down(keyLeftMeta), down(kEsc), up(kEsc), up(keyLeftMeta), up(keyLeftCtrl), down(kEsc), up(kEsc))},
			[]string{"rec↓", "cancelHeld↓", "cancelHeld↑", "rec↑", "cancel↓", "cancel↑"}},
		{"one frame holding both modifiers", record,
			[]step{raw("kbd", down(keyLeftCtrl), down(keyLeftMeta), syn(synReport), up(keyLeftCtrl), syn(synReport))},
			[]string{"rec↓", "rec↑"}},
		{"a frame without its SYN_REPORT is not applied", record,
			[]step{raw("kbd", down(keyLeftCtrl), syn(synReport), down(keyLeftMeta))},
			nil},
		{"SYN_DROPPED: the rest of the frame is lost, then all keys count as up", record,
			[]step{on("kbd", down(keyLeftCtrl), down(keyLeftMeta)),
				raw("kbd", up(kA), syn(synDropped), down(kSpace), syn(synReport)),
				on("kbd", down(keyLeftCtrl), down(keyLeftMeta), up(keyLeftMeta))},
			[]string{"rec↓", "rec↑", "rec↓", "rec↑"}},
		{"SYN_DROPPED mid-frame drops the press it held", map[string]string{"f9": "f9"},
			[]step{raw("kbd", down(kF9), syn(synDropped), up(kF9), syn(synReport), down(kF9))},
			nil},
		{"SYN_DROPPED on one keyboard keeps the other's keys", record,
			[]step{on("laptop", down(keyLeftCtrl)), on("usb", down(kA)), raw("usb", syn(synDropped), syn(synReport)),
				on("laptop", down(keyLeftMeta))},
			[]string{"rec↓"}},
		// The session locked or in the background: the keys are the lock
		// screen's or another user's.
		{"locked: nothing fires", record,
			[]step{lock, on("kbd", down(keyLeftCtrl), down(keyLeftMeta), up(keyLeftMeta), up(keyLeftCtrl))},
			nil},
		{"held when the lock comes: released at once, its keys' ups then change nothing", record,
			[]step{on("kbd", down(keyLeftCtrl), down(keyLeftMeta)), lock, on("kbd", up(keyLeftMeta), up(keyLeftCtrl))},
			[]string{"rec↓", "rec↑"}},
		{"held across the lock and the unlock: nothing until pressed again", record,
			[]step{on("kbd", down(keyLeftCtrl), down(keyLeftMeta)), lock, unlock, on("kbd", up(keyLeftMeta), down(keyLeftMeta), up(keyLeftCtrl))},
			[]string{"rec↓", "rec↑", "rec↓", "rec↑"}},
		{"pressed while locked, held across the unlock: nothing until pressed again", map[string]string{"f9": "f9"},
			[]step{lock, on("kbd", down(kF9)), unlock, on("kbd", rep(kF9), up(kF9), down(kF9), up(kF9))},
			[]string{"f9↓", "f9↑"}},
		{"a modifier held across the unlock counts toward a combination", record,
			[]step{lock, on("kbd", down(keyLeftCtrl)), unlock, on("kbd", down(keyLeftMeta), up(keyLeftMeta))},
			[]string{"rec↓", "rec↑"}},
		{"a letter typed while locked and still held spoils the match after the unlock", record,
			[]step{lock, on("kbd", down(kA)), unlock, on("kbd", down(keyLeftCtrl), down(keyLeftMeta))},
			nil},
		{"locked twice, unlocked twice: one release", map[string]string{"f9": "f9"},
			[]step{on("kbd", down(kF9)), lock, lock, unlock, unlock, on("kbd", up(kF9), down(kF9))},
			[]string{"f9↓", "f9↑", "f9↓"}},
		{"events of other types are ignored", map[string]string{"f9": "f9"},
			[]step{raw("kbd", event{typ: 0x04, code: 4, value: 0x3a}, down(kF9), syn(synReport), event{typ: 0x11, code: 1, value: 1}, up(kF9), syn(synReport))},
			[]string{"f9↓", "f9↑"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := play(t, tt.combos, tt.steps, nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("edges %v, want %v", got, tt.want)
			}
			// A device may hand over its bytes in any pieces: the result is the same.
			if got := play(t, tt.combos, tt.steps, iotest.OneByteReader); !slices.Equal(got, tt.want) {
				t.Errorf("read a byte at a time: edges %v, want %v", got, tt.want)
			}
		})
	}
}

// The edge carries the kernel's timestamp of the key event that made it.
func TestEdgeTime(t *testing.T) {
	b := newBoard()
	c, _ := hotkey.Parse("ctrl+f9")
	g := b.add(c)
	s := &stream{dev: "kbd", board: b}
	var edges []hotkey.Edge
	err := s.run(bytes.NewReader(frames(t0, down(keyLeftCtrl), down(kF9), up(kF9))), func(out []fired) {
		for _, f := range out {
			if f.g == g {
				edges = append(edges, f.edge)
			}
		}
	})
	if !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	want := []hotkey.Edge{{Down: true, At: t0.Add(10 * time.Millisecond), Sure: true}, {Down: false, At: t0.Add(20 * time.Millisecond), Sure: true}}
	if len(edges) != 2 || !edges[0].At.Equal(want[0].At) || !edges[1].At.Equal(want[1].At) || !edges[0].Down || edges[1].Down {
		t.Errorf("edges %+v, want %+v", edges, want)
	}
}

// A resync reads the keys the device holds: a combination still held stays down.
func TestResyncKeepsHeldKeys(t *testing.T) {
	b := newBoard()
	c, _ := hotkey.Parse("ctrl+win")
	b.add(c)
	s := &stream{dev: "kbd", board: b, resync: func() ([]uint16, error) { return []uint16{keyLeftCtrl, keyLeftMeta}, nil }}
	var got []bool
	collect := func(out []fired) {
		for _, f := range out {
			got = append(got, f.edge.Down)
		}
	}
	data := append(frames(t0, down(keyLeftCtrl), down(keyLeftMeta)), frames(t0, syn(synDropped), up(keyLeftMeta))...)
	data = append(data, frames(t0, up(keyLeftCtrl))...)
	if err := s.run(bytes.NewReader(data), collect); !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	if !slices.Equal(got, []bool{true, false}) {
		t.Errorf("edges (down?) %v, want [true false]: the resync found both keys held, only the later release ends it", got)
	}
}

func TestTruncatedStream(t *testing.T) {
	s := &stream{dev: "kbd", board: newBoard()}
	data := frames(t0, down(kA))
	err := s.run(bytes.NewReader(data[:len(data)-5]), func([]fired) {})
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "partial event") {
		t.Errorf("run over a cut event: %v, want io.ErrUnexpectedEOF naming the partial event", err)
	}
}

// Every key a hotkey can name is a key evdev can see, and no two share a code.
func TestEveryKeyHasACode(t *testing.T) {
	seen := map[uint16]string{}
	n := 0
	for k := hotkey.Key(1); k.String() != ""; k++ {
		n++
		codes := codesOf(k)
		if len(codes) == 0 {
			t.Errorf("key %q has no Linux key code", k)
		}
		for _, c := range codes {
			if other, dup := seen[c]; dup {
				t.Errorf("code %d is both %q and %q", c, other, k)
			}
			if modOf(c) != k.Modifier() {
				t.Errorf("key %q maps to code %d of modifier %v, want %v", k, c, modOf(c), k.Modifier())
			}
			seen[c] = k.String()
		}
	}
	if n < 90 || len(linuxKeys) != n {
		t.Errorf("%d keys in package hotkey, %d in the table", n, len(linuxKeys))
	}
	for _, name := range []string{"ctrl+win", "ctrl+shift+space", "f9", "alt+`", "ctrl+alt+printscreen"} {
		c, err := hotkey.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		if c.Key != 0 && codesOf(c.Key) == nil {
			t.Errorf("%s: no code", name)
		}
	}
}

// bitmap is a kernel bitmap (longs in the machine's order) with codes set.
func bitmap(codes ...uint16) []byte {
	b := make([]byte, (keyMax+1)/8)
	for _, c := range codes {
		w := int(c/(8*wordSize)) * wordSize
		bit := c % (8 * wordSize)
		// the byte of the long that holds bit, in the machine's order
		var probe [8]byte
		if wordSize == 8 {
			putNative64(probe[:], 1<<bit)
		} else {
			putNative32(probe[:], 1<<bit)
		}
		for i := range wordSize {
			b[w+i] |= probe[i]
		}
	}
	return b
}

func TestIsKeyboard(t *testing.T) {
	tabletest.Check(t, "isKeyboard", isKeyboard, []tabletest.Case[[]byte, bool]{
		{Name: "a full keyboard", In: bitmap(append(slices.Clone(keyboardKeys), keyLeftCtrl, kEsc, kF9, 0x2fe)...), Want: true},
		{Name: "letters and space only", In: bitmap(keyboardKeys...), Want: true},
		{Name: "no space (a keypad)", In: bitmap(keyboardKeys[:len(keyboardKeys)-1]...), Want: false},
		{Name: "a power button", In: bitmap(116), Want: false},
		{Name: "a mouse's buttons", In: bitmap(0x110, 0x111, 0x112), Want: false},
		{Name: "a headset's volume keys", In: bitmap(113, 114, 115), Want: false},
		{Name: "nothing", In: bitmap(), Want: false},
		{Name: "a short answer", In: []byte{0xff}, Want: false},
	})
	if got := codesSet(bitmap(keyLeftCtrl, kSpace, 0x2ff)); !slices.Equal(got, []uint16{keyLeftCtrl, kSpace, 0x2ff}) {
		t.Errorf("codesSet = %v", got)
	}
}
