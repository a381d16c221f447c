package hotkey

import "fmt"

// keyDef is one key a hotkey can name. Codes are the US-layout positions:
// X11 keysyms and Windows virtual-key codes, so the OS adapter needs no table of its own.
type keyDef struct {
	name    string   // canonical name, as Combo.String prints it
	aliases []string // other accepted spellings
	x11     uint32   // X11 keysym
	vk      uint32   // Windows virtual-key code
	typing  bool     // produces text: alone (without modifiers) it would steal typing
	// mod: the key is the right-hand key of this modifier, a hotkey only on its own
	// (Right Ctrl, Right Alt): the left one keeps every shortcut, the right one is
	// rarely used for them.
	mod Mods
	// button: the key is a mouse button, X11's button number (8, 9: the side
	// buttons, back and forward); x11 is 0 for it.
	button uint8
}

// keyTable is read-only after package initialisation; Key values index it (Key(i+1)).
var keyTable = buildKeyTable()

func buildKeyTable() []keyDef {
	var t []keyDef
	for c := 'a'; c <= 'z'; c++ {
		t = append(t, keyDef{name: string(c), x11: uint32(c), vk: uint32(c - 'a' + 'A'), typing: true})
	}
	for c := '0'; c <= '9'; c++ {
		t = append(t, keyDef{name: string(c), x11: uint32(c), vk: uint32(c), typing: true})
	}
	for i := 1; i <= 24; i++ {
		t = append(t, keyDef{name: fmt.Sprintf("f%d", i), x11: 0xffbe + uint32(i-1), vk: 0x70 + uint32(i-1)})
	}
	return append(t,
		keyDef{name: "space", x11: 0x0020, vk: 0x20, typing: true},
		keyDef{name: "enter", aliases: []string{"return"}, x11: 0xff0d, vk: 0x0d, typing: true},
		keyDef{name: "esc", aliases: []string{"escape"}, x11: 0xff1b, vk: 0x1b},
		keyDef{name: "tab", x11: 0xff09, vk: 0x09, typing: true},
		keyDef{name: "backspace", x11: 0xff08, vk: 0x08, typing: true},
		keyDef{name: "delete", aliases: []string{"del"}, x11: 0xffff, vk: 0x2e, typing: true},
		keyDef{name: "insert", aliases: []string{"ins"}, x11: 0xff63, vk: 0x2d},
		keyDef{name: "home", x11: 0xff50, vk: 0x24, typing: true},
		keyDef{name: "end", x11: 0xff57, vk: 0x23, typing: true},
		keyDef{name: "pageup", aliases: []string{"pgup", "prior"}, x11: 0xff55, vk: 0x21, typing: true},
		keyDef{name: "pagedown", aliases: []string{"pgdn", "next"}, x11: 0xff56, vk: 0x22, typing: true},
		keyDef{name: "up", x11: 0xff52, vk: 0x26, typing: true},
		keyDef{name: "down", x11: 0xff54, vk: 0x28, typing: true},
		keyDef{name: "left", x11: 0xff51, vk: 0x25, typing: true},
		keyDef{name: "right", x11: 0xff53, vk: 0x27, typing: true},
		keyDef{name: "pause", aliases: []string{"break"}, x11: 0xff13, vk: 0x13},
		keyDef{name: "scrolllock", x11: 0xff14, vk: 0x91},
		keyDef{name: "printscreen", aliases: []string{"print", "prtsc"}, x11: 0xff61, vk: 0x2c},
		keyDef{name: "menu", aliases: []string{"apps"}, x11: 0xff67, vk: 0x5d},
		keyDef{name: "`", aliases: []string{"grave", "backtick", "backquote"}, x11: 0x60, vk: 0xc0, typing: true},
		keyDef{name: "-", aliases: []string{"minus"}, x11: 0x2d, vk: 0xbd, typing: true},
		keyDef{name: "=", aliases: []string{"equal", "equals"}, x11: 0x3d, vk: 0xbb, typing: true},
		keyDef{name: "[", aliases: []string{"leftbracket", "bracketleft"}, x11: 0x5b, vk: 0xdb, typing: true},
		keyDef{name: "]", aliases: []string{"rightbracket", "bracketright"}, x11: 0x5d, vk: 0xdd, typing: true},
		keyDef{name: `\`, aliases: []string{"backslash"}, x11: 0x5c, vk: 0xdc, typing: true},
		keyDef{name: ";", aliases: []string{"semicolon"}, x11: 0x3b, vk: 0xba, typing: true},
		keyDef{name: "'", aliases: []string{"apostrophe", "quote"}, x11: 0x27, vk: 0xde, typing: true},
		keyDef{name: ",", aliases: []string{"comma"}, x11: 0x2c, vk: 0xbc, typing: true},
		keyDef{name: ".", aliases: []string{"period", "dot"}, x11: 0x2e, vk: 0xbe, typing: true},
		keyDef{name: "/", aliases: []string{"slash"}, x11: 0x2f, vk: 0xbf, typing: true},
		keyDef{name: "rctrl", aliases: []string{"rightctrl", "right_ctrl", "rcontrol"}, x11: 0xffe4, vk: 0xa3, mod: ModCtrl},
		keyDef{name: "ralt", aliases: []string{"rightalt", "right_alt"}, x11: 0xffea, vk: 0xa5, mod: ModAlt},
		// The mouse's side buttons: Windows' XBUTTON1 and XBUTTON2 have virtual-key codes.
		keyDef{name: "mouse4", aliases: []string{"xbutton1", "mouseback"}, vk: 0x05, button: 8},
		keyDef{name: "mouse5", aliases: []string{"xbutton2", "mouseforward"}, vk: 0x06, button: 9},
	)
}

// validKeys is the summary printed in parse errors.
const validKeys = "modifiers ctrl, shift, alt, win; keys a-z, 0-9, f1-f24, space, enter, esc, tab, backspace, delete, " +
	"insert, home, end, pageup, pagedown, up, down, left, right, pause, scrolllock, printscreen, menu, ` - = [ ] \\ ; ' , . /; " +
	"alone: rctrl, ralt; mouse side buttons mouse4, mouse5"

// modDef is one modifier: its names and the physical keys that produce it.
type modDef struct {
	mod     Mods
	name    string
	aliases []string
	x11     [2]uint32 // left and right keysyms
	vk      [2]uint32 // left and right virtual-key codes
}

var modTable = []modDef{
	{mod: ModCtrl, name: "ctrl", aliases: []string{"control", "ctl"}, x11: [2]uint32{0xffe3, 0xffe4}, vk: [2]uint32{0xa2, 0xa3}},
	{mod: ModShift, name: "shift", x11: [2]uint32{0xffe1, 0xffe2}, vk: [2]uint32{0xa0, 0xa1}},
	{mod: ModAlt, name: "alt", aliases: []string{"option", "opt"}, x11: [2]uint32{0xffe9, 0xffea}, vk: [2]uint32{0xa4, 0xa5}},
	{mod: ModWin, name: "win", aliases: []string{"super", "meta", "cmd", "command", "windows"}, x11: [2]uint32{0xffeb, 0xffec}, vk: [2]uint32{0x5b, 0x5c}},
}
