package output

import (
	"fmt"
	"sync"

	"github.com/ebitengine/purego"
)

// xlib is the little of libX11 and libXtst that pasting needs, loaded at run time so
// the package builds without X headers and runs (clipboard-only) without them.
// Every call happens under mu: without XInitThreads a Display is single-threaded.
type xlib struct {
	mu      sync.Mutex
	display uintptr

	openDisplay      func(name uintptr) uintptr
	closeDisplay     func(d uintptr) int32
	sync             func(d uintptr, discard int32) int32
	keysymToKeycode  func(d uintptr, keysym uint64) uint8
	queryKeymap      func(d uintptr, keys *[32]byte) int32
	getInputFocus    func(d uintptr, focus *uint64, revert *int32) int32
	internAtom       func(d uintptr, name string, onlyIfExists int32) uint64
	setSelectionOwnr func(d uintptr, selection, owner, time uint64) int32
	fakeKeyEvent     func(d uintptr, keycode uint32, press int32, delay uint64) int32
	queryXTest       func(d uintptr, event, err, major, minor *int32) int32
}

func openXlib() (*xlib, error) {
	x11, err := purego.Dlopen("libX11.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("load libX11.so.6 (install libx11-6): %w", err)
	}
	xtst, err := purego.Dlopen("libXtst.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("load libXtst.so.6 (install libxtst6): %w", err)
	}
	x := &xlib{}
	for _, f := range []struct {
		lib  uintptr
		fn   any
		name string
	}{
		{x11, &x.openDisplay, "XOpenDisplay"},
		{x11, &x.closeDisplay, "XCloseDisplay"},
		{x11, &x.sync, "XSync"},
		{x11, &x.keysymToKeycode, "XKeysymToKeycode"},
		{x11, &x.queryKeymap, "XQueryKeymap"},
		{x11, &x.getInputFocus, "XGetInputFocus"},
		{x11, &x.internAtom, "XInternAtom"},
		{x11, &x.setSelectionOwnr, "XSetSelectionOwner"},
		{xtst, &x.fakeKeyEvent, "XTestFakeKeyEvent"},
		{xtst, &x.queryXTest, "XTestQueryExtension"},
	} {
		if _, err := purego.Dlsym(f.lib, f.name); err != nil {
			return nil, fmt.Errorf("find %s: %w", f.name, err)
		}
		purego.RegisterLibFunc(f.fn, f.lib, f.name)
	}
	// XOpenDisplay fails now and then in a Go process right after another connection
	// closed (seen here about one time in six; x/hotkey retries for the same reason).
	for range 20 {
		if x.display = x.openDisplay(0); x.display != 0 {
			break
		}
	}
	if x.display == 0 {
		return nil, fmt.Errorf("open the X display (is DISPLAY set?)")
	}
	var ev, er, major, minor int32
	if x.queryXTest(x.display, &ev, &er, &major, &minor) == 0 {
		x.closeDisplay(x.display)
		return nil, fmt.Errorf("the X server has no XTEST extension, which synthetic key presses need")
	}
	return x, nil
}

func (x *xlib) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.display != 0 {
		x.closeDisplay(x.display)
		x.display = 0
	}
}

// keycode maps a keysym to this keyboard's keycode (0 when the layout has none).
func (x *xlib) keycode(keysym uint64) uint32 {
	x.mu.Lock()
	defer x.mu.Unlock()
	return uint32(x.keysymToKeycode(x.display, keysym))
}

// keysDown lists the keycodes physically (or synthetically) down now.
func (x *xlib) keysDown() []uint32 {
	x.mu.Lock()
	defer x.mu.Unlock()
	var keys [32]byte
	x.queryKeymap(x.display, &keys)
	var down []uint32
	for i, b := range keys {
		for bit := range 8 {
			if b&(1<<bit) != 0 {
				down = append(down, uint32(i*8+bit))
			}
		}
	}
	return down
}

// focus returns the window with the input focus.
func (x *xlib) focus() uint64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	var w uint64
	var revert int32
	x.getInputFocus(x.display, &w, &revert)
	return w
}

// send injects key events through XTest, to whichever window has the focus.
func (x *xlib) send(keys []keyEvent) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, k := range keys {
		press := int32(0)
		if k.down {
			press = 1
		}
		x.fakeKeyEvent(x.display, k.code, press, 0)
	}
	x.sync(x.display, 0)
}

// disownClipboard leaves the CLIPBOARD selection without an owner, which is what an
// empty clipboard is on X11.
func (x *xlib) disownClipboard() {
	x.mu.Lock()
	defer x.mu.Unlock()
	atom := x.internAtom(x.display, "CLIPBOARD", 0)
	x.setSelectionOwnr(x.display, atom, 0, 0)
	x.sync(x.display, 0)
}
