package grab

import (
	"slices"
	"sync"
	"time"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// The matching below serves the Windows keyboard hook; it is plain Go so it is tested on
// every OS.

// Windows virtual-key codes the matcher treats specially.
const (
	vkShift    = 0x10
	vkControl  = 0x11
	vkMenu     = 0x12
	vkLWin     = 0x5B
	vkRWin     = 0x5C
	vkLShift   = 0xA0
	vkRShift   = 0xA1
	vkLControl = 0xA2
	vkRControl = 0xA3
	vkLMenu    = 0xA4
	vkRMenu    = 0xA5

	// maskTag marks the events we inject (dwExtraInfo), so we never match our own.
	maskTag = 0x574B4D4B

	scanRShift = 0x36
)

// repeatGap is longer than the slowest Windows typematic delay (1 s): a down of a key we
// think is held that comes later than this after its previous down or repeat is not a
// repeat, so the key's up was lost (a secure desktop or the lock screen took the keyboard).
const repeatGap = 1500 * time.Millisecond

// Windows removes a low-level hook without notice when one call takes longer
// than LowLevelHooksTimeout, and hooks have been seen to go quiet after the
// secure desktop. Raw input (WM_INPUT) keeps arriving then, so the window
// thread compares the two every healthEvery (grab_windows.go).
const (
	// hookGrace: keys seen by raw input this long after the hook's last event
	// mean the hook no longer gets them (both see a key within milliseconds).
	hookGrace = 2 * time.Second
	// rearmBackoff: at most one health re-arm this often, in case another
	// program's hook swallows keys before ours while raw input still sees them.
	rearmBackoff = time.Minute
)

// hookStale reports whether the keyboard hook missed keys that raw input saw:
// the last raw keyboard input came more than hookGrace after the hook's last
// event, and no health re-arm happened within rearmBackoff.
func hookStale(hookSeen, rawSeen, lastRearm, now time.Time) bool {
	return !rawSeen.IsZero() && rawSeen.Sub(hookSeen) > hookGrace && now.Sub(lastRearm) >= rearmBackoff
}

// modOf returns the modifier a virtual key produces, or 0 for other keys.
func modOf(vk uint32) hotkey.Mods {
	switch vk {
	case vkShift, vkLShift, vkRShift:
		return hotkey.ModShift
	case vkControl, vkLControl, vkRControl:
		return hotkey.ModCtrl
	case vkMenu, vkLMenu, vkRMenu:
		return hotkey.ModAlt
	case vkLWin, vkRWin:
		return hotkey.ModWin
	}
	return 0
}

// sidedVK maps the generic Shift, Ctrl and Alt codes to their left or right key, so a
// down and its up always name the same key.
func sidedVK(vk, scan uint32, extended bool) uint32 {
	switch vk {
	case vkShift:
		if scan == scanRShift {
			return vkRShift
		}
		return vkLShift
	case vkControl:
		if extended {
			return vkRControl
		}
		return vkLControl
	case vkMenu:
		if extended {
			return vkRMenu
		}
		return vkLMenu
	}
	return vk
}

// keyEvent is one event from the keyboard hook.
type keyEvent struct {
	vk       uint32
	down     bool
	injected bool    // sent by a program (SendInput), not typed
	extra    uintptr // the sender's tag (dwExtraInfo)
	at       time.Time
}

// fired is an edge of one registered combination.
type fired struct {
	g    *hookGrab
	edge hotkey.Edge
}

// verdict is what the hook does after matching an event.
type verdict struct {
	fired []fired
	// swallow keeps the event from the focused window: it is the key of a registered
	// combination, as RegisterHotKey and X11 grabs would have taken it. Modifiers never are.
	swallow bool
	// mask asks for vkMask to be pressed: a combination holding Win or Alt went down.
	mask bool
}

type heldKey struct {
	vk        uint32
	last      time.Time // of its down or latest repeat
	swallowed bool
}

// chords tracks which keys are down and matches them against the registered
// combinations. A combination goes down when exactly its modifiers (left or right) are
// held and its key goes down (a right-hand modifier alone, when it goes down with no
// other modifier held); a modifier-only one when the last of its modifiers goes
// down while no other key is held, so Ctrl alone never fires ctrl+win. It goes up when
// any of its keys is released; other keys pressed meanwhile change nothing.
type chords struct {
	mu    sync.Mutex
	held  []heldKey
	grabs []*hookGrab
	// physical reads the keyboard's own state of a key (GetAsyncKeyState), to drop keys
	// whose up never reached the hook; nil means trust the events alone.
	physical func(vk uint32) bool
	// acceptInjected is for tests only: they type with SendInput, which the hook
	// otherwise ignores so that our own paste keystrokes never fire a hotkey.
	acceptInjected bool
}

// add registers c; its forwarder runs until Release.
func (c *chords) add(combo hotkey.Combo) *hookGrab {
	g := &hookGrab{owner: c, combo: combo, vk: combo.Key.WindowsVK(), fwd: newForwarder()}
	c.mu.Lock()
	c.grabs = append(c.grabs, g)
	c.mu.Unlock()
	return g
}

func (c *chords) remove(g *hookGrab) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.Index(c.grabs, g); i >= 0 {
		c.grabs = slices.Delete(c.grabs, i, i+1)
	}
}

