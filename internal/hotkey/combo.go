package hotkey

import (
	"errors"
	"fmt"
	"strings"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// ErrInvalid marks a hotkey or mode string that cannot be used; the message says why and how to fix it.
var ErrInvalid = errors.New("invalid hotkey")

// Mods is a set of modifier keys.
type Mods uint8

// The modifiers a combination can hold. ModWin is the Windows/Super/Command key.
const (
	ModCtrl Mods = 1 << iota
	ModShift
	ModAlt
	ModWin
)

// String lists the modifiers in canonical order joined by "+", e.g. "ctrl+shift".
func (m Mods) String() string {
	var parts []string
	for _, d := range modTable {
		if m&d.mod != 0 {
			parts = append(parts, d.name)
		}
	}
	return strings.Join(parts, "+")
}

// Each calls f for every modifier in m, in canonical order.
func (m Mods) Each(f func(Mods)) {
	for _, d := range modTable {
		if m&d.mod != 0 {
			f(d.mod)
		}
	}
}

// X11Keysyms returns the left and right keysyms of a single modifier (nil for a set of several).
func (m Mods) X11Keysyms() []uint32 {
	for _, d := range modTable {
		if d.mod == m {
			return d.x11[:]
		}
	}
	return nil
}

// WindowsVKs returns the left and right virtual-key codes of a single modifier (nil for a set of several).
func (m Mods) WindowsVKs() []uint32 {
	for _, d := range modTable {
		if d.mod == m {
			return d.vk[:]
		}
	}
	return nil
}

// Key is a non-modifier key; the zero Key means "no key" (a modifier-only combination).
type Key uint16

func (k Key) def() (keyDef, bool) {
	if k == 0 || int(k) > len(keyTable) {
		return keyDef{}, false
	}
	return keyTable[k-1], true
}

// String returns the key's canonical name ("space", "f9", "`"), or "" for no key.
func (k Key) String() string {
	d, _ := k.def()
	return d.name
}

// Modifier returns the modifier k is the right-hand key of (Right Ctrl: ModCtrl), 0 for other keys.
func (k Key) Modifier() Mods {
	d, _ := k.def()
	return d.mod
}

// X11Button returns the X11 button number of a mouse button (8 or 9), 0 for keys.
func (k Key) X11Button() uint8 {
	d, _ := k.def()
	return d.button
}

// X11Keysym returns the key's X11 keysym (0 for no key and for mouse buttons).
func (k Key) X11Keysym() uint32 {
	d, _ := k.def()
	return d.x11
}

// WindowsVK returns the key's Windows virtual-key code on a US layout (0 for no key).
func (k Key) WindowsVK() uint32 {
	d, _ := k.def()
	return d.vk
}

// Combo is a parsed key combination: modifiers plus at most one key.
type Combo struct {
	Mods Mods
	Key  Key
}

// IsZero reports whether c is the empty combination (a hotkey that is switched off).
func (c Combo) IsZero() bool { return c.Mods == 0 && c.Key == 0 }

// ModifierOnly reports whether c consists of modifiers alone, like ctrl+win.
func (c Combo) ModifierOnly() bool { return c.Key == 0 && c.Mods != 0 }

// String returns the canonical spelling, e.g. "ctrl+shift+space"; Parse(c.String()) == c.
func (c Combo) String() string {
	s := c.Mods.String()
	if c.Key != 0 {
		if s != "" {
			s += "+"
		}
		s += c.Key.String()
	}
	return s
}

// Validate reports whether s is a usable hotkey; config validation calls it.
func Validate(s string) error {
	_, err := Parse(s)
	return err
}

// Parse reads a combination such as "ctrl+win", "Ctrl+Shift+Space", "f9" or "alt+`".
// Names are case-insensitive and common aliases are accepted (control, super, cmd,
// option, return, escape, …). A single modifier alone and a typing key without
// modifiers are refused: either would swallow ordinary typing or shortcuts. The
// right-hand Ctrl or Alt alone ("rctrl", "ralt") is allowed, and only alone.
func Parse(s string) (Combo, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	if in == "" {
		return Combo{}, fmt.Errorf(`%w: the hotkey is empty; write a combination like "ctrl+shift+space"`, ErrInvalid)
	}
	var c Combo
	for _, raw := range strings.Split(in, "+") {
		part := strings.TrimSpace(raw)
		if part == "" {
			return Combo{}, fmt.Errorf(`%w %q: an empty key name (a "+" separates keys, so "+" itself cannot be a key)`, ErrInvalid, s)
		}
		if m, ok := lookupMod(part); ok {
			if c.Mods&m != 0 {
				return Combo{}, fmt.Errorf("%w %q: %s appears twice", ErrInvalid, s, m)
			}
			c.Mods |= m
			continue
		}
		k, ok := lookupKey(part)
		if !ok {
			hint := ""
			if sug := suggest(part); sug != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", sug)
			}
			return Combo{}, fmt.Errorf("%w %q: unknown key %q%s; valid: %s", ErrInvalid, s, part, hint, validKeys)
		}
		if c.Key != 0 {
			return Combo{}, fmt.Errorf("%w %q: %q and %q are both keys; a hotkey is modifiers plus at most one key", ErrInvalid, s, c.Key, k)
		}
		c.Key = k
	}
	if c.Key == 0 && (c.Mods&(c.Mods-1)) == 0 {
		return Combo{}, fmt.Errorf("%w %q: %s alone would swallow every shortcut that uses it; add a key (%s+space), a second modifier (ctrl+win), or use the right-hand key alone (r%s)", ErrInvalid, s, c.Mods, c.Mods, c.Mods)
	}
	if m := c.Key.Modifier(); m != 0 && c.Mods != 0 {
		return Combo{}, fmt.Errorf("%w %q: %s is a hotkey only on its own; write just %q, or use %s with a key (%s+space)", ErrInvalid, s, c.Key, c.Key.String(), c.Mods|m, c.Mods|m)
	}
	if d, _ := c.Key.def(); c.Mods == 0 && d.typing {
		return Combo{}, fmt.Errorf("%w %q: %s alone would stop you typing it; add a modifier, e.g. \"ctrl+alt+%s\"", ErrInvalid, s, c.Key, c.Key)
	}
	return c, nil
}

func lookupMod(name string) (Mods, bool) {
	for _, d := range modTable {
		if d.name == name || contains(d.aliases, name) {
			return d.mod, true
		}
	}
	return 0, false
}

func lookupKey(name string) (Key, bool) {
	for i, d := range keyTable {
		if d.name == name || contains(d.aliases, name) {
			return Key(i + 1), true
		}
	}
	return 0, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest returns the canonical name closest to a misspelt one, or "" when nothing is close.
func suggest(name string) string {
	best, bestDist := "", 3
	try := func(canonical string, spellings ...string) {
		for _, sp := range spellings {
			if len(sp) < 3 {
				continue // one-letter keys are "close" to everything
			}
			if d := choice.Distance(name, sp); d < bestDist {
				best, bestDist = canonical, d
			}
		}
	}
	for _, d := range modTable {
		try(d.name, append([]string{d.name}, d.aliases...)...)
	}
	for _, d := range keyTable {
		try(d.name, append([]string{d.name}, d.aliases...)...)
	}
	if bestDist > len(name)/2 {
		return ""
	}
	return best
}
