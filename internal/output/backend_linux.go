package output

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"golang.design/x/clipboard"
)

// Keysyms used for pasting and for telling modifiers from other keys.
const (
	xkControlL = 0xffe3
	xkV        = 0x0076
	xkReturn   = 0xff0d
	xkShiftL   = 0xffe1
	xkInsert   = 0xff63
	xkTab      = 0xff09 // typing a tab through the RemoteDesktop portal
	// for Undo
	xkLeft      = 0xff51
	xkRight     = 0xff53
	xkBackSpace = 0xff08
	xkC         = 0x0063
)

var xkModifiers = []uint64{
	0xffe1, 0xffe2, // Shift_L, Shift_R
	0xffe3, 0xffe4, // Control_L, Control_R
	0xffe7, 0xffe8, // Meta_L, Meta_R
	0xffe9, 0xffea, // Alt_L, Alt_R
	0xffeb, 0xffec, // Super_L, Super_R
	0xffed, 0xffee, // Hyper_L, Hyper_R
	0xfe03, 0xff7e, // ISO_Level3_Shift (AltGr), Mode_switch
}

// osBackend on Linux: the clipboard through golang.design/x/clipboard (X11 or Wayland
// data-control), keystrokes through XTest. X11 clipboards are served by their owner,
// so our text is only pastable while this process runs.
type osBackend struct {
	log  *slog.Logger
	x    *xlib // nil when keystrokes are impossible
	xErr error
	pk   pasteKeys
	mods map[uint32]bool
	// owner serves pasted text itself to see the target read it; nil without cgo or X.
	owner         *xOwner
	shift, insert uint32 // keycodes for the terminals' paste keys

	// wl is the route into native Wayland windows; nil outside Wayland.
	wl *wayland
	// names are the keysym names of the codes above, by which the
	// virtual keyboard (vkbd_linux.go) finds its own keys.
	names map[uint32]string
	// cur is the target of the Output or Undo in progress (set by use,
	// under the Paster's lock): a Wayland one takes the wl route.
	cur uint64
}

// wlKeysyms are the keys WhisperKey presses, by keysym and by name.
var wlKeysyms = map[uint64]string{xkControlL: "Control_L", xkV: "v", xkReturn: "Return", xkShiftL: "Shift_L",
	xkInsert: "Insert", xkLeft: "Left", xkRight: "Right", xkBackSpace: "BackSpace", xkC: "c"}

func newOSBackend(log *slog.Logger, cfg Config) (*osBackend, error) {
	if err := clipboard.Init(); err != nil {
		return nil, fmt.Errorf("open the clipboard: %w", err)
	}
	b := &osBackend{log: log, wl: newWayland(log, os.Getenv, cfg.RemoteTokenPath), names: map[uint32]string{}}
	x, err := openXlib()
	if err != nil {
		b.xErr = err
		if b.wl == nil {
			log.Warn("paste keystroke unavailable; text will be left on the clipboard", "err", err)
			return b, nil
		}
		// Wayland without X: the keysyms themselves are the codes, which
		// only the Wayland route reads.
		log.Info("no X display; pasting into Wayland windows only", "err", err)
		b.pk = pasteKeys{ctrl: xkControlL, v: xkV, enter: xkReturn}
		b.shift, b.insert = xkShiftL, xkInsert
		for ks, name := range wlKeysyms {
			b.names[uint32(ks)] = name
		}
		return b, nil
	}
	b.x = x
	b.pk = pasteKeys{ctrl: x.keycode(xkControlL), v: x.keycode(xkV), enter: x.keycode(xkReturn)}
	if b.pk.ctrl == 0 || b.pk.v == 0 || b.pk.enter == 0 {
		b.xErr = errors.New("the keyboard layout lacks Control_L, v or Return")
	}
	b.shift, b.insert = x.keycode(xkShiftL), x.keycode(xkInsert)
	for ks, name := range wlKeysyms {
		if kc := x.keycode(ks); kc != 0 {
			b.names[kc] = name
		}
	}
	if b.owner, err = newXOwner(log); err != nil {
		log.Warn("cannot watch the target read the clipboard; restoring after a fixed delay", "err", err)
	}
	b.mods = map[uint32]bool{}
	for _, ks := range xkModifiers {
		if kc := x.keycode(ks); kc != 0 {
			b.mods[kc] = true
		}
	}
	return b, nil
}

