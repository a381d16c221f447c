//go:build linux && cgo

package grab

/*
#cgo LDFLAGS: -lX11 -lXi -lXtst
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <unistd.h>
#include <X11/Xlib.h>
#include <X11/XKBlib.h>
#include <X11/extensions/XInput2.h>
#include <X11/extensions/XTest.h>

// Xlib must be made thread-safe before any other Xlib call in the process, and the
// output package calls libX11 too (through purego): do it while the program loads.
// It needs no display.
__attribute__((constructor)) static void wk_init_threads(void) { XInitThreads(); }

// X errors reach the process-wide error handler, which has no user data: calls that
// watch for errors take turns, and errors on other connections go to the previous handler.
static pthread_mutex_t wk_err_mu = PTHREAD_MUTEX_INITIALIZER;
static Display *wk_err_display;
static int wk_err_code;
static XErrorHandler wk_err_prev;

static int wk_err_handler(Display *d, XErrorEvent *e) {
	if (d == wk_err_display) {
		if (wk_err_code == 0 || e->error_code == BadAccess) {
			wk_err_code = e->error_code;
		}
		return 0;
	}
	return wk_err_prev != NULL ? wk_err_prev(d, e) : 0;
}

// wk_one grabs (grab != 0) or ungrabs one key, or with button != 0 one mouse button,
// with modifier mask mod on the root window. A button's pointer grab lasts only
// while the button is held, and its press goes to no window.
static void wk_one(Display *d, int grab, int button, int code, unsigned int mod) {
	Window root = DefaultRootWindow(d);
	if (button && grab) {
		XGrabButton(d, code, mod, root, False, ButtonPressMask | ButtonReleaseMask,
		            GrabModeAsync, GrabModeAsync, None, None);
	} else if (button) {
		XUngrabButton(d, code, mod, root);
	} else if (grab) {
		XGrabKey(d, code, mod, root, False, GrabModeAsync, GrabModeAsync);
	} else {
		XUngrabKey(d, code, mod, root);
	}
}

// wk_grab grabs (grab != 0) or ungrabs key code, or with button != 0 mouse button
// code, with each of the n modifier masks on the root window and waits for the
// server's answer. It returns 0 or the X error code; BadAccess means another
// client owns one of the grabs, and then none is kept.
static int wk_grab(Display *d, int grab, int button, int code, unsigned int *mods, int n) {
	pthread_mutex_lock(&wk_err_mu);
	wk_err_display = d;
	wk_err_code = 0;
	wk_err_prev = XSetErrorHandler(wk_err_handler);
	for (int i = 0; i < n; i++) {
		wk_one(d, grab, button, code, mods[i]);
	}
	XSync(d, False);
	if (grab && wk_err_code != 0) {
		for (int i = 0; i < n; i++) {
			wk_one(d, 0, button, code, mods[i]);
		}
		XSync(d, False);
	}
	XSetErrorHandler(wk_err_prev);
	int err = wk_err_code;
	wk_err_display = NULL;
	pthread_mutex_unlock(&wk_err_mu);
	return err;
}

typedef struct {
	int type;
	unsigned int keycode;
	unsigned int state;
	unsigned long time; // the server's, in milliseconds
} wk_event;

// wk_watch_keyboards asks for XInput 2 hierarchy events (a keyboard plugged in,
// enabled or attached) and returns XInput's major opcode, or 0 when the server
// lacks XInput 2.
static int wk_watch_keyboards(Display *d) {
	int opcode, event, error, major = 2, minor = 0;
	if (!XQueryExtension(d, "XInputExtension", &opcode, &event, &error) ||
	    XIQueryVersion(d, &major, &minor) != Success) {
		return 0;
	}
	unsigned char bits[XIMaskLen(XI_LASTEVENT)] = {0};
	XISetMask(bits, XI_HierarchyChanged);
	XIEventMask mask = {.deviceid = XIAllDevices, .mask_len = sizeof bits, .mask = bits};
	XISelectEvents(d, DefaultRootWindow(d), &mask, 1);
	XSync(d, False);
	return opcode;
}

// wk_keyboard_came reports whether a hierarchy event brought a keyboard: one
// plugged in, enabled again, or attached to the master keyboard.
static int wk_keyboard_came(Display *d, XEvent *ev, int xi) {
	XGenericEventCookie *c = &ev->xcookie;
	if (xi == 0 || c->extension != xi || c->evtype != XI_HierarchyChanged || !XGetEventData(d, c)) {
		return 0;
	}
	XIHierarchyEvent *h = c->data;
	int came = 0;
	for (int i = 0; i < h->num_info; i++) {
		if (h->info[i].use == XISlaveKeyboard &&
		    (h->info[i].flags & (XISlaveAdded | XIDeviceEnabled | XISlaveAttached)) != 0) {
			came = 1;
		}
	}
	XFreeEventData(d, c);
	return came;
}

// wk_take takes the next key event from d's queue without waiting: 1 when it did, 0
// when none is queued. *remapped is set when the keyboard or modifier mapping changed
// (setxkbmap, xmodmap) and *plugged when a keyboard came (XInput opcode xi): either
// way the grabs may sit on the wrong keys.
static int wk_take(Display *d, int xi, wk_event *out, int *remapped, int *plugged) {
	while (XPending(d) > 0) {
		XEvent ev;
		XNextEvent(d, &ev);
		switch (ev.type) {
		case GenericEvent:
			if (wk_keyboard_came(d, &ev, xi)) {
				*plugged = 1;
			}
			break;
		case KeyPress:
		case KeyRelease:
			out->type = ev.type;
			out->keycode = ev.xkey.keycode;
			out->state = ev.xkey.state;
			out->time = ev.xkey.time;
			return 1;
		case ButtonPress:
		case ButtonRelease:
			out->type = ev.type;
			out->keycode = ev.xbutton.button;
			out->state = ev.xbutton.state;
			out->time = ev.xbutton.time;
			return 1;
		case MappingNotify:
			// Keeps XKeysymToKeycode right after a layout change.
			XRefreshKeyboardMapping(&ev.xmapping);
			if (ev.xmapping.request != MappingPointer) {
				*remapped = 1;
			}
			break;
		}
	}
	return 0;
}

// wk_modbit is the modifier mask bit (ShiftMask … Mod5Mask) the server binds keycode
// to, or 0 when it is no modifier: xmodmap can move Super from Mod4 elsewhere.
static unsigned int wk_modbit(Display *d, int keycode) {
	XModifierKeymap *m = XGetModifierMapping(d);
	if (m == NULL) {
		return 0;
	}
	unsigned int bit = 0;
	for (int row = 0; row < 8 && bit == 0; row++) {
		for (int i = 0; i < m->max_keypermod; i++) {
			if (keycode != 0 && m->modifiermap[row * m->max_keypermod + i] == keycode) {
				bit = 1u << row;
				break;
			}
		}
	}
	XFreeModifiermap(m);
	return bit;
}

// wk_detectable_repeat asks the server not to send this client the release that X
// autorepeat puts before each repeated press; 1 when it will not.
static int wk_detectable_repeat(Display *d) {
	Bool supported = False;
	return XkbSetDetectableAutoRepeat(d, True, &supported) && supported;
}

// wk_pass ends the keyboard grab a hotkey's press activated and types keycode
// again through XTest, so the focused window (or the window manager's shortcut)
// gets the key the grab took, with the modifiers still held. The server ignores a
// press of a key its XTest device holds down already (the key came from XTest, as
// xdotool's do), so the key is let up first. It types the release too: the real
// one may have come to the grab already, and a press without it would stay down.
static void wk_pass(Display *d, int keycode) {
	XUngrabKeyboard(d, CurrentTime);
	XTestFakeKeyEvent(d, keycode, False, CurrentTime);
	XTestFakeKeyEvent(d, keycode, True, CurrentTime);
	XTestFakeKeyEvent(d, keycode, False, CurrentTime);
	XFlush(d);
}

// wk_wait sleeps until the X connection or the wake pipe is readable, or ms pass.
static void wk_wait(int xfd, int wakefd, int ms) {
	struct pollfd p[2] = {{.fd = xfd, .events = POLLIN}, {.fd = wakefd, .events = POLLIN}};
	if (poll(p, 2, ms) > 0 && (p[1].revents & POLLIN)) {
		char buf[64];
		while (read(wakefd, buf, sizeof buf) > 0) {
		}
	}
}

// wk_kick wakes the event loop when a call made elsewhere moved events into Xlib's queue,
// where poll cannot see them.
static void wk_kick(Display *d, int wakefd) {
	if (XQLength(d) > 0) {
		char b = 0;
		(void)!write(wakefd, &b, 1);
	}
}
*/
import "C"

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/whisperkey/whisperkey/internal/hotkey"
)

