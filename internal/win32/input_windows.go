package win32

import (
	"fmt"
	"unsafe"
)

var (
	procSendInput        = user32.NewProc("SendInput")
	procGetAsyncKeyState = user32.NewProc("GetAsyncKeyState")
)

const inputKeyboard = 1

// Key.Flags (KEYEVENTF_*).
const (
	KeyExtended = 0x0001 // the key's scan code has the E0 prefix
	KeyUp       = 0x0002 // a release; a press without it
	KeyUnicode  = 0x0004 // Scan is a UTF-16 code unit to type, VK is 0
)

// Key is one key event for SendKeys: KEYBDINPUT's fields.
type Key struct {
	VK, Scan uint16
	Flags    uint32 // KEYEVENTF_*
	Extra    uintptr
}

// keyboardInput is INPUT holding a KEYBDINPUT, padded to the union's size (MOUSEINPUT
// has 8 more bytes), since SendInput checks cbSize. Nesting the struct gives the C
// alignment: the union starts at offset 8 on 64-bit Windows (40 bytes in all) and at
// 4 on 32-bit (28 bytes).
type keyboardInput struct {
	typ uint32
	ki  keybdInput
	_   [8]byte
}

type keybdInput struct {
	vk    uint16
	scan  uint16
	flags uint32
	time  uint32
	extra uintptr
}

// SendKeys injects keys in one SendInput call, so nothing the user types comes
// between them. It fails when Windows took fewer, as when the focused window
// runs more privileged than we do.
func SendKeys(keys []Key) error {
	if len(keys) == 0 {
		return nil
	}
	in := make([]keyboardInput, len(keys))
	for i, k := range keys {
		in[i] = keyboardInput{typ: inputKeyboard, ki: keybdInput{vk: k.VK, scan: k.Scan, flags: k.Flags, extra: k.Extra}}
	}
	n, _, err := procSendInput.Call(uintptr(len(in)), uintptr(unsafe.Pointer(&in[0])), unsafe.Sizeof(in[0]))
	if int(n) != len(in) {
		return fmt.Errorf("SendInput sent %d of %d key events: %w", n, len(in), err)
	}
	return nil
}

// KeyDown reports whether the virtual key vk is down now, in the keyboard state
// Windows keeps (which it updates after the low-level hooks saw an event).
func KeyDown(vk uint32) bool {
	r, _, _ := procGetAsyncKeyState.Call(uintptr(vk))
	return r&0x8000 != 0
}
