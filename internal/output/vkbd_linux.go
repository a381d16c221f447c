package output

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// vkKeymap is the keyboard WhisperKey's virtual keyboard presents: the keys
// it presses, at their usual evdev keycodes (a US keyboard's). Toolkits
// that match shortcuts by keycode against the layout they knew (GTK 3)
// then see Ctrl+V where wtype's keymap, which numbers keys in the order it
// meets them, gives them a keycode of another key.
const vkKeymap = `xkb_keymap {
xkb_keycodes "whisperkey" {
	minimum = 8; maximum = 255;
	<BKSP> = 22; <RTRN> = 36; <LCTL> = 37; <LFSH> = 50; <AB03> = 54; <AB04> = 55;
	<LEFT> = 113; <RGHT> = 114; <INS> = 118;
};
xkb_types "whisperkey" { include "complete" };
xkb_compatibility "whisperkey" { include "complete" };
xkb_symbols "whisperkey" {
	key <BKSP> { [ BackSpace ] }; key <RTRN> { [ Return ] }; key <LCTL> { [ Control_L ] };
	key <LFSH> { [ Shift_L ] }; key <AB03> { [ c, C ] }; key <AB04> { [ v, V ] };
	key <LEFT> { [ Left ] }; key <RGHT> { [ Right ] }; key <INS> { [ Insert ] };
	modifier_map Control { <LCTL> }; modifier_map Shift { <LFSH> };
};
};
`

// vkKeys are the evdev keycodes (xkb keycode - 8) and the modifier masks of
// vkKeymap, by keysym name.
var vkKeys = map[string]struct {
	code uint32
	mod  uint32 // the modifier it holds down; 0 for other keys
}{
	"BackSpace": {14, 0}, "Return": {28, 0}, "Control_L": {29, 4}, "Shift_L": {42, 1}, "c": {46, 0}, "v": {47, 0},
	"Left": {105, 0}, "Right": {106, 0}, "Insert": {110, 0},
}

// Object ids of the virtual-keyboard connection, in the order it makes them.
const (
	vkDisplay = 1
	vkReg     = 2
	vkSync    = 3
	vkSeat    = 4
	vkManager = 5
	vkKbd     = 6
	vkDone    = 7
)

// vkSend presses keys (keysym names with their state) through the
// virtual-keyboard protocol of the compositor at socket, and returns once
// the compositor has handled them.
func vkSend(ctx context.Context, socket string, keys []keyEvent, names map[uint32]string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return fmt.Errorf("connect to the compositor: %w", err)
	}
	defer c.Close()
	uc := c.(*net.UnixConn)
	_ = uc.SetDeadline(time.Now().Add(3 * time.Second))
	w := &wlWire{c: uc}
	// The globals: wl_seat and the virtual keyboard manager.
	w.msg(vkDisplay, 1, u32(vkReg))
	w.msg(vkDisplay, 0, u32(vkSync))
	if err := w.flush(-1); err != nil {
		return err
	}
	var seat, manager [2]uint32 // name, version
	for {
		obj, op, body, err := w.read()
		if err != nil {
			return err
		}
		if obj == vkSync && op == 0 {
			break
		}
		if obj == vkReg && op == 0 && len(body) >= 8 {
			name := binary.LittleEndian.Uint32(body)
			iface, ok := globalString(body[4:])
			if !ok {
				continue
			}
			ver := binary.LittleEndian.Uint32(body[len(body)-4:])
			switch {
			case iface == "wl_seat" && seat[0] == 0:
				seat = [2]uint32{name, 1}
			case iface == "zwp_virtual_keyboard_manager_v1":
				manager = [2]uint32{name, min(ver, 1)}
			}
		}
	}
	if seat[0] == 0 || manager[0] == 0 {
		return errors.New("the compositor offers no virtual-keyboard protocol")
	}
	w.msg(vkReg, 0, append(u32(seat[0]), append(str("wl_seat"), u32(seat[1], vkSeat)...)...))
	w.msg(vkReg, 0, append(u32(manager[0]), append(str("zwp_virtual_keyboard_manager_v1"), u32(manager[1], vkManager)...)...))
	w.msg(vkManager, 0, u32(vkSeat, vkKbd))
	fd, size, err := keymapFD()
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	w.msg(vkKbd, 0, u32(1, size)) // format xkb_v1, the fd travels beside
	if err := w.flush(fd); err != nil {
		return err
	}
	var mods uint32
	t0 := uint32(time.Now().UnixMilli())
	for i, k := range keys {
		key, ok := vkKeys[names[k.code]]
		if !ok {
			return fmt.Errorf("no virtual key for code %d (%q)", k.code, names[k.code])
		}
		state := uint32(0)
		if k.down {
			state = 1
		}
		w.msg(vkKbd, 1, u32(t0+uint32(i), key.code, state))
		if key.mod != 0 {
			if k.down {
				mods |= key.mod
			} else {
				mods &^= key.mod
			}
			w.msg(vkKbd, 2, u32(mods, 0, 0, 0))
		}
	}
	w.msg(vkDisplay, 0, u32(vkDone))
	if err := w.flush(-1); err != nil {
		return err
	}
	for {
		obj, op, body, err := w.read()
		if err != nil {
			return err
		}
		switch {
		case obj == vkDone && op == 0:
			// The keyboard stays a moment: a client reads the keys'
			// meaning through the keyboard, and one that vanishes at once
			// can take its keymap along before the keys are handled.
			select {
			case <-time.After(150 * time.Millisecond):
			case <-ctx.Done():
			}
			w.msg(vkKbd, 3, nil)
			return w.flush(-1)
		case obj == vkDisplay && op == 0:
			return fmt.Errorf("the compositor refused the virtual keyboard (protocol error %d)", binary.LittleEndian.Uint32(body[4:]))
		}
	}
}