// X11 modifier masks (X.h).
const (
	shiftMask   = 1 << 0
	lockMask    = 1 << 1 // CapsLock
	controlMask = 1 << 2
	mod1Mask    = 1 << 3 // Alt
	mod2Mask    = 1 << 4 // NumLock
	mod4Mask    = 1 << 6 // Super
	modMasks    = 0xff   // the state's bits above these are mouse buttons
)

// pollInterval bounds how long the event loop sleeps without looking at Xlib's queue.
const pollInterval = 50 * time.Millisecond

// keyMods is one X grab: a keycode (or a mouse button) with an exact modifier mask
// (before the lock variants).
type keyMods struct {
	code   uint8
	mods   uint
	button bool // code is a mouse button number
}

// activeGrab is the passive grab the server last activated: until its key goes up, the
// server sends this connection every key event, whichever grab they match.
type activeGrab struct {
	on   bool
	code uint8
	grab *xgrab // nil once released: the rest of its events are dropped
}

// osState owns one X connection for all grabs and reads its events on one goroutine.
type osState struct {
	log          *slog.Logger
	xfd          C.int
	wakeR, wakeW int

	// changes tells the Listener to register again: a layout change left a grab with
	// none of its keys (the layout lacks them, or another client owns them now).
	changes chan hotkey.Renewal

	// mu serialises every Xlib call on display and guards the fields below.
	mu      sync.Mutex
	display *C.Display
	owners  map[keyMods]*xgrab
	active  activeGrab
	// noKey are combinations the layout had no keys for when grabbed: a mapping change
	// that gives them keys asks the Listener to register again.
	noKey []hotkey.Combo
	// noRepeatUps: the server sends no autorepeat releases, so a release of a
	// combination's key is the user letting go.
	noRepeatUps bool
	// xi is XInput 2's opcode, 0 without it: hierarchy events say a keyboard came.
	xi C.int
	// clock turns the server's event times into ours.
	clock serverClock
	// buttons are the grabbed mouse buttons held now, and whose grab they fired.
	buttons map[uint8]*xgrab

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func newOSState(log *slog.Logger) (*osState, error) {
	var d *C.Display
	// XOpenDisplay fails now and then right after another connection closed.
	for range 20 {
		if d = C.XOpenDisplay(nil); d != nil {
			break
		}
	}
	if d == nil {
		name := os.Getenv("DISPLAY")
		if name == "" {
			return nil, fmt.Errorf("open the X display: DISPLAY is not set (global hotkeys need an X11 session): %w", ErrNoDisplay)
		}
		return nil, fmt.Errorf("open the X display %q: no X server answers there: %w", name, ErrNoDisplay)
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		C.XCloseDisplay(d)
		return nil, fmt.Errorf("create the hotkey wake pipe: %w", err)
	}
	s := &osState{
		log:     log,
		xfd:     C.XConnectionNumber(d),
		wakeR:   p[0],
		wakeW:   p[1],
		display: d,
		owners:  make(map[keyMods]*xgrab),
		buttons: make(map[uint8]*xgrab),
		changes: make(chan hotkey.Renewal, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	s.noRepeatUps = C.wk_detectable_repeat(d) != 0
	if s.xi = C.wk_watch_keyboards(d); s.xi == 0 {
		log.Info("no XInput 2; a keyboard plugged in is noticed only by its layout change")
	}
	go s.loop()
	return s, nil
}

// close stops the event loop and closes the connection, which drops any grab left.
func (s *osState) close() error {
	s.once.Do(func() {
		close(s.stop)
		s.wake()
		<-s.done
		s.mu.Lock()
		C.XCloseDisplay(s.display)
		s.display = nil
		s.mu.Unlock()
		syscall.Close(s.wakeR)
		syscall.Close(s.wakeW)
	})
	return nil
}

func (s *osState) wake() { syscall.Write(s.wakeW, []byte{0}) }

func (s *osState) resumed() <-chan hotkey.Renewal { return s.changes }

// loop delivers key events until close. It never blocks inside Xlib: it polls the
// connection and takes only what is already there, so close is never stuck behind
// XNextEvent.
func (s *osState) loop() {
	defer close(s.done)
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		s.mu.Lock()
		var ev C.wk_event
		var remapped, plugged C.int
		for C.wk_take(s.display, s.xi, &ev, &remapped, &plugged) == 1 {
			s.dispatch(ev, s.clock.at(uint32(ev.time), time.Now()))
		}
		if plugged != 0 {
			// A keyboard plugged back in may bring its own layout; its mapping
			// change comes as MappingNotify, and remap is cheap when nothing moved.
			s.log.Info("keyboard plugged in; checking the hotkeys' keys")
		}
		if remapped != 0 || plugged != 0 {
			s.remap()
		}
		s.mu.Unlock()
		C.wk_wait(s.xfd, C.int(s.wakeR), C.int(pollInterval/time.Millisecond))
	}
}

// dispatch hands one key event to the grab it belongs to. Called with mu held; the
// grab's forwarder queues it without waiting.
func (s *osState) dispatch(ev C.wk_event, at time.Time) {
	code := uint8(ev.keycode)
	if ev._type == C.ButtonPress || ev._type == C.ButtonRelease {
		s.button(code, ev._type == C.ButtonPress, uint(ev.state), at)
		return
	}
	down := ev._type == C.KeyPress
	var to *xgrab
	// sure: the event alone says the combination went down (it matched the grab
	// exactly) or is no longer down (one of its keys went up).
	sure := false
	// owner is the grab of exactly this key and these modifiers, if any.
	owner := s.owners[keyMods{code: code, mods: cleanMods(uint(ev.state))}]
	switch {
	case s.active.on && down && s.active.grab != nil && !s.active.grab.keys[code] && !s.ownsKey(code):
		// Another key while a combination is held, and none of ours (the cancel key
		// is): the combination was the start of another shortcut (Ctrl+Win+D). The
		// key goes on to the desktop, and the grab is over.
		to = s.active.grab
		C.wk_pass(s.display, C.int(code))
		s.active = activeGrab{}
		s.log.Debug("key passed on to the desktop", "hotkey", to.combo.String(), "keycode", code)
		to.fwd.push(hotkey.Edge{Down: true, At: at, Passed: true})
		return
	case s.active.on && down && owner != nil && owner != s.active.grab:
		// Another of our grabs' keys while a combination is held (the cancel
		// key during a recording): its own grab hears it, sure, so a quick tap
		// counts even when it is up again before the Listener looks.
		to, sure = owner, true
	case s.active.on:
		// The keyboard is ours while a grab's key is held: the events are that grab's
		// (the Listener looks for the cancel key among them).
		to = s.active.grab
		if !down && code == s.active.code {
			s.active = activeGrab{}
		}
		sure = !down && to != nil && s.noRepeatUps && to.keys[code]
	case down:
		to = owner
		s.active = activeGrab{on: true, code: code, grab: to}
		sure = true
	}
	if to == nil {
		s.log.Debug("key event for no grab", "keycode", code, "down", down)
		return
	}
	to.fwd.push(hotkey.Edge{Down: down, At: at, Sure: sure})
}

// button hands a grabbed mouse button's press or release to its grab. The
// events say exactly what happened, so the edges are sure. Called with mu held.
func (s *osState) button(b uint8, down bool, state uint, at time.Time) {
	var to *xgrab
	if down {
		to = s.owners[keyMods{code: b, mods: cleanMods(state), button: true}]
		if to != nil {
			s.buttons[b] = to
		}
	} else {
		to = s.buttons[b] // whatever the modifiers do meanwhile
		delete(s.buttons, b)
	}
	if to == nil {
		s.log.Debug("button event for no grab", "button", b, "down", down)
		return
	}
	to.fwd.push(hotkey.Edge{Down: down, At: at, Sure: true})
}

// ownsKey reports whether one of our grabs is on keycode, with any modifiers.
// Called with mu held.
func (s *osState) ownsKey(code uint8) bool {
	for r := range s.owners {
		if r.code == code && !r.button {
			return true
		}
	}
	return false
}

// cleanMods is the modifier part of an event state without the lock modifiers.
func cleanMods(state uint) uint { return state & modMasks &^ (lockMask | mod2Mask) }

// x11Mask maps modifiers to the X11 mask; the layout binds Alt to Mod1 and Super to Mod4.
func x11Mask(m hotkey.Mods) uint {
	var out uint
	m.Each(func(one hotkey.Mods) {
		switch one {
		case hotkey.ModCtrl:
			out |= controlMask
		case hotkey.ModShift:
			out |= shiftMask
		case hotkey.ModAlt:
			out |= mod1Mask
		case hotkey.ModWin:
			out |= mod4Mask
		}
	})
	return out
}

// modMask is the X11 mask of m in the server's current modifier mapping; a modifier
// whose keys the mapping does not bind falls back to the usual bit (x11Mask). Called
// with mu held.
func (s *osState) modMask(m hotkey.Mods) uint {
	var out uint
	m.Each(func(one hotkey.Mods) {
		bit := uint(0)
		for _, ks := range one.X11Keysyms() {
			if code := s.keycode(ks); code != 0 {
				if bit = uint(C.wk_modbit(s.display, C.int(code))); bit != 0 {
					break
				}
			}
		}
		if bit == 0 {
			bit = x11Mask(one)
		}
		out |= bit
	})
	return out
}

// remap moves every grab to the keys its combination has in the keyboard mapping now.
// X grabs keycodes, and a layout switch (setxkbmap us → de swaps Y and Z) or xmodmap
// can put a combination's keysyms on other keys; grabs that still fit are left alone,
// so a layout change during a recording does not disturb it. A grab left with none of
// its keys is reported through changes: the Listener registers it again and tells the
// user why it fails. Called with mu held.
func (s *osState) remap() {
	type move struct {
		gr   *xgrab
		regs []keyMods
		err  error
	}
	var moves []move
	seen := map[*xgrab]bool{}
	for _, gr := range s.owners {
		if seen[gr] {
			continue
		}
		seen[gr] = true
		gr.keys = s.comboKeys(gr.combo) // a release of any of them ends the combination
		regs, err := s.registrations(gr.combo)
		if err == nil && sameRegs(regs, gr.regs) {
			continue
		}
		moves = append(moves, move{gr: gr, regs: regs, err: err})
	}
	retry := false
	s.noKey = slices.DeleteFunc(s.noKey, func(c hotkey.Combo) bool {
		_, err := s.registrations(c)
		retry = retry || err == nil
		return err == nil
	})
	defer func() {
		if retry {
			select {
			case s.changes <- hotkey.Renewal{Reason: "keyboard mapping changed"}:
			default: // one pending reason is enough
			}
		}
	}()
	if len(moves) == 0 {
		return
	}
	defer C.wk_kick(s.display, C.int(s.wakeW))
	// Every old grab goes first: two combinations may swap keys.
	for _, m := range moves {
		for _, r := range m.gr.regs {
			delete(s.owners, r)
			s.xkeys(r, false)
		}
		m.gr.regs = nil
	}
	lost := false
	for _, m := range moves {
		for _, r := range m.regs {
			if _, ok := s.owners[r]; ok {
				continue
			}
			if code := s.xkeys(r, true); code != 0 {
				s.log.Warn("hotkey key not grabbed after the keyboard mapping changed", "hotkey", m.gr.combo.String(), "keycode", r.code, "err", s.errorText(code))
				continue
			}
			s.owners[r] = m.gr
			m.gr.regs = append(m.gr.regs, r)
		}
		if len(m.gr.regs) == 0 {
			lost = true
			if m.err != nil && !slices.Contains(s.noKey, m.gr.combo) {
				s.noKey = append(s.noKey, m.gr.combo)
			}
			s.log.Warn("hotkey lost with the keyboard mapping change", "hotkey", m.gr.combo.String(), "err", m.err)
			continue
		}
		s.log.Info("hotkey re-grabbed for the new keyboard mapping", "hotkey", m.gr.combo.String(), "grabs", len(m.gr.regs))
	}
	retry = retry || lost
}

// sameRegs reports whether a and b hold the same grabs, in any order.
func sameRegs(a, b []keyMods) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(r keyMods) bool { return !slices.Contains(b, r) })
}

