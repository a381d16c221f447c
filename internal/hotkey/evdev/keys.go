//go:build linux

package evdev

import (
	"encoding/binary"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// Linux key codes of the modifiers (linux/input-event-codes.h).
const (
	keyLeftCtrl   = 29
	keyRightCtrl  = 97
	keyLeftShift  = 42
	keyRightShift = 54
	keyLeftAlt    = 56
	keyRightAlt   = 100
	keyLeftMeta   = 125
	keyRightMeta  = 126
)

// Letter keys and space: a device reporting all of them is a keyboard (a
// power button, a mouse or a headset's volume keys report none of them).
const (
	keyA     = 30
	keyZ     = 44
	keySpace = 57
)

// keyboardKeys are KEY_A … KEY_Z and KEY_SPACE, the keys a device must have
// to count as a keyboard.
var keyboardKeys = []uint16{
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, // q w e r t y u i o p
	keyA, 31, 32, 33, 34, 35, 36, 37, 38, // a s d f g h j k l
	keyZ, 45, 46, 47, 48, 49, 50, // z x c v b n m
	keySpace,
}

// linuxKeys maps the canonical names of package hotkey's keys to the Linux
// key codes that produce them. evdev codes are key positions, so a name is
// the key at that place on a US keyboard, as for the virtual keyboard's
// Ctrl+V. Read-only after initialisation.
var linuxKeys = map[string][]uint16{
	"a": {30}, "b": {48}, "c": {46}, "d": {32}, "e": {18}, "f": {33}, "g": {34}, "h": {35}, "i": {23},
	"j": {36}, "k": {37}, "l": {38}, "m": {50}, "n": {49}, "o": {24}, "p": {25}, "q": {16}, "r": {19},
	"s": {31}, "t": {20}, "u": {22}, "v": {47}, "w": {17}, "x": {45}, "y": {21}, "z": {44},
	"1": {2}, "2": {3}, "3": {4}, "4": {5}, "5": {6}, "6": {7}, "7": {8}, "8": {9}, "9": {10}, "0": {11},
	"f1": {59}, "f2": {60}, "f3": {61}, "f4": {62}, "f5": {63}, "f6": {64}, "f7": {65}, "f8": {66},
	"f9": {67}, "f10": {68}, "f11": {87}, "f12": {88}, "f13": {183}, "f14": {184}, "f15": {185},
	"f16": {186}, "f17": {187}, "f18": {188}, "f19": {189}, "f20": {190}, "f21": {191}, "f22": {192},
	"f23": {193}, "f24": {194},
	"space": {keySpace}, "enter": {28}, "esc": {1}, "tab": {15}, "backspace": {14}, "delete": {111},
	"insert": {110}, "home": {102}, "end": {107}, "pageup": {104}, "pagedown": {109},
	"up": {103}, "down": {108}, "left": {105}, "right": {106}, "pause": {119}, "scrolllock": {70},
	// Print Screen is KEY_SYSRQ on PC keyboards, KEY_PRINT on some others;
	// the menu key is KEY_COMPOSE on PC keyboards, KEY_MENU on others.
	"printscreen": {99, 210}, "menu": {127, 139},
	"`": {41}, "-": {12}, "=": {13}, "[": {26}, "]": {27}, `\`: {43}, ";": {39}, "'": {40},
	",": {51}, ".": {52}, "/": {53},
	"rctrl": {keyRightCtrl}, "ralt": {keyRightAlt},
	// BTN_SIDE and BTN_EXTRA: seen only on a device that is also a keyboard,
	// since only keyboards are opened.
	"mouse4": {0x113}, "mouse5": {0x114},
}

// codesOf returns the Linux key codes of k, nil for no key (or a key this
// table lacks, which TestEveryKeyHasACode rules out).
func codesOf(k hotkey.Key) []uint16 {
	if k == 0 {
		return nil
	}
	return linuxKeys[k.String()]
}

// modOf returns the modifier a key code produces, 0 for other keys.
func modOf(code uint16) hotkey.Mods {
	switch code {
	case keyLeftCtrl, keyRightCtrl:
		return hotkey.ModCtrl
	case keyLeftShift, keyRightShift:
		return hotkey.ModShift
	case keyLeftAlt, keyRightAlt:
		return hotkey.ModAlt
	case keyLeftMeta, keyRightMeta:
		return hotkey.ModWin
	}
	return 0
}

// isKeyboard reports whether a device with the key bitmap bits (EVIOCGBIT
// for EV_KEY) has every letter and space.
func isKeyboard(bits []byte) bool {
	for _, c := range keyboardKeys {
		if !bitSet(bits, c) {
			return false
		}
	}
	return true
}

// bitSet reads bit n of a kernel bitmap: an array of C longs in the
// machine's byte order, bit n in long n/bits-per-long.
func bitSet(bits []byte, n uint16) bool {
	const perWord = 8 * wordSize
	i := int(n/perWord) * wordSize
	if i+wordSize > len(bits) {
		return false
	}
	var w uint64
	if wordSize == 8 {
		w = binary.NativeEndian.Uint64(bits[i:])
	} else {
		w = uint64(binary.NativeEndian.Uint32(bits[i:]))
	}
	return w&(1<<(n%perWord)) != 0
}

// codesSet lists the codes whose bit is set in bits (EVIOCGKEY's answer).
func codesSet(bits []byte) []uint16 {
	var out []uint16
	for n := range uint16(len(bits) * 8) {
		if bitSet(bits, n) {
			out = append(out, n)
		}
	}
	return out
}
