package output

import (
	"context"
	"errors"
	"fmt"
)

// Reasons Selection and a replacing Output leave the window as it was; the
// messages are for the user.
var (
	ErrNoSelection         = errors.New("no text is selected: select the text to rewrite first (a window that does not copy with Ctrl+C cannot be rewritten either)")
	ErrSelectionInTerminal = errors.New("the selection is in a terminal, where Ctrl+C would stop the running program instead of copying; rewrite text in an editor or a text field")
	ErrFocusChanged        = errors.New("another window has the focus now than the one with the selection, so the rewrite was not put in; Paste again inserts it where the focus is")
	ErrSelectionChanged    = errors.New("the selection changed while the chat server answered, so the rewrite was not put in; Paste again inserts it where the cursor is")
)

// Selection is the text selected in a window.
type Selection struct {
	Text   string
	Window uint64 // the window it is in; 0 when unknown
}

// Selection copies the focused window's selection (Ctrl+C) and returns it;
// the clipboard holds what it held before once it returns. Nothing selected
// or a terminal give an error that says so; with
// ErrNoSelection the Selection still names the window, for an insertion
// at its cursor (Options.Replace with no Text).
func (p *Paster) Selection(ctx context.Context) (Selection, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return Selection{}, errors.New("output: paster closed")
	}
	focused, _, err := p.os.target()
	if err != nil {
		p.log.Debug("cannot identify the focused window", "err", err)
		focused = 0
	}
	p.os.use(focused) // the route (X11 or Wayland) of this window, not the last one's
	if p.os.pasteStyle(focused) != pasteCtrlV {
		return Selection{}, ErrSelectionInTerminal
	}
	k, err := p.os.editKeys()
	if err != nil {
		return Selection{}, fmt.Errorf("copy the selection: %w", err)
	}
	again, err := p.keysFree(ctx)
	if err != nil {
		return Selection{}, err
	}
	defer again()
	text, err := p.copySelection(ctx, k)
	switch {
	case errors.Is(err, ErrNoCopy), err == nil && text == "":
		return Selection{Window: focused}, ErrNoSelection
	case err != nil:
		return Selection{}, err
	}
	return Selection{Text: text, Window: focused}, nil
}

// clearSelection deletes the selection Output is to replace, once a second
// copy shows it is still want: a click meanwhile would otherwise make the
// Backspace eat a character. Pasting over a selection does not replace it
// everywhere (Tk on X11 inserts beside it), Backspace on one deletes it
// everywhere.
func (p *Paster) clearSelection(ctx context.Context, want string) error {
	k, err := p.os.editKeys()
	if err != nil {
		return fmt.Errorf("replace the selection: %w", err)
	}
	again, err := p.keysFree(ctx)
	if err != nil {
		return err
	}
	defer again()
	got, err := p.copySelection(ctx, k)
	if err != nil || got != want {
		if err != nil {
			p.log.Debug("the selection could not be copied again", "err", err)
		}
		return ErrSelectionChanged
	}
	if err := p.os.send([]keyEvent{{k.backspace, true}, {k.backspace, false}}); err != nil {
		return fmt.Errorf("delete the selection: %w", err)
	}
	return nil
}
