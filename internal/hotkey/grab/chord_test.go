package grab

import (
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/tabletest"
)

// testVKs names the keys the sequences below press.
var testVKs = map[string]uint32{
	"lctrl": vkLControl, "rctrl": vkRControl, "lshift": vkLShift, "rshift": vkRShift,
	"lalt": vkLMenu, "ralt": vkRMenu, "lwin": vkLWin, "rwin": vkRWin,
	"space": 0x20, "esc": 0x1b, "c": 'C', "d": 'D', "l": 'L', "f9": 0x78,
	"x1": 0x05, "x2": 0x06, // the mouse's side buttons, from the mouse hook
}

// play feeds a sequence to c and describes what the hook would do, event by event.
// Tokens: "+key" down, "-key" up, "+key*" or "-key*" injected by a program, "~key" a
// release the hook never sees (the physical keyboard still notices it), "wait" two
// seconds without events. The description lists "combo:down"/"combo:up" edges,
// "swallow" and "mask" verdicts in order. The keyboard state the matcher may consult
// follows the events, except swallowed ones, which Windows never records.
func play(t *testing.T, c *chords, seq string) string {
	t.Helper()
	physical := map[uint32]bool{}
	c.physical = func(vk uint32) bool {
		switch vk { // as GetAsyncKeyState: the generic codes are down while either side is
		case vkShift:
			return physical[vkLShift] || physical[vkRShift]
		case vkControl:
			return physical[vkLControl] || physical[vkRControl]
		case vkMenu:
			return physical[vkLMenu] || physical[vkRMenu]
		}
		return physical[vk]
	}
	at := time.Unix(1000, 0)
	var out []string
	for _, tok := range strings.Fields(seq) {
		if tok == "wait" {
			at = at.Add(2 * time.Second)
			continue
		}
		at = at.Add(30 * time.Millisecond)
		op, name := tok[0], strings.TrimSuffix(tok[1:], "*")
		vk, ok := testVKs[name]
		if !ok {
			t.Fatalf("unknown key %q in %q", name, seq)
		}
		physical[vk] = op == '+'
		if op == '~' {
			continue
		}
		v := c.feed(keyEvent{vk: vk, down: op == '+', injected: strings.HasSuffix(tok, "*"), at: at})
		for _, f := range v.fired {
			if !f.edge.At.Equal(at) {
				t.Errorf("%s: edge at %v, want the event's time %v", tok, f.edge.At, at)
			}
			state := "up"
			switch {
			case f.edge.Passed:
				state = "passed"
			case f.edge.Down:
				state = "down"
			}
			out = append(out, f.g.combo.String()+":"+state)
		}
		if v.swallow {
			physical[vk] = false // a swallowed event never reaches the keyboard state
			out = append(out, "swallow")
		}
		if v.mask {
			out = append(out, "mask")
		}
	}
	return strings.Join(out, " ")
}

func newChords(t *testing.T, combos ...string) *chords {
	t.Helper()
	c := &chords{}
	for _, s := range combos {
		g := c.add(mustParse(s))
		t.Cleanup(func() { g.Release() })
	}
	return c
}

