package output

import (
	"context"
	"errors"
)

// pasteStyle reads the target's WM_CLASS: terminals get their own paste keystroke.
func (b *osBackend) pasteStyle(target uint64) pasteStyle {
	if isWayland(target) {
		if w, ok := b.wl.focused(); ok && wlTarget|w.id == target {
			return terminalStyle(w.appID, "")
		}
		return pasteCtrlV
	}
	if b.owner == nil || target <= 1 {
		return pasteCtrlV
	}
	class, name := b.owner.windowClass(target)
	s := terminalStyle(class, name)
	b.log.Debug("paste keystroke chosen by window class", "class", class, "instance", name, "keys", s)
	return s
}

// writeFor puts text on the clipboard for target. With our own selection owner the
// ownership reports when the target reads it; Shift+Insert terminals read PRIMARY,
// so that is offered too.
func (b *osBackend) writeFor(ctx context.Context, text string, target uint64, style pasteStyle) (*ownership, error) {
	if b.owner == nil || isWayland(target) {
		return b.write(ctx, text, true)
	}
	o, err := b.owner.offer(text, target, style == pasteShiftInsert)
	if err != nil {
		b.log.Warn("cannot serve the clipboard ourselves; restoring after a fixed delay", "err", err)
		return b.write(ctx, text, true)
	}
	return &ownership{lost: o.lost, read: o.read, primary: o.primary}, nil
}

func (b *osBackend) pasteSeq(s pasteStyle) []keyEvent {
	k := b.pk
	switch s {
	case pasteCtrlShiftV:
		return []keyEvent{{k.ctrl, true}, {b.shift, true}, {k.v, true}, {k.v, false}, {b.shift, false}, {k.ctrl, false}}
	case pasteShiftInsert:
		return []keyEvent{{b.shift, true}, {b.insert, true}, {b.insert, false}, {b.shift, false}}
	}
	return []keyEvent{{k.ctrl, true}, {k.v, true}, {k.v, false}, {k.ctrl, false}}
}

// typeText sends each character as a keystroke through XTest, mapping a spare keycode
// to characters the keyboard layout lacks.
func (b *osBackend) typeText(ctx context.Context, text string) error {
	if isWayland(b.cur) {
		return b.wl.typeText(ctx, text)
	}
	if b.owner == nil {
		return errors.New("typing needs the X connection that this build or display lacks")
	}
	return b.owner.typeText(ctx, text)
}
