package output

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode"
)

// ErrNotUndone wraps every reason Undo gives for leaving the window as it
// was; the rest of the message is for the user.
var ErrNotUndone = errors.New("not undone")

// Reasons Undo refuses; each wraps ErrNotUndone.
var (
	ErrNothingToUndo = fmt.Errorf("%w: there is no pasted dictation to take back (none yet, it was undone already, or it was left on the clipboard)", ErrNotUndone)
	ErrFocusMoved    = fmt.Errorf("%w: another window has the focus now than the one the dictation went to", ErrNotUndone)
	ErrTerminal      = fmt.Errorf("%w: the dictation went to a terminal, where the line may have run; remove it there by hand", ErrNotUndone)
	ErrSent          = fmt.Errorf("%w: the dictation was sent with Enter", ErrNotUndone)
	ErrTextChanged   = fmt.Errorf("%w: the text before the cursor is no longer the dictation (something was typed or changed since)", ErrNotUndone)
	ErrNoCopy        = fmt.Errorf("%w: the window did not copy the text before the cursor, so the dictation could not be checked", ErrNotUndone)
)

// undoMarker is what the clipboard holds while Undo waits for the target to
// copy the selection over it.
const undoMarker = "WhisperKey: checking the text to undo"

// insertion is what the last Output put into a window: what Undo may take back.
type insertion struct {
	text    string // as delivered, joined: what the window received
	target  uint64 // the window it went to
	entered bool   // Enter went after it: the message was sent
}

// editKeys are the codes Undo presses on this system.
type editKeys struct{ ctrl, shift, left, right, backspace, c uint32 }

// undoRefusal says why the insertion last cannot be taken out of the window
// focused now, whose paste style is style; nil means it may be tried (the
// check of the text itself follows). focused is 0 when unknown.
func undoRefusal(last insertion, focused uint64, style pasteStyle) error {
	switch {
	case last.text == "":
		return ErrNothingToUndo
	case focused == 0 || focused != last.target:
		return ErrFocusMoved
	case style != pasteCtrlV:
		return ErrTerminal
	case last.entered:
		return ErrSent
	}
	return nil
}

// cursorSteps is how many times Left moves the cursor over text: once per
// character, combining marks riding on the one before.
func cursorSteps(text string) int {
	n := 0
	for _, r := range text {
		if !unicode.In(r, unicode.Mn, unicode.Me) {
			n++
		}
	}
	return n
}

// moveSeq holds Shift while pressing key n times: it selects over n
// characters, or gives such a selection back.
func moveSeq(k editKeys, key uint32, n int) []keyEvent {
	seq := make([]keyEvent, 0, 2*n+2)
	seq = append(seq, keyEvent{k.shift, true})
	for range n {
		seq = append(seq, keyEvent{key, true}, keyEvent{key, false})
	}
	return append(seq, keyEvent{k.shift, false})
}

// Undo takes the last text Output delivered back out of its window: it
// selects back over exactly that many characters, copies the selection to
// check it is still the text, and deletes it. When it cannot be sure (nothing
// to undo, another window focused, a terminal, the text sent with Enter, the
// text before the cursor changed, a window that does not copy) it
// leaves the window as it was and returns an error wrapping ErrNotUndone that
// says why. The clipboard is put back as after a paste.
func (p *Paster) Undo(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("output: paster closed")
	}
	last := p.last
	focused, _, err := p.os.target()
	if err != nil {
		p.log.Debug("cannot identify the focused window", "err", err)
		focused = 0
	}
	p.os.use(focused)
	style := pasteCtrlV
	if last.text != "" && focused == last.target {
		style = p.os.pasteStyle(focused)
	}
	if err := undoRefusal(last, focused, style); err != nil {
		return err
	}
	k, err := p.os.editKeys()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotUndone, err)
	}
	again, err := p.keysFree(ctx)
	if err != nil {
		return err
	}
	defer again()
	n := cursorSteps(last.text)
	if err := p.os.send(moveSeq(k, k.left, n)); err != nil {
		return fmt.Errorf("select the dictation: %w", err)
	}
	got, err := p.copySelection(ctx, k)
	if err == nil && got != last.text {
		err = ErrTextChanged
	}
	if err != nil {
		// Shift+Right as often gives the selection back: the cursor is where it was.
		if serr := p.os.send(moveSeq(k, k.right, n)); serr != nil {
			p.log.Warn("could not give the selection back", "err", serr)
		}
		return err
	}
	if err := p.os.send([]keyEvent{{k.backspace, true}, {k.backspace, false}}); err != nil {
		return fmt.Errorf("delete the dictation: %w", err)
	}
	p.last = insertion{}
	p.join.Revert()
	p.log.Info("dictation undone", "chars", n)
	return nil
}

// copySelection copies the target's selection with Ctrl+C and returns it;
// the clipboard holds what it held before once it returns.
func (p *Paster) copySelection(ctx context.Context, k editKeys) (string, error) {
	saved, err := p.os.save(ctx)
	if err != nil {
		p.log.Warn("cannot save the clipboard; it will not be restored", "err", err)
	}
	own, err := p.os.write(ctx, undoMarker, true)
	if err != nil {
		return "", fmt.Errorf("put a marker on the clipboard: %w", err)
	}
	defer func() {
		if saved == nil {
			return
		}
		// The target owns the clipboard now, with the copy: take it back to restore.
		if back, err := p.os.write(context.WithoutCancel(ctx), undoMarker, true); err != nil {
			p.log.Warn("cannot restore the clipboard", "err", err)
		} else {
			p.restore(ctx, saved, back)
		}
	}()
	if err := p.os.send([]keyEvent{{k.ctrl, true}, {k.c, true}, {k.c, false}, {k.ctrl, false}}); err != nil {
		return "", fmt.Errorf("copy the selection: %w", err)
	}
	deadline := time.Now().Add(p.cfg.ReadTimeout)
	for p.os.stillOurs(own) {
		if time.Now().After(deadline) {
			return "", ErrNoCopy
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	copied, err := p.os.save(ctx)
	if err != nil {
		return "", fmt.Errorf("%w (%v)", ErrNoCopy, err)
	}
	text, ok := copied.text()
	if !ok {
		return "", ErrNoCopy
	}
	return text, nil
}
