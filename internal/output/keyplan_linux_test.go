//go:build linux

package output

import (
	"errors"
	"maps"
	"testing"
)

// asciiLayout is a US-like layout: printable ASCII on keycodes 10+, upper case
// shifted, Return on 9.
func asciiLayout(ks uint64) (stroke, bool) {
	switch {
	case ks == 0xff0d: // Return
		return stroke{code: 9}, true
	case ks >= 'A' && ks <= 'Z':
		return stroke{code: uint32(10 + ks - 'A'), shift: true}, true
	case ks >= 0x20 && ks <= 0x7e:
		return stroke{code: uint32(10 + ks)}, true
	}
	return stroke{}, false
}

func TestPlanTyping(t *testing.T) {
	const a, b, c = 250, 251, 252 // spare keycodes
	for _, tc := range []struct {
		name    string
		text    string
		spare   map[uint32]keySlots
		batches int
		remaps  []int // keys remapped before each batch
		err     error
	}{
		{name: "layout only", text: "Hello, world", spare: map[uint32]keySlots{a: {}}, batches: 1, remaps: []int{0}},
		{name: "two per key", text: "éßé—", spare: map[uint32]keySlots{a: {}, b: {}}, batches: 1, remaps: []int{2}},
		{name: "already mapped", text: "é x ß", spare: map[uint32]keySlots{a: {'é', 'ß'}, b: {}}, batches: 1, remaps: []int{0}},
		{name: "more than fit", text: "äöüßéè", spare: map[uint32]keySlots{a: {}, b: {}}, batches: 2, remaps: []int{2, 1}},
		{name: "cr dropped", text: "é\r\n", spare: map[uint32]keySlots{c: {}}, batches: 1, remaps: []int{1}},
		{name: "no spare key", text: "é", spare: map[uint32]keySlots{}, err: errNoSpareKeys},
		{name: "empty", text: "", spare: map[uint32]keySlots{a: {}}, batches: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := planTyping(tc.text, asciiLayout, tc.spare)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if len(out) != tc.batches {
				t.Fatalf("%d batches, want %d: %+v", len(out), tc.batches, out)
			}
			// Replay: every stroke types its character, and no key a batch taps
			// changes within it.
			keys := maps.Clone(tc.spare)
			var typed []rune
			for i, bt := range out {
				if len(bt.remap) != tc.remaps[i] {
					t.Errorf("batch %d remaps %d keys, want %d", i, len(bt.remap), tc.remaps[i])
				}
				maps.Copy(keys, bt.remap)
				for _, s := range bt.strokes {
					typed = append(typed, replay(t, keys, s))
				}
			}
			want := []rune{}
			for _, r := range tc.text {
				if r != '\r' {
					want = append(want, r)
				}
			}
			if string(typed) != string(want) {
				t.Errorf("typed %q, want %q", string(typed), string(want))
			}
		})
	}
}

// replay is the character a stroke types with keys (spare keycode → keysyms) mapped.
func replay(t *testing.T, keys map[uint32]keySlots, s stroke) rune {
	t.Helper()
	lvl := 0
	if s.shift {
		lvl = 1
	}
	if sl, ok := keys[s.code]; ok {
		ks := sl[lvl]
		if ks >= 0x01000000 {
			return rune(ks - 0x01000000)
		}
		return rune(ks)
	}
	switch {
	case s.code == 9:
		return '\n'
	case s.shift:
		return rune('A' + s.code - 10)
	}
	return rune(s.code - 10)
}
