//go:build linux

package output

import (
	"errors"
	"slices"
)

// keySlots holds a spare keycode's keysyms: [0] plain, [1] with Shift; 0 is none.
type keySlots [2]uint64

// stroke is one key tap: the keycode and whether Shift is held around it.
type stroke struct {
	code  uint32
	shift bool
}

// typingBatch is typed after remap (keys whose keysyms change, all in one request)
// took effect.
type typingBatch struct {
	remap   map[uint32]keySlots
	strokes []stroke
}

// errNoSpareKeys means the layout lacks a character and no keycode is free to map it.
var errNoSpareKeys = errors.New("the keyboard layout lacks a character of the text and has no unused keycode to map it to")

// keysym is the X keysym that types r: Latin-1 characters are their own keysym,
// others 0x01000000 + code point; newline and tab are Return and Tab.
func keysym(r rune) uint64 {
	switch {
	case r == '\n':
		return 0xff0d
	case r == '\t':
		return 0xff09
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xff:
		return uint64(r)
	}
	return 0x01000000 | uint64(r)
}

// planTyping turns text into batches of key taps. layout finds the keyboard layout's
// key for a keysym; spare holds every keycode we may map and what it holds now.
//
// A client looks a keysym up when it handles the key event, maybe long after the
// server got it, so a key must not change while taps on it may still be unhandled:
// within a batch no spare key changes, and a new batch starts only when the text
// needs more characters than the spare keys can hold. Keysyms already on a spare
// key are reused without a remap.
func planTyping(text string, layout func(ks uint64) (stroke, bool), spare map[uint32]keySlots) ([]typingBatch, error) {
	cur := make(map[uint32]keySlots, len(spare))
	codes := make([]uint32, 0, len(spare))
	for kc, s := range spare {
		cur[kc] = s
		codes = append(codes, kc)
	}
	// High keycodes first: they are the likeliest to be unused on a real keyboard.
	slices.Sort(codes)
	slices.Reverse(codes)

	var out []typingBatch
	var b *typingBatch
	var locked map[uint32]bool // keys this batch taps: they keep their keysyms
	start := func() {
		out = append(out, typingBatch{remap: map[uint32]keySlots{}})
		b = &out[len(out)-1]
		locked = map[uint32]bool{}
	}
	// find returns the spare key holding ks now.
	find := func(ks uint64) (stroke, bool) {
		for _, kc := range codes {
			for lvl, s := range cur[kc] {
				if s == ks {
					return stroke{code: kc, shift: lvl == 1}, true
				}
			}
		}
		return stroke{}, false
	}
	// place puts ks on a key this batch may change: the free level of a key it
	// remaps already, else an empty key, else one it does not tap.
	place := func(ks uint64) (stroke, bool) {
		for _, kc := range codes {
			if s, ok := b.remap[kc]; ok && s[1] == 0 {
				s[1] = ks
				b.remap[kc], cur[kc] = s, s
				return stroke{code: kc, shift: true}, true
			}
		}
		for _, emptyOnly := range []bool{true, false} {
			for _, kc := range codes {
				if locked[kc] || (emptyOnly && cur[kc] != keySlots{}) {
					continue
				}
				s := keySlots{ks, 0}
				b.remap[kc], cur[kc], locked[kc] = s, s, true
				return stroke{code: kc}, true
			}
		}
		return stroke{}, false
	}
	start()
	for _, r := range text {
		if r == '\r' {
			continue
		}
		ks := keysym(r)
		if k, ok := layout(ks); ok {
			b.strokes = append(b.strokes, k)
			continue
		}
		k, ok := find(ks)
		if !ok {
			if k, ok = place(ks); !ok && len(b.strokes) > 0 {
				start()
				k, ok = place(ks)
			}
			if !ok {
				return nil, errNoSpareKeys
			}
		}
		locked[k.code] = true
		b.strokes = append(b.strokes, k)
	}
	if len(b.strokes) == 0 {
		out = out[:len(out)-1]
	}
	return out, nil
}