func TestChords(t *testing.T) {
	tests := []struct {
		name   string
		combos []string
		seq    string
		want   string
	}{
		{name: "ctrl then win", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin -lwin -lctrl", want: "ctrl+win:down mask ctrl+win:up"},
		{name: "win then ctrl", combos: []string{"ctrl+win"},
			seq: "+lwin +lctrl -lctrl -lwin", want: "ctrl+win:down mask ctrl+win:up"},
		{name: "right-hand keys", combos: []string{"ctrl+win"},
			seq: "+rctrl +rwin -rctrl -rwin", want: "ctrl+win:down mask ctrl+win:up"},
		{name: "left ctrl right win", combos: []string{"ctrl+win"},
			seq: "+lctrl +rwin -rwin -lctrl", want: "ctrl+win:down mask ctrl+win:up"},
		{name: "both ctrls: up when the last goes", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin +rctrl -lctrl -rctrl -lwin", want: "ctrl+win:down mask ctrl+win:up"},
		{name: "ctrl alone", combos: []string{"ctrl+win"},
			seq: "+lctrl -lctrl +rctrl -rctrl", want: ""},
		{name: "win alone", combos: []string{"ctrl+win"},
			seq: "+lwin -lwin", want: ""},
		{name: "ctrl+c then win is not the chord", combos: []string{"ctrl+win"},
			seq: "+lctrl +c +lwin -lwin -c -lctrl", want: ""},
		{name: "a key let go does not complete the chord", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin +c -lwin -c +lwin -lwin -lctrl", want: "ctrl+win:down mask ctrl+win:passed ctrl+win:down mask ctrl+win:up"},
		{name: "ctrl+win+d: the d goes on and ends the chord", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin +d -d -lwin -lctrl", want: "ctrl+win:down mask ctrl+win:passed"},
		{name: "ctrl+shift+win+left: the extra modifier ends the chord", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin +lshift -lshift -lwin -lctrl", want: "ctrl+win:down mask ctrl+win:passed"},
		{name: "after a pass the chord fires again", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin +d -d -lwin +lwin -lwin -lctrl", want: "ctrl+win:down mask ctrl+win:passed ctrl+win:down mask ctrl+win:up"},
		{name: "a key pressed during a chord with a key passes too", combos: []string{"ctrl+shift+space"},
			seq: "+lctrl +lshift +space +c -c -space -lshift -lctrl", want: "ctrl+shift+space:down swallow ctrl+shift+space:passed swallow"},
		{name: "an extra modifier is not the chord", combos: []string{"ctrl+win"},
			seq: "+lctrl +lshift +lwin -lwin -lshift -lctrl", want: ""},
		{name: "pressing again fires again", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin -lwin +lwin -lwin -lctrl", want: "ctrl+win:down mask ctrl+win:up ctrl+win:down mask ctrl+win:up"},
		{name: "modifier repeat", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin +lwin +lwin +lwin -lwin -lctrl", want: "ctrl+win:down mask ctrl+win:up"},
		{name: "ctrl+shift+space", combos: []string{"ctrl+shift+space"},
			seq: "+lctrl +rshift +space -space -rshift -lctrl", want: "ctrl+shift+space:down swallow ctrl+shift+space:up swallow"},
		{name: "key repeat", combos: []string{"ctrl+shift+space"},
			seq:  "+lshift +lctrl +space +space +space -space -lctrl -lshift",
			want: "ctrl+shift+space:down swallow swallow swallow ctrl+shift+space:up swallow"},
		{name: "modifier released first", combos: []string{"ctrl+shift+space"},
			seq: "+lctrl +lshift +space -lctrl -space -lshift", want: "ctrl+shift+space:down swallow ctrl+shift+space:up swallow"},
		{name: "missing modifier", combos: []string{"ctrl+shift+space"},
			seq: "+lctrl +space -space -lctrl", want: ""},
		{name: "alt chord masks the menu bar", combos: []string{"shift+alt"},
			seq: "+lalt +lshift -lshift -lalt", want: "shift+alt:down mask shift+alt:up"},
		{name: "key without modifiers", combos: []string{"f9"},
			seq: "+f9 -f9 +lctrl +f9 -f9 -lctrl", want: "f9:down swallow f9:up swallow"},
		{name: "esc while ctrl+win is held", combos: []string{"ctrl+win", "esc", "ctrl+win+esc"},
			seq:  "+lctrl +lwin +esc -esc -lwin -lctrl +esc -esc",
			want: "ctrl+win:down mask ctrl+win+esc:down swallow mask ctrl+win+esc:up swallow ctrl+win:up esc:down swallow esc:up swallow"},
		{name: "right ctrl alone", combos: []string{"rctrl"},
			seq: "+rctrl -rctrl", want: "rctrl:down rctrl:up"},
		{name: "left ctrl is not right ctrl", combos: []string{"rctrl"},
			seq: "+lctrl -lctrl", want: ""},
		{name: "right ctrl while left ctrl is held", combos: []string{"rctrl"},
			seq: "+lctrl +rctrl -rctrl -lctrl", want: "rctrl:down rctrl:up"},
		{name: "right ctrl with another modifier held first is not the hotkey", combos: []string{"rctrl"},
			seq: "+lshift +rctrl -rctrl -lshift", want: ""},
		{name: "right ctrl+c copies: the c goes on and ends it", combos: []string{"rctrl"},
			seq: "+rctrl +c -c -rctrl", want: "rctrl:down rctrl:passed"},
		{name: "right alt alone masks the menu bar", combos: []string{"ralt"},
			seq: "+ralt -ralt +lalt -lalt", want: "ralt:down mask ralt:up"},
		{name: "a bound side button is swallowed", combos: []string{"mouse4"},
			seq: "+x1 -x1", want: "mouse4:down swallow mouse4:up swallow"},
		{name: "an unbound side button goes to the window", combos: []string{"mouse4"},
			seq: "+x2 -x2", want: ""},
		{name: "ctrl+side button", combos: []string{"ctrl+mouse5"},
			seq: "+x2 -x2 +rctrl +x2 -x2 -rctrl", want: "ctrl+mouse5:down swallow ctrl+mouse5:up swallow"},
		{name: "injected keys are ignored", combos: []string{"ctrl+win", "ctrl+shift+space"},
			seq: "+lctrl* +lwin* -lwin* -lctrl* +lctrl* +lshift* +space* -space* -lshift* -lctrl*", want: ""},
		{name: "injected up of a held key", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin -lctrl* -lwin -lctrl", want: "ctrl+win:down mask ctrl+win:up"},
		{name: "win up lost while locked", combos: []string{"ctrl+win"},
			seq: "+lwin +l ~l ~lwin +lctrl -lctrl +lwin -lwin", want: ""},
		{name: "win up lost, then the chord", combos: []string{"ctrl+win"},
			seq: "+lwin ~lwin +lctrl +lwin -lwin -lctrl", want: "ctrl+win:down mask ctrl+win:up"},
		{name: "lost up ends the chord at the next press", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin ~lctrl ~lwin +c -c", want: "ctrl+win:down mask ctrl+win:up"},
		{name: "a late repeat is a new press", combos: []string{"ctrl+win"},
			seq: "+lctrl +lwin ~lwin wait +lwin -lwin", want: "ctrl+win:down mask ctrl+win:up ctrl+win:down mask ctrl+win:up"},
		{name: "swallowed key survives the keyboard check", combos: []string{"ctrl+shift+space", "esc"},
			seq: "+lctrl +lshift +space +esc -esc -space", want: "ctrl+shift+space:down swallow ctrl+shift+space:up swallow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newChords(t, tt.combos...)
			if got := play(t, c, tt.seq); got != tt.want {
				t.Errorf("%s\n got: %s\nwant: %s", tt.seq, got, tt.want)
			}
		})
	}
}

func TestChordsMaskEventsIgnored(t *testing.T) {
	// Even where injected input counts (the hook tests), our own mask key does not.
	c := newChords(t, "ctrl+win")
	c.acceptInjected = true
	at := time.Unix(1000, 0)
	for _, ev := range []keyEvent{
		{vk: vkLControl, down: true, injected: true, at: at},
		{vk: vkLWin, down: true, injected: true, extra: maskTag, at: at},
	} {
		if v := c.feed(ev); len(v.fired) != 0 {
			t.Fatalf("feed(%+v) fired %v", ev, v.fired)
		}
	}
	if v := c.feed(keyEvent{vk: vkLWin, down: true, injected: true, at: at}); len(v.fired) != 1 {
		t.Fatalf("an accepted injected win did not fire ctrl+win: %+v", v)
	}
}

func TestChordsComboDown(t *testing.T) {
	tests := []struct {
		name  string
		seq   string
		combo string
		want  bool
	}{
		{name: "chord held", seq: "+lctrl +rwin", combo: "ctrl+win", want: true},
		{name: "chord with more keys", seq: "+lctrl +rwin +esc", combo: "ctrl+win", want: true},
		{name: "cancel while chord held", seq: "+lctrl +rwin +esc", combo: "esc", want: true},
		{name: "half the chord", seq: "+lctrl +lwin -lwin", combo: "ctrl+win", want: false},
		{name: "key combo", seq: "+lctrl +lshift +space", combo: "ctrl+shift+space", want: true},
		{name: "key up", seq: "+lctrl +lshift +space -space", combo: "ctrl+shift+space", want: false},
		{name: "nothing", seq: "", combo: "ctrl+win", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newChords(t, "ctrl+win")
			play(t, c, tt.seq)
			if got := c.comboDown(mustParse(tt.combo)); got != tt.want {
				t.Fatalf("after %q comboDown(%s) = %v, want %v", tt.seq, tt.combo, got, tt.want)
			}
		})
	}
}

func TestChordsResync(t *testing.T) {
	// After unlock the keyboard state is the truth, swallowed keys included.
	c := newChords(t, "ctrl+win", "ctrl+shift+space")
	play(t, c, "+lctrl +lwin")
	c.physical = func(uint32) bool { return false }
	v := c.resync(time.Unix(2000, 0))
	if len(v.fired) != 1 || v.fired[0].edge.Down || v.fired[0].g.combo.String() != "ctrl+win" {
		t.Fatalf("resync fired %+v, want ctrl+win up", v.fired)
	}
	if c.comboDown(hotkey.Combo{Mods: hotkey.ModCtrl}) || len(c.held) != 0 {
		t.Fatalf("keys still held after resync: %+v", c.held)
	}
}

func TestSidedVK(t *testing.T) {
	type args struct {
		vk, scan uint32
		extended bool
	}
	tabletest.Check(t, "sidedVK", func(a args) uint32 {
		return sidedVK(a.vk, a.scan, a.extended)
	}, []tabletest.Case[args, uint32]{
		{Name: "left shift", In: args{vk: vkShift, scan: 0x2a}, Want: vkLShift},
		{Name: "right shift", In: args{vk: vkShift, scan: scanRShift}, Want: vkRShift},
		{Name: "left ctrl", In: args{vk: vkControl, scan: 0x1d}, Want: vkLControl},
		{Name: "right ctrl", In: args{vk: vkControl, scan: 0x1d, extended: true}, Want: vkRControl},
		{Name: "left alt", In: args{vk: vkMenu, scan: 0x38}, Want: vkLMenu},
		{Name: "right alt", In: args{vk: vkMenu, scan: 0x38, extended: true}, Want: vkRMenu},
		{Name: "already sided", In: args{vk: vkRControl, scan: 0x1d, extended: true}, Want: vkRControl},
		{Name: "other key", In: args{vk: 0x20, scan: 0x39}, Want: 0x20},
	})
}

func TestHookGrabOrderAndRelease(t *testing.T) {
	c := &chords{}
	g := c.add(mustParse("ctrl+win"))
	// Queued before anyone reads: the hook never waits for the reader.
	at := time.Unix(1000, 0)
	const n = 50
	for i := range n {
		g.push(hotkey.Edge{Down: i%2 == 0, At: at.Add(time.Duration(i))})
	}
	for i := range n {
		e := <-g.Edges()
		if e.Down != (i%2 == 0) || !e.At.Equal(at.Add(time.Duration(i))) {
			t.Fatalf("edge %d = %+v, out of order", i, e)
		}
	}
	g.push(hotkey.Edge{Down: true, At: at}) // left unread: Release must not wait for a reader
	if err := g.Release(); err != nil {
		t.Fatal(err)
	}
	if err := g.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	if len(c.grabs) != 0 {
		t.Fatalf("released grab still matched: %d grabs", len(c.grabs))
	}
}

func TestHookStale(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	type args struct{ hookSeen, rawSeen, lastRearm, now time.Time }
	tabletest.Check(t, "hookStale", func(a args) bool {
		return hookStale(a.hookSeen, a.rawSeen, a.lastRearm, a.now)
	}, []tabletest.Case[args, bool]{
		{Name: "no key typed yet", In: args{now: t0}},
		{Name: "hook saw the last key", In: args{hookSeen: t0, rawSeen: t0.Add(5 * time.Millisecond), now: t0.Add(5 * time.Second)}},
		{Name: "hook never saw a key raw input saw", In: args{rawSeen: t0, now: t0.Add(5 * time.Second)}, Want: true},
		{Name: "keys after the hook went quiet", In: args{hookSeen: t0, rawSeen: t0.Add(10 * time.Second), now: t0.Add(11 * time.Second)}, Want: true},
		{Name: "re-armed a moment ago", In: args{hookSeen: t0, rawSeen: t0.Add(10 * time.Second), lastRearm: t0.Add(9 * time.Second), now: t0.Add(11 * time.Second)}},
		{Name: "re-armed long ago", In: args{hookSeen: t0, rawSeen: t0.Add(90 * time.Second), lastRearm: t0.Add(time.Second), now: t0.Add(91 * time.Second)}, Want: true},
	})
}

// mustParse is Parse for the combinations written in tests; it panics on a bad one.
func mustParse(s string) hotkey.Combo {
	c, err := hotkey.Parse(s)
	if err != nil {
		panic(err)
	}
	return c
}