// feed matches one hook event.
func (c *chords) feed(ev keyEvent) verdict {
	c.mu.Lock()
	defer c.mu.Unlock()
	var v verdict
	if ev.extra == maskTag || (ev.injected && !c.acceptInjected) {
		return v
	}
	if !ev.down {
		v.swallow = c.up(ev.vk, ev.at, &v)
		return v
	}
	if i := c.find(ev.vk); i >= 0 {
		if ev.at.Sub(c.held[i].last) < repeatGap {
			c.held[i].last = ev.at // autorepeat: the combination is already down
			v.swallow = c.held[i].swallowed
			return v
		}
		c.up(ev.vk, ev.at, &v)
	}
	c.prune(ev.at, false, &v)
	c.pass(ev.vk, ev.at, &v)
	before := c.mods()
	c.held = append(c.held, heldKey{vk: ev.vk, last: ev.at})
	after := c.mods()
	others := c.othersHeld()
	for _, g := range c.grabs {
		if g.active {
			continue
		}
		if side := modOf(g.vk); g.vk != 0 {
			// A right-hand modifier alone (rctrl) goes down with no other modifier
			// held (its left twin may be); like every modifier it reaches the
			// window, so Right Ctrl+C still copies.
			if ev.vk != g.vk || after&^side != g.combo.Mods {
				continue
			}
			v.swallow = side == 0
			v.mask = v.mask || side&(hotkey.ModWin|hotkey.ModAlt) != 0
		} else if modOf(ev.vk) == 0 || after != g.combo.Mods || before == after || others {
			continue
		}
		g.active = true
		// Sure, here and at the release: the hook saw the key itself. Asking the
		// keyboard again later can only miss a quick tap (Esc up again before a
		// loaded Listener reads it, TestWineDictation's cancel under load).
		v.fired = append(v.fired, fired{g: g, edge: hotkey.Edge{Down: true, At: ev.at, Sure: true}})
		if g.combo.Mods&(hotkey.ModWin|hotkey.ModAlt) != 0 {
			v.mask = true
		}
	}
	c.held[len(c.held)-1].swallowed = v.swallow
	return v
}

// pass ends the combinations held while vk, a key of none of them, goes down: they
// were the start of another shortcut (Ctrl+Win+D), and the key goes on to the
// focused window, as every key the hook does not swallow does. The keys of the
// registered combinations (the cancel key while recording) are not passes.
func (c *chords) pass(vk uint32, at time.Time, v *verdict) {
	if slices.ContainsFunc(c.grabs, func(g *hookGrab) bool { return g.vk == vk || g.combo.Mods&modOf(vk) != 0 }) {
		return
	}
	for _, g := range c.grabs {
		if g.active {
			g.active = false
			v.fired = append(v.fired, fired{g: g, edge: hotkey.Edge{Down: true, At: at, Passed: true}})
		}
	}
}

