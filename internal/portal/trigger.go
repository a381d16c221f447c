package portal

import (
	"fmt"
	"strings"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// Trigger spells c in the freedesktop shortcuts spec's syntax that
// BindShortcuts' preferred_trigger takes: the modifiers CTRL, ALT, SHIFT
// and LOGO, then an xkbcommon keysym name, joined by "+" ("CTRL+LOGO+space").
// The spec has no modifier-only shortcut, so ctrl+win becomes its last
// modifier's left key pressed with the others ("CTRL+Super_L"); the desktop's
// dialog lets the user pick another. ok is false for a key without a name.
func Trigger(c hotkey.Combo) (string, bool) {
	var parts []string
	var last hotkey.Mods
	c.Mods.Each(func(m hotkey.Mods) {
		parts = append(parts, modName[m])
		last = m
	})
	keysym := c.Key.X11Keysym()
	if c.ModifierOnly() {
		parts = parts[:len(parts)-1]
		keysym = last.X11Keysyms()[0]
	}
	name, ok := keysymName(keysym)
	if !ok {
		return "", false
	}
	return strings.Join(append(parts, name), "+"), true
}

// modName is each modifier's XKB_MOD_NAME_*.
var modName = map[hotkey.Mods]string{
	hotkey.ModCtrl: "CTRL", hotkey.ModAlt: "ALT", hotkey.ModShift: "SHIFT", hotkey.ModWin: "LOGO",
}

// keysymName is the xkbcommon name (xkbcommon-keysyms.h without XKB_KEY_)
// of the keysyms a hotkey can name.
func keysymName(k uint32) (string, bool) {
	switch {
	case k >= 'a' && k <= 'z', k >= '0' && k <= '9':
		return string(rune(k)), true
	case k >= 0xffbe && k <= 0xffbe+23:
		return fmt.Sprintf("F%d", k-0xffbe+1), true
	}
	n, ok := keysymNames[k]
	return n, ok
}

var keysymNames = map[uint32]string{
	0x20: "space", 0xff0d: "Return", 0xff1b: "Escape", 0xff09: "Tab", 0xff08: "BackSpace",
	0xffff: "Delete", 0xff63: "Insert", 0xff50: "Home", 0xff57: "End", 0xff55: "Page_Up",
	0xff56: "Page_Down", 0xff52: "Up", 0xff54: "Down", 0xff51: "Left", 0xff53: "Right",
	0xff13: "Pause", 0xff14: "Scroll_Lock", 0xff61: "Print", 0xff67: "Menu",
	0x60: "grave", 0x2d: "minus", 0x3d: "equal", 0x5b: "bracketleft", 0x5d: "bracketright",
	0x5c: "backslash", 0x3b: "semicolon", 0x27: "apostrophe", 0x2c: "comma", 0x2e: "period",
	0x2f:   "slash",
	0xffe3: "Control_L", 0xffe1: "Shift_L", 0xffe9: "Alt_L", 0xffeb: "Super_L",
	0xffe4: "Control_R", 0xffea: "Alt_R",
}
