package output

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNotRead means the paste keystroke went out but the target never asked for the
// clipboard within ReadTimeout: the text did not arrive. It is left on the clipboard.
var ErrNotRead = errors.New("the window did not take the text; it is on the clipboard — press Ctrl+V")

// readGrace is how long the target may go on reading after its first request: an app
// may ask for the text in several formats, one after the other.
const readGrace = 150 * time.Millisecond

// pasteStyle is the keystroke that pastes the clipboard in the target.
type pasteStyle int

const (
	pasteCtrlV       pasteStyle = iota
	pasteCtrlShiftV             // terminals where Ctrl+V is a control character
	pasteShiftInsert            // xterm-likes (they paste PRIMARY: we own it too), Windows consoles
)

func (s pasteStyle) String() string {
	switch s {
	case pasteCtrlShiftV:
		return "ctrl+shift+v"
	case pasteShiftInsert:
		return "shift+insert"
	}
	return "ctrl+v"
}

// terminalStyle picks the paste keystroke from the target's window class (X11:
// WM_CLASS class and instance; Windows: the class name). Most applications take Ctrl+V.
func terminalStyle(class, name string) pasteStyle {
	for _, n := range []string{strings.ToLower(class), strings.ToLower(name)} {
		switch n {
		case "xterm", "uxterm", "rxvt", "urxvt", "urxvt-unicode", "aterm", "eterm",
			// Windows: the console host, mintty (Git Bash, Cygwin) and PuTTY take Shift+Insert.
			"consolewindowclass", "mintty", "putty", "pseudoconsolewindow":
			return pasteShiftInsert
		case "gnome-terminal", "gnome-terminal-server", "org.gnome.terminal", "org.gnome.console", "kgx",
			"xfce4-terminal", "mate-terminal", "lxterminal", "tilix", "terminator", "sakura", "guake",
			"tilda", "konsole", "yakuake", "qterminal", "terminology", "kitty", "alacritty", "wezterm",
			"org.wezfurlong.wezterm", "foot", "st", "st-256color", "ghostty", "com.mitchellh.ghostty",
			"cool-retro-term", "deepin-terminal", "x-terminal-emulator",
			// Windows Terminal takes Ctrl+V as well, but Ctrl+Shift+V is its terminal-safe binding.
			"cascadia_hosting_window_class":
			return pasteCtrlShiftV
		}
	}
	return pasteCtrlV
}

// readSignal closes when the target asked for our text; nil where nobody can tell.
func (o *ownership) readSignal() <-chan struct{} { return o.read }

// awaitRead waits for the target to fetch the text, up to ReadTimeout after pastedAt.
// It reports false when the target never asked and our text is still on the
// clipboard, which stays there.
func (p *Paster) awaitRead(ctx context.Context, own *ownership, res *Result, pastedAt time.Time) bool {
	read := own.readSignal()
	if read == nil {
		// Nothing reports the read here: give the target RestoreDelay, as before.
		select {
		case <-time.After(p.cfg.RestoreDelay):
		case <-ctx.Done():
		}
		return true
	}
	timeout := time.NewTimer(time.Until(pastedAt.Add(p.cfg.ReadTimeout)))
	defer timeout.Stop()
	select {
	case <-read:
		res.Verified = true
		select {
		case <-time.After(readGrace):
		case <-ctx.Done():
		}
		return true
	case <-ctx.Done():
		return true
	case <-timeout.C:
	}
	if !p.os.stillOurs(own) {
		return true // another program wrote the clipboard meanwhile; restore leaves it
	}
	p.log.Info("the target did not ask for the clipboard; leaving the text there", "waited", p.cfg.ReadTimeout)
	res.OnClipboard = true
	return false
}

// typeOut sends the text as Unicode keystrokes; the clipboard is not touched. When
// typing is impossible the text goes on the clipboard and ErrNoPaste says so.
func (p *Paster) typeOut(ctx context.Context, res Result, opt Options) (Result, error) {
	if err := p.os.canPaste(); err != nil {
		return p.leaveOnClipboard(ctx, res, err)
	}
	lifted, err := p.waitKeysReleased(ctx)
	if err != nil {
		return res, err
	}
	var up, down []keyEvent
	for _, m := range lifted {
		up, down = append(up, keyEvent{m, false}), append(down, keyEvent{m, true})
	}
	if len(up) > 0 {
		if err := p.os.send(up); err != nil {
			return p.leaveOnClipboard(ctx, res, err)
		}
		defer p.os.send(down) //nolint:errcheck // best effort: the user's keys go back down
	}
	if err := p.os.typeText(ctx, res.Text); err != nil {
		return p.leaveOnClipboard(ctx, res, err)
	}
	res.Typed, res.PastedAt = true, time.Now()
	if opt.PressEnter { // only the auto-send hotkey or a profile asks: the mode here is type
		select {
		case <-time.After(p.cfg.EnterDelay):
		case <-ctx.Done():
		}
		k := p.os.keys()
		if err := p.os.send([]keyEvent{{k.enter, true}, {k.enter, false}}); err != nil {
			return res, fmt.Errorf("press Enter: %w", err)
		}
		res.PressedEnter = true
	}
	return res, nil
}

func (p *Paster) leaveOnClipboard(ctx context.Context, res Result, why error) (Result, error) {
	if _, err := p.os.write(ctx, res.Text, false); err != nil {
		return res, fmt.Errorf("cannot type the text (%v) nor put it on the clipboard: %w", why, err)
	}
	res.OnClipboard = true
	return res, fmt.Errorf("%w (typing: %v)", ErrNoPaste, why)
}

// Copy puts text on the clipboard and leaves it there, as the tray's Recent menu does
// with an earlier dictation. The text is taken as is (no joining), but for what
// clean strips.
func (p *Paster) Copy(ctx context.Context, text string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("output: paster closed")
	}
	text = p.clean(text)
	if _, err := p.os.write(ctx, text, false); err != nil {
		return fmt.Errorf("put the text on the clipboard: %w", err)
	}
	return nil
}
