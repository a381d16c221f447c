//go:build linux

package evdev

import (
	"slices"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// board is what the keyboards hold down, each on its own (a modifier on one
// keyboard and the key on another still make the combination), and the
// combinations registered on it. A combination with a key goes down when
// its key goes down while exactly its modifiers (left or right, on any
// keyboard) are held; a modifier-only one when the last of its modifiers
// goes down while no other key is held, so Ctrl alone never fires ctrl+win.
// It goes up when any of its keys is released; keys pressed meanwhile
// change nothing. Autorepeat never reaches it. While the board is shut
// (the session locked or in the background) it still follows the keys,
// so that a key held across the unlock is known to be down, but no
// combination goes down.
type board struct {
	mu    sync.Mutex
	held  map[string][]uint16 // device → its keys down, in the order pressed
	grabs []*keyGrab
	shut  bool
}

// fired is one edge for one registered combination.
type fired struct {
	g    *keyGrab
	edge hotkey.Edge
}

func newBoard() *board { return &board{held: map[string][]uint16{}} }

// add registers c.
func (b *board) add(c hotkey.Combo) *keyGrab {
	g := &keyGrab{owner: b, combo: c, codes: codesOf(c.Key),
		edges: make(chan hotkey.Edge, edgeBuffer), released: make(chan struct{})}
	b.mu.Lock()
	b.grabs = append(b.grabs, g)
	b.mu.Unlock()
	return g
}

func (b *board) remove(g *keyGrab) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i := slices.Index(b.grabs, g); i >= 0 {
		b.grabs = slices.Delete(b.grabs, i, i+1)
	}
}

// press is a key going down on dev.
func (b *board) press(dev string, code uint16, at time.Time) []fired {
	b.mu.Lock()
	defer b.mu.Unlock()
	if slices.Contains(b.held[dev], code) {
		return nil // already down: nothing new
	}
	before := b.mods()
	others := b.othersHeld()
	b.held[dev] = append(b.held[dev], code)
	after := b.mods()
	if b.shut {
		return nil
	}
	var out []fired
	for _, g := range b.grabs {
		// A right-hand modifier alone (rctrl) goes down with no other modifier
		// held (its left twin may be).
		if g.active || after&^g.combo.Key.Modifier() != g.combo.Mods {
			continue
		}
		if g.combo.Key != 0 {
			if !slices.Contains(g.codes, code) {
				continue
			}
		} else if modOf(code) == 0 || before == after || others {
			continue
		}
		g.active = true
		out = append(out, fired{g, hotkey.Edge{Down: true, At: at, Sure: true}})
	}
	return out
}

// lift is a key going up on dev.
func (b *board) lift(dev string, code uint16, at time.Time) []fired {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := slices.Index(b.held[dev], code)
	if i < 0 {
		return nil // it went down before the device was opened
	}
	b.held[dev] = slices.Delete(b.held[dev], i, i+1)
	return b.release(at)
}

// reset sets what dev holds to down (its state read again after the kernel
// dropped events, or nothing for a device gone). Combinations that lost a
// key go up; none goes down, since the order of the presses is lost.
func (b *board) reset(dev string, down []uint16, at time.Time) []fired {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(down) == 0 {
		delete(b.held, dev)
	} else {
		b.held[dev] = slices.Clone(down)
	}
	return b.release(at)
}

// setShut shuts the board (true) or opens it again. Shutting it ends the
// combinations held, so that a recording they hold stops; opening it fires
// nothing: a combination held across it goes down when one of its keys is
// pressed again.
func (b *board) setShut(shut bool, at time.Time) []fired {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.shut = shut
	if !shut {
		return nil
	}
	var out []fired
	for _, g := range b.grabs {
		if g.active {
			g.active = false
			out = append(out, fired{g, hotkey.Edge{Down: false, At: at, Sure: true}})
		}
	}
	return out
}

// release ends the combinations that lost one of their keys.
func (b *board) release(at time.Time) []fired {
	mods := b.mods()
	var out []fired
	for _, g := range b.grabs {
		if g.active && (mods&g.combo.Mods != g.combo.Mods || (g.combo.Key != 0 && !b.anyHeld(g.codes))) {
			g.active = false
			out = append(out, fired{g, hotkey.Edge{Down: false, At: at, Sure: true}})
		}
	}
	return out
}

func (b *board) mods() hotkey.Mods {
	var m hotkey.Mods
	for _, keys := range b.held {
		for _, k := range keys {
			m |= modOf(k)
		}
	}
	return m
}

func (b *board) othersHeld() bool {
	for _, keys := range b.held {
		if slices.ContainsFunc(keys, func(k uint16) bool { return modOf(k) == 0 }) {
			return true
		}
	}
	return false
}

func (b *board) anyHeld(codes []uint16) bool {
	for _, keys := range b.held {
		if slices.ContainsFunc(keys, func(k uint16) bool { return slices.Contains(codes, k) }) {
			return true
		}
	}
	return false
}

// edgeBuffer is how many edges of one combination may wait for the
// Listener before the device readers wait too (the kernel then keeps the
// events, and says so with SYN_DROPPED should its own buffer fill).
const edgeBuffer = 32

// keyGrab is one registered combination; it implements hotkey.Grab.
type keyGrab struct {
	owner    *board
	combo    hotkey.Combo
	codes    []uint16 // of combo.Key; nil for a modifier-only combination
	active   bool     // guarded by owner.mu
	edges    chan hotkey.Edge
	released chan struct{}
	once     sync.Once
}

func (g *keyGrab) Edges() <-chan hotkey.Edge { return g.edges }

// Release stops matching the combination; an edge on its way is dropped.
// Idempotent.
func (g *keyGrab) Release() error {
	g.once.Do(func() {
		g.owner.remove(g)
		close(g.released)
	})
	return nil
}

// deliver hands the edges to their combinations in order, waiting while a
// combination's buffer is full, until the combination is released or stop
// closes.
func deliver(out []fired, stop <-chan struct{}) {
	for _, f := range out {
		select {
		case f.g.edges <- f.edge:
		case <-f.g.released:
		case <-stop:
			return
		}
	}
}
