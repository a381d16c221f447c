//go:build linux && cgo

package grab

/*
#cgo LDFLAGS: -lX11
#include <stdlib.h>
#include <X11/Xlib.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	xhotkey "golang.design/x/hotkey"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// osState holds a display connection of our own for reading the keyboard. x/hotkey
// has already called XInitThreads; the mutex keeps one caller at a time anyway.
type osState struct {
	mu      sync.Mutex
	display *C.Display
}

func newOSState(log *slog.Logger) (*osState, error) {
	// XOpenDisplay fails now and then right after another connection closed; x/hotkey
	// retries for the same reason.
	for range 20 {
		if d := C.XOpenDisplay(nil); d != nil {
			return &osState{display: d}, nil
		}
	}
	return nil, errors.New("open the X display (is DISPLAY set?)")
}

func (s *osState) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.display != nil {
		C.XCloseDisplay(s.display)
		s.display = nil
	}
	return nil
}

func (s *osState) resumed() <-chan string { return nil }

func x11Mods(m hotkey.Mods) []xhotkey.Modifier {
	var out []xhotkey.Modifier
	m.Each(func(one hotkey.Mods) {
		switch one {
		case hotkey.ModCtrl:
			out = append(out, xhotkey.ModCtrl)
		case hotkey.ModShift:
			out = append(out, xhotkey.ModShift)
		case hotkey.ModAlt:
			out = append(out, xhotkey.Mod1)
		case hotkey.ModWin:
			out = append(out, xhotkey.Mod4)
		}
	})
	return out
}

// registrations maps c to X11 grabs. X11 grabs a key with an exact modifier state, so a
// modifier-only combination such as ctrl+win is grabbed as Super_L and Super_R with
// Control held, and Control_L and Control_R with Mod4 held: either press order works.
func (s *osState) registrations(c hotkey.Combo) ([]reg, error) {
	if c.Key != 0 {
		if s.keycode(c.Key.X11Keysym()) == 0 {
			return nil, fmt.Errorf("the keyboard layout has no key %s", c.Key)
		}
		return []reg{{mods: x11Mods(c.Mods), key: xhotkey.Key(c.Key.X11Keysym())}}, nil
	}
	var out []reg
	c.Mods.Each(func(m hotkey.Mods) {
		for _, ks := range m.X11Keysyms() {
			if s.keycode(ks) != 0 {
				out = append(out, reg{mods: x11Mods(c.Mods &^ m), key: xhotkey.Key(ks)})
			}
		}
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("the keyboard layout has none of the keys of %s", c)
	}
	return out, nil
}

func (s *osState) keycode(keysym uint32) C.KeyCode {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.display == nil {
		return 0
	}
	return C.XKeysymToKeycode(s.display, C.KeySym(keysym))
}

// comboDown reads the physical keyboard: every modifier (left or right) and the key must be down.
func (s *osState) comboDown(c hotkey.Combo) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.display == nil {
		return false, errors.New("keyboard reader closed")
	}
	var keys [32]C.char
	C.XQueryKeymap(s.display, &keys[0])
	isDown := func(keysym uint32) bool {
		kc := C.XKeysymToKeycode(s.display, C.KeySym(keysym))
		return kc != 0 && byte(keys[kc/8])&(1<<(kc%8)) != 0
	}
	all := true
	c.Mods.Each(func(m hotkey.Mods) {
		ks := m.X11Keysyms()
		if !isDown(ks[0]) && !isDown(ks[1]) {
			all = false
		}
	})
	if c.Key != 0 && !isDown(c.Key.X11Keysym()) {
		all = false
	}
	return all, nil
}
