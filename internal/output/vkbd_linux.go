package output

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/whisperkey/whisperkey/internal/wlwire"
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

// vkSend presses keys (keysym names with their state) through the
// virtual-keyboard protocol of the compositor at socket, and returns once
// the compositor has handled them.
func vkSend(ctx context.Context, socket string, keys []keyEvent, names map[uint32]string) error {
	w, err := wlwire.Dial(ctx, socket)
	if err != nil {
		return err
	}
	defer w.Close()
	_ = w.SetDeadline(time.Now().Add(3 * time.Second))
	// The globals: wl_seat and the virtual keyboard manager.
	reg, globals, err := w.Registry()
	if err != nil {
		return err
	}
	var seat, manager *wlwire.Global
	for i, g := range globals {
		switch {
		case g.Interface == "wl_seat" && seat == nil:
			seat = &globals[i]
		case g.Interface == "zwp_virtual_keyboard_manager_v1":
			manager = &globals[i]
		}
	}
	if seat == nil || manager == nil {
		return errors.New("the compositor offers no virtual-keyboard protocol")
	}
	seatID := w.Bind(reg, *seat, 1)
	managerID := w.Bind(reg, *manager, 1)
	kbd := w.NewID()
	w.Msg(managerID, 0, wlwire.Uint(seatID, kbd)) // create_virtual_keyboard
	fd, size, err := keymapFD()
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	w.Msg(kbd, 0, wlwire.Uint(1, size)) // keymap: format xkb_v1, the fd travels beside
	if err := w.Flush(fd); err != nil {
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
		w.Msg(kbd, 1, wlwire.Uint(t0+uint32(i), key.code, state))
		if key.mod != 0 {
			if k.down {
				mods |= key.mod
			} else {
				mods &^= key.mod
			}
			w.Msg(kbd, 2, wlwire.Uint(mods, 0, 0, 0))
		}
	}
	done := w.NewID()
	w.Msg(wlwire.Display, 0, wlwire.Uint(done)) // sync
	if err := w.Flush(-1); err != nil {
		return err
	}
	for {
		e, err := w.Read()
		if err != nil {
			return err
		}
		switch {
		case e.Obj == done && e.Op == 0:
			// The keyboard stays a moment: a client reads the keys'
			// meaning through the keyboard, and one that vanishes at once
			// can take its keymap along before the keys are handled.
			select {
			case <-time.After(150 * time.Millisecond):
			case <-ctx.Done():
			}
			w.Msg(kbd, 3, nil) // destroy
			return w.Flush(-1)
		case e.Obj == wlwire.Display && e.Op == 0:
			return fmt.Errorf("the compositor refused the virtual keyboard: %w", wlwire.ProtocolError(e.Body))
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