// keymapFD is vkKeymap in a sealed memory file, as the protocol passes it.
func keymapFD() (int, uint32, error) {
	fd, err := unix.MemfdCreate("whisperkey-keymap", unix.MFD_CLOEXEC)
	if err != nil {
		return -1, 0, fmt.Errorf("keymap file: %w", err)
	}
	b := append([]byte(vkKeymap), 0)
	if _, err := unix.Write(fd, b); err != nil {
		unix.Close(fd)
		return -1, 0, fmt.Errorf("keymap file: %w", err)
	}
	return fd, uint32(len(b)), nil
}

// wlWire writes Wayland requests and reads events on one connection.
type wlWire struct {
	c   *net.UnixConn
	out []byte
}

func (w *wlWire) msg(obj uint32, op uint16, args []byte) {
	h := make([]byte, 8)
	binary.LittleEndian.PutUint32(h, obj)
	binary.LittleEndian.PutUint16(h[4:], op)
	binary.LittleEndian.PutUint16(h[6:], uint16(8+len(args)))
	w.out = append(append(w.out, h...), args...)
}

// flush sends the buffered requests, with fd (when >= 0) as ancillary data.
func (w *wlWire) flush(fd int) error {
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	_, _, err := w.c.WriteMsgUnix(w.out, oob, nil)
	w.out = w.out[:0]
	if err != nil {
		return fmt.Errorf("write to the compositor: %w", err)
	}
	return nil
}

func (w *wlWire) read() (obj uint32, op uint16, body []byte, err error) {
	h := make([]byte, 8)
	if _, err := io.ReadFull(w.c, h); err != nil {
		return 0, 0, nil, fmt.Errorf("read from the compositor: %w", err)
	}
	size := int(binary.LittleEndian.Uint16(h[6:]))
	if size < 8 {
		return 0, 0, nil, fmt.Errorf("read from the compositor: bad message size %d", size)
	}
	body = make([]byte, size-8)
	if _, err := io.ReadFull(w.c, body); err != nil {
		return 0, 0, nil, fmt.Errorf("read from the compositor: %w", err)
	}
	return binary.LittleEndian.Uint32(h), binary.LittleEndian.Uint16(h[4:]), body, nil
}

func u32(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// str is a Wayland string argument: length with the NUL, padded to 4.
func str(s string) []byte {
	n := len(s) + 1
	b := make([]byte, 4+(n+3)/4*4)
	binary.LittleEndian.PutUint32(b, uint32(n))
	copy(b[4:], s)
	return b
}

// globalString reads a string argument at the start of b.
func globalString(b []byte) (string, bool) {
	if len(b) < 4 {
		return "", false
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n < 1 || 4+n > len(b) {
		return "", false
	}
	return string(b[4 : 4+n-1]), true
}