// registrations maps c to X11 grabs. X11 grabs a key with an exact modifier state, so a
// modifier-only combination such as ctrl+win is grabbed as Super_L and Super_R with
// Control held, and Control_L and Control_R with Mod4 held: either press order works.
// Called with mu held.
func (s *osState) registrations(c hotkey.Combo) ([]keyMods, error) {
	if b := c.Key.X11Button(); b != 0 {
		return []keyMods{{code: b, mods: s.modMask(c.Mods), button: true}}, nil
	}
	if c.Key != 0 {
		code := s.keycode(c.Key.X11Keysym())
		if code == 0 {
			return nil, fmt.Errorf("the keyboard layout has no key %s", c.Key)
		}
		regs := []keyMods{{code: code, mods: s.modMask(c.Mods)}}
		if m := c.Key.Modifier(); m != 0 {
			// A right-hand modifier alone also fires while its left twin is held.
			regs = append(regs, keyMods{code: code, mods: s.modMask(m)})
		}
		return regs, nil
	}
	var out []keyMods
	c.Mods.Each(func(m hotkey.Mods) {
		for _, ks := range m.X11Keysyms() {
			r := keyMods{code: s.keycode(ks), mods: s.modMask(c.Mods &^ m)}
			if r.code != 0 && !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("the keyboard layout has none of the keys of %s", c)
	}
	return out, nil
}

// comboKeys are the keycodes of c's key and of both sides of its modifiers: any of
// them going up ends the combination. Called with mu held.
func (s *osState) comboKeys(c hotkey.Combo) map[uint8]bool {
	keys := map[uint8]bool{}
	if c.Key != 0 {
		keys[s.keycode(c.Key.X11Keysym())] = true
	}
	c.Mods.Each(func(m hotkey.Mods) {
		for _, ks := range m.X11Keysyms() {
			keys[s.keycode(ks)] = true
		}
	})
	delete(keys, 0)
	return keys
}

// keycode is the key producing keysym, 0 when the layout has none. Called with mu held.
func (s *osState) keycode(keysym uint32) uint8 {
	return uint8(C.XKeysymToKeycode(s.display, C.KeySym(keysym)))
}

// xkeys grabs or ungrabs r in every lock state: an X grab matches the modifier state
// exactly, so without the variants NumLock or CapsLock would turn the hotkey off. It
// returns 0 or the X error code. Called with mu held.
func (s *osState) xkeys(r keyMods, grab bool) C.int {
	mods := [...]C.uint{
		C.uint(r.mods), C.uint(r.mods | lockMask), C.uint(r.mods | mod2Mask), C.uint(r.mods | lockMask | mod2Mask),
	}
	return C.wk_grab(s.display, cBool(grab), cBool(r.button), C.int(r.code), &mods[0], C.int(len(mods)))
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// errorText names an X error code. Called with mu held.
func (s *osState) errorText(code C.int) string {
	var buf [128]C.char
	C.XGetErrorText(s.display, code, &buf[0], C.int(len(buf)))
	return C.GoString(&buf[0])
}

func (s *osState) grab(c hotkey.Combo) (hotkey.Grab, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.display == nil {
		return nil, fmt.Errorf("register %s: the grabber is closed", c)
	}
	defer C.wk_kick(s.display, C.int(s.wakeW))
	regs, err := s.registrations(c)
	if err != nil {
		if !slices.Contains(s.noKey, c) {
			s.noKey = append(s.noKey, c)
		}
		return nil, fmt.Errorf("register %s: %w", c, err)
	}
	gr := &xgrab{
		s:     s,
		combo: c,
		keys:  s.comboKeys(c),
	}
	var taken, other error
	for _, r := range regs {
		if _, ok := s.owners[r]; ok {
			// Our own connection would silently take it over; a second one would get BadAccess.
			taken = hotkey.ErrTaken
			s.log.Debug("registration failed", "hotkey", c.String(), "keycode", r.code, "mods", r.mods, "err", "grabbed by another hotkey")
			continue
		}
		if code := s.xkeys(r, true); code != 0 {
			if code == C.BadAccess {
				taken = hotkey.ErrTaken
			} else if other == nil {
				other = fmt.Errorf("grab keycode %d: X error %s", r.code, s.errorText(code))
			}
			s.log.Debug("registration failed", "hotkey", c.String(), "keycode", r.code, "mods", r.mods, "err", s.errorText(code))
			continue
		}
		s.owners[r] = gr
		gr.regs = append(gr.regs, r)
	}
	if len(gr.regs) == 0 {
		if taken != nil {
			return nil, fmt.Errorf("register %s: %w", c, taken)
		}
		return nil, fmt.Errorf("register %s: %w", c, other)
	}
	if len(gr.regs) < len(regs) {
		s.log.Info("hotkey partly registered", "hotkey", c.String(), "registered", len(gr.regs), "of", len(regs))
	}
	gr.fwd = newForwarder() // mu is still held: dispatch cannot reach gr before this
	return gr, nil
}

// ungrab removes gr's grabs; the event loop stops delivering to it at once.
func (s *osState) ungrab(gr *xgrab) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range gr.regs {
		delete(s.owners, r)
	}
	if s.active.grab == gr {
		// The server keeps the keyboard until the grab's key goes up; drop those events.
		s.active.grab = nil
	}
	for b, to := range s.buttons {
		if to == gr {
			delete(s.buttons, b)
		}
	}
	if s.display == nil {
		return nil // closing the connection dropped the grabs
	}
	defer C.wk_kick(s.display, C.int(s.wakeW))
	var errs []error
	for _, r := range gr.regs {
		if code := s.xkeys(r, false); code != 0 {
			errs = append(errs, fmt.Errorf("ungrab keycode %d: %s", r.code, s.errorText(code)))
		}
	}
	return errors.Join(errs...)
}

// comboDown reads the physical keyboard: every modifier (left or right) and the key must be down.
func (s *osState) comboDown(c hotkey.Combo) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.display == nil {
		return false, errors.New("keyboard reader closed")
	}
	defer C.wk_kick(s.display, C.int(s.wakeW))
	var keys [32]C.char
	C.XQueryKeymap(s.display, &keys[0])
	isDown := func(keysym uint32) bool {
		kc := s.keycode(keysym)
		return kc != 0 && byte(keys[kc/8])&(1<<(kc%8)) != 0
	}
	all := true
	c.Mods.Each(func(m hotkey.Mods) {
		ks := m.X11Keysyms()
		if !isDown(ks[0]) && !isDown(ks[1]) {
			all = false
		}
	})
	if b := c.Key.X11Button(); b != 0 {
		// The keymap has no buttons, and the pointer's state only the first five.
		if _, held := s.buttons[b]; !held {
			all = false
		}
	} else if c.Key != 0 && !isDown(c.Key.X11Keysym()) {
		all = false
	}
	return all, nil
}

// xgrab is a registered combination. Its forwarder queues edges, so the event loop
// never waits for the Listener.
type xgrab struct {
	s     *osState
	combo hotkey.Combo
	regs  []keyMods      // guarded by s.mu: remap moves them
	keys  map[uint8]bool // comboKeys; guarded by s.mu: remap renews them
	fwd   *forwarder
	once  sync.Once
	err   error
}

func (gr *xgrab) Edges() <-chan hotkey.Edge { return gr.fwd.Edges() }

// Release ungrabs the combination and stops its forwarder. Idempotent.
func (gr *xgrab) Release() error {
	gr.once.Do(func() {
		gr.err = gr.s.ungrab(gr) // after this the event loop pushes nothing more
		gr.fwd.close()
	})
	return gr.err
}
