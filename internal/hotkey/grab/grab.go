package grab

import (
	"errors"
	"log/slog"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// ErrNoDisplay means there is no X display to register hotkeys on (Linux): DISPLAY is
// unset or names a server that does not answer. The app can run without hotkeys.
var ErrNoDisplay = errors.New("no X display")

// Grabber registers combinations for a hotkey.Listener. On X11 it also reads the
// keyboard state (hotkey.KeyState); on Windows it reports session unlock, resume and
// display changes (hotkey.Resumer) so the Listener re-registers.
//
// On Linux it talks to Xlib itself rather than through golang.design/x/hotkey, whose
// package init panics without a display: importing this package needs no display, and
// New reports a missing one as an error wrapping ErrNoDisplay.
type Grabber struct {
	os *osState
}

// New prepares the OS side (X11 connection and event reader, Windows session watcher).
func New(log *slog.Logger) (*Grabber, error) {
	st, err := newOSState(log.With("pkg", "grab"))
	if err != nil {
		return nil, err
	}
	return &Grabber{os: st}, nil
}

// Grab registers c. The error wraps hotkey.ErrTaken when another application owns c.
// A modifier-only combination needs several registrations; it counts as registered
// when at least one of them succeeded.
func (g *Grabber) Grab(c hotkey.Combo) (hotkey.Grab, error) { return g.os.grab(c) }

// Close stops the OS watchers. Close the Listener first: it releases the grabs. Idempotent.
func (g *Grabber) Close() error { return g.os.close() }

// ComboDown reports whether every key of c is physically down (X11). Elsewhere it
// returns an error wrapping errors.ErrUnsupported.
func (g *Grabber) ComboDown(c hotkey.Combo) (bool, error) { return g.os.comboDown(c) }

// Resumed delivers a reason whenever the OS may have dropped the hotkeys (Windows:
// session unlocked, resumed from sleep, display changed). It is nil elsewhere.
func (g *Grabber) Resumed() <-chan string { return g.os.resumed() }