// resync drops every key the keyboard says is up, as after the session was locked.
func (c *chords) resync(at time.Time) verdict {
	c.mu.Lock()
	defer c.mu.Unlock()
	var v verdict
	c.prune(at, true, &v)
	return v
}

// comboDown reports whether every key of combo is held (other keys may be held too).
func (c *chords) comboDown(combo hotkey.Combo) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mods()&combo.Mods == combo.Mods && (combo.Key == 0 || c.find(combo.Key.WindowsVK()) >= 0)
}

// up handles a key's release and reports whether its down was swallowed.
func (c *chords) up(vk uint32, at time.Time, v *verdict) bool {
	i := c.find(vk)
	if i < 0 {
		return false // it went down before the hook was installed, or was dropped
	}
	swallowed := c.held[i].swallowed
	c.held = slices.Delete(c.held, i, i+1)
	c.release(at, v)
	return swallowed
}

// prune drops held keys the keyboard says are up. Swallowed keys never reach the
// keyboard state, so they are kept unless all is set.
func (c *chords) prune(at time.Time, all bool, v *verdict) {
	if c.physical == nil {
		return
	}
	n := len(c.held)
	c.held = slices.DeleteFunc(c.held, func(k heldKey) bool {
		return (all || !k.swallowed) && !c.stillDown(k.vk)
	})
	if len(c.held) != n {
		c.release(at, v)
	}
}

// stillDown asks the keyboard about a held key. A modifier counts as down while either
// side is: injected input and some drivers disagree with the hook about the side.
func (c *chords) stillDown(vk uint32) bool {
	switch modOf(vk) {
	case hotkey.ModShift:
		return c.physical(vkShift)
	case hotkey.ModCtrl:
		return c.physical(vkControl)
	case hotkey.ModAlt:
		return c.physical(vkMenu)
	case hotkey.ModWin:
		return c.physical(vkLWin) || c.physical(vkRWin)
	}
	return c.physical(vk)
}

// release ends the combinations that lost one of their keys.
func (c *chords) release(at time.Time, v *verdict) {
	mods := c.mods()
	for _, g := range c.grabs {
		if g.active && (mods&g.combo.Mods != g.combo.Mods || (g.vk != 0 && c.find(g.vk) < 0)) {
			g.active = false
			v.fired = append(v.fired, fired{g: g, edge: hotkey.Edge{Down: false, At: at, Sure: true}})
		}
	}
}

func (c *chords) find(vk uint32) int {
	return slices.IndexFunc(c.held, func(k heldKey) bool { return k.vk == vk })
}

func (c *chords) mods() hotkey.Mods {
	var m hotkey.Mods
	for _, k := range c.held {
		m |= modOf(k.vk)
	}
	return m
}

func (c *chords) othersHeld() bool {
	return slices.ContainsFunc(c.held, func(k heldKey) bool { return modOf(k.vk) == 0 })
}

// hookGrab is a combination registered with the hook. Its forwarder queues edges, so
// the hook never waits for the Listener.
type hookGrab struct {
	owner  *chords
	combo  hotkey.Combo
	vk     uint32 // of combo.Key; 0 for a modifier-only combination
	active bool   // guarded by owner.mu
	fwd    *forwarder
}

func (g *hookGrab) Edges() <-chan hotkey.Edge { return g.fwd.Edges() }

// push queues e without blocking.
func (g *hookGrab) push(e hotkey.Edge) { g.fwd.push(e) }

// Release stops matching the combination and stops its forwarder. Idempotent.
func (g *hookGrab) Release() error {
	g.owner.remove(g)
	g.fwd.close()
	return nil
}
