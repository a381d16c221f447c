package grab

import (
	"errors"
	"log/slog"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// ErrNoDisplay means there is no X display to register hotkeys on (Linux): DISPLAY is
// unset or names a server that does not answer. The app can run without hotkeys.
var ErrNoDisplay = errors.New("no X display")

// Grabber registers combinations for a hotkey.Listener and reads the keyboard state
// (hotkey.KeyState). On Windows it also reports session unlock, resume and display
// changes (hotkey.Resumer) so the Listener re-registers.
//
// On Linux it talks to Xlib itself rather than through golang.design/x/hotkey, whose
// package init panics without a display: importing this package needs no display, and
// New reports a missing one as an error wrapping ErrNoDisplay. On Windows it matches
// the events of a low-level keyboard hook (WH_KEYBOARD_LL) itself.
type Grabber struct {
	os *osState
}

// New prepares the OS side (X11 connection and event reader; Windows keyboard hook and
// session watcher).
func New(log *slog.Logger) (*Grabber, error) {
	st, err := newOSState(log.With("pkg", "grab"))
	if err != nil {
		return nil, err
	}
	return &Grabber{os: st}, nil
}

// Grab registers c. On X11 the error wraps hotkey.ErrTaken when another application
// owns c; a modifier-only combination needs several registrations there and counts as
// registered when at least one of them succeeded. On Windows hooks do not conflict, so
// Grab never returns ErrTaken: a combination another program also uses fires in both.
// The key of a matched combination is kept from the focused window, its modifiers never.
func (g *Grabber) Grab(c hotkey.Combo) (hotkey.Grab, error) { return g.os.grab(c) }

// Close stops the OS watchers. Close the Listener first: it releases the grabs. Idempotent.
func (g *Grabber) Close() error { return g.os.close() }

// ComboDown reports whether every key of c is down (other keys may be down too): from
// the X server's keymap on X11, from the hook's own record on Windows. Elsewhere it
// returns an error wrapping errors.ErrUnsupported.
func (g *Grabber) ComboDown(c hotkey.Combo) (bool, error) { return g.os.comboDown(c) }

// Resumed delivers a reason whenever the OS may have dropped the hotkeys (Windows:
// session unlocked, resumed from sleep, display changed; X11: a keyboard mapping change
// left a combination without its keys; grabs whose keys merely moved are moved by the
// grabber itself). It is nil elsewhere.
func (g *Grabber) Resumed() <-chan hotkey.Renewal { return g.os.resumed() }