func (b *osBackend) close() error {
	if b.wl != nil {
		b.wl.close()
	}
	if b.owner != nil {
		b.owner.close()
	}
	if b.x != nil {
		b.x.close()
	}
	return nil
}

// target is the focused window: on Wayland a native window (wlTarget)
// unless the compositor says it is XWayland's, or, where it cannot be
// asked, an X client window has the X focus; otherwise the focused X
// window. Nothing on X11 blocks synthetic input by privilege.
func (b *osBackend) target() (uint64, bool, error) {
	if b.wl != nil {
		if w, ok := b.wl.focused(); ok {
			if !w.xwayland {
				return wlTarget | w.id, false, nil
			}
		} else if !b.xClientFocused() {
			return wlTarget, false, nil
		}
	}
	if b.x == nil {
		return 0, false, b.xErr
	}
	return b.x.focus(), false, nil
}

// xClientFocused says an X client's window has the X focus: under
// XWayland the focus is None (or the compositor's own window, which has
// no WM_CLASS) while a native Wayland window has it.
func (b *osBackend) xClientFocused() bool {
	if b.x == nil || b.owner == nil {
		return false
	}
	f := b.x.focus()
	if f <= 1 {
		return false
	}
	class, _ := b.owner.windowClass(f)
	return class != ""
}

// use sets the target of the Output or Undo that starts.
func (b *osBackend) use(target uint64) { b.cur = target }

func (b *osBackend) canPaste() error {
	if isWayland(b.cur) {
		return b.wl.keysErr()
	}
	return b.xErr
}

func (b *osBackend) keys() pasteKeys { return b.pk }

func (b *osBackend) keysDown() ([]uint32, error) {
	if isWayland(b.cur) {
		return nil, errors.New("no application may read the keyboard on Wayland")
	}
	if b.x == nil {
		return nil, b.xErr
	}
	return b.x.keysDown(), nil
}

func (b *osBackend) isModifier(code uint32) bool { return b.mods[code] }

func (b *osBackend) send(keys []keyEvent) error {
	if isWayland(b.cur) {
		return b.wl.send(keys, b.names)
	}
	if b.x == nil {
		return b.xErr
	}
	b.x.send(keys)
	return nil
}

func (b *osBackend) save(ctx context.Context) (*snapshot, error) { return saveClipboard(ctx, b.log) }

// write owns the clipboard with text; temporary makes no difference here.
func (b *osBackend) write(ctx context.Context, text string, _ bool) (*ownership, error) {
	return writeClipboard(ctx, text)
}

func (b *osBackend) stillOurs(o *ownership) bool { return o.stillOurs() }

// restore puts the snapshot back if our text is still on the clipboard. An empty
// snapshot empties the clipboard again.
func (b *osBackend) restore(ctx context.Context, s *snapshot, o *ownership) (bool, error) {
	if o.primary && b.owner != nil {
		b.owner.releasePrimary()
	}
	if !o.stillOurs() {
		return false, nil
	}
	if len(s.items) == 0 {
		if b.wl != nil && (isWayland(b.cur) || b.x == nil) {
			if err := b.wl.clear(ctx); err != nil {
				return false, fmt.Errorf("empty the clipboard: %w", err)
			}
			return true, nil
		}
		if b.x == nil {
			return false, fmt.Errorf("empty the clipboard: %w", b.xErr)
		}
		b.x.disownClipboard()
		return true, nil
	}
	if err := s.writeBack(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// editKeys are the keycodes Undo presses: Shift, the arrows, BackSpace and C.
func (b *osBackend) editKeys() (editKeys, error) {
	if isWayland(b.cur) {
		return editKeys{}, errors.New("WhisperKey cannot yet read back what a native Wayland window holds, which taking text back out needs; press Ctrl+Z there")
	}
	if b.x == nil {
		return editKeys{}, b.xErr
	}
	k := editKeys{ctrl: b.pk.ctrl, shift: b.shift, left: b.x.keycode(xkLeft), right: b.x.keycode(xkRight),
		backspace: b.x.keycode(xkBackSpace), c: b.x.keycode(xkC)}
	if k.ctrl == 0 || k.shift == 0 || k.left == 0 || k.right == 0 || k.backspace == 0 || k.c == 0 {
		return editKeys{}, errors.New("the keyboard layout lacks Shift, the arrow keys, BackSpace or c")
	}
	return k, nil
}
