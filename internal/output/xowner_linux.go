//go:build linux && cgo

package output

/*
#cgo LDFLAGS: -lX11 -lXtst
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/XKBlib.h>
#include <X11/extensions/XTest.h>

// wk_owner serves our text on CLIPBOARD (and PRIMARY when asked) from a window of
// its own, so it sees every SelectionRequest: that is how we know the target read it.
typedef struct {
	Display *d;
	Window w;
	Atom clipboard, targets, utf8, text, plain, timestamp, multiple;
	unsigned char *data, *latin1;
	int len, latin1_len;
	unsigned long mask; // resource_mask: the bits of an XID below its client's base
} wk_owner;

static int wk_owner_open(wk_owner *s) {
	memset(s, 0, sizeof *s);
	s->d = XOpenDisplay(NULL);
	if (s->d == NULL) return 1;
	s->w = XCreateSimpleWindow(s->d, DefaultRootWindow(s->d), -10, -10, 1, 1, 0, 0, 0);
	s->clipboard = XInternAtom(s->d, "CLIPBOARD", False);
	s->targets = XInternAtom(s->d, "TARGETS", False);
	s->utf8 = XInternAtom(s->d, "UTF8_STRING", False);
	s->text = XInternAtom(s->d, "TEXT", False);
	s->plain = XInternAtom(s->d, "text/plain;charset=utf-8", False);
	s->timestamp = XInternAtom(s->d, "TIMESTAMP", False);
	s->multiple = XInternAtom(s->d, "MULTIPLE", False);
	s->mask = ((_XPrivDisplay)s->d)->private4; // resource_mask in the public layout
	XSync(s->d, False);
	return 0;
}

static void wk_owner_close(wk_owner *s) {
	free(s->data);
	free(s->latin1);
	XDestroyWindow(s->d, s->w);
	XCloseDisplay(s->d);
}

static int wk_owner_fd(wk_owner *s) { return ConnectionNumber(s->d); }

// wk_owner_take puts the text on CLIPBOARD (and PRIMARY if primary != 0); returns 1 if we own it.
static int wk_owner_take(wk_owner *s, const char *utf8, int n, const char *latin1, int ln, int primary) {
	free(s->data);
	free(s->latin1);
	s->data = malloc(n + 1);
	s->latin1 = malloc(ln + 1);
	memcpy(s->data, utf8, n);
	memcpy(s->latin1, latin1, ln);
	s->len = n;
	s->latin1_len = ln;
	XSetSelectionOwner(s->d, s->clipboard, s->w, CurrentTime);
	if (primary) XSetSelectionOwner(s->d, XA_PRIMARY, s->w, CurrentTime);
	int ok = XGetSelectionOwner(s->d, s->clipboard) == s->w;
	XSync(s->d, False);
	return ok;
}

// wk_owner_drop forgets the text: later requests are refused.
static void wk_owner_drop(wk_owner *s) {
	free(s->data);
	free(s->latin1);
	s->data = s->latin1 = NULL;
	s->len = s->latin1_len = 0;
}

// wk_owner_release gives up PRIMARY if we hold it.
static void wk_owner_release_primary(wk_owner *s) {
	if (XGetSelectionOwner(s->d, XA_PRIMARY) == s->w) XSetSelectionOwner(s->d, XA_PRIMARY, None, CurrentTime);
	XSync(s->d, False);
}

enum { EV_NONE, EV_DATA, EV_META, EV_CLEAR, EV_CLEAR_PRIMARY };

// wk_owner_event handles one queued event, if any: it answers a SelectionRequest
// and says what happened. *requestor is the window that asked for data.
static int wk_owner_event(wk_owner *s, unsigned long *requestor) {
	if (XPending(s->d) == 0) return EV_NONE;
	XEvent e;
	XNextEvent(s->d, &e);
	if (e.type == SelectionClear) {
		return e.xselectionclear.selection == s->clipboard ? EV_CLEAR : EV_CLEAR_PRIMARY;
	}
	if (e.type != SelectionRequest) return EV_NONE;
	XSelectionRequestEvent *r = &e.xselectionrequest;
	XSelectionEvent ev;
	memset(&ev, 0, sizeof ev);
	ev.type = SelectionNotify;
	ev.display = r->display;
	ev.requestor = r->requestor;
	ev.selection = r->selection;
	ev.target = r->target;
	ev.time = r->time;
	Atom prop = r->property != None ? r->property : r->target; // obsolete clients
	ev.property = prop;
	int kind = EV_META;
	long max = XMaxRequestSize(s->d) * 4 - 256;
	if (s->data == NULL) {
		ev.property = None;
	} else if (r->target == s->targets) {
		Atom list[] = {s->targets, s->timestamp, s->utf8, s->plain, s->text, XA_STRING};
		XChangeProperty(s->d, r->requestor, prop, XA_ATOM, 32, PropModeReplace, (unsigned char *)list, 6);
	} else if (r->target == s->timestamp) {
		long t = CurrentTime;
		XChangeProperty(s->d, r->requestor, prop, XA_INTEGER, 32, PropModeReplace, (unsigned char *)&t, 1);
	} else if ((r->target == s->utf8 || r->target == s->plain || r->target == s->text) && s->len <= max) {
		Atom type = r->target == s->plain ? s->plain : s->utf8;
		XChangeProperty(s->d, r->requestor, prop, type, 8, PropModeReplace, s->data, s->len);
		kind = EV_DATA;
	} else if (r->target == XA_STRING && s->latin1_len <= max) {
		XChangeProperty(s->d, r->requestor, prop, XA_STRING, 8, PropModeReplace, s->latin1, s->latin1_len);
		kind = EV_DATA;
	} else {
		ev.property = None; // MULTIPLE, INCR-sized text, formats we do not have
	}
	XSendEvent(s->d, r->requestor, False, NoEventMask, (XEvent *)&ev);
	XFlush(s->d);
	*requestor = r->requestor;
	return ev.property == None ? EV_META : kind;
}

// wk_same_client reports whether two windows belong to one X client.
static int wk_same_client(wk_owner *s, unsigned long a, unsigned long b) {
	return (a & ~s->mask) == (b & ~s->mask);
}

// wk_class writes the WM_CLASS class of w or its nearest ancestor that has one
// ("XTerm", "Gnome-terminal") into buf; empty when none.
static void wk_class(wk_owner *s, unsigned long w, char *buf, int n, char *name, int nn) {
	buf[0] = name[0] = 0;
	for (int depth = 0; w != None && depth < 16; depth++) {
		XClassHint h;
		if (XGetClassHint(s->d, w, &h)) {
			if (h.res_class) { strncpy(buf, h.res_class, n - 1); buf[n - 1] = 0; XFree(h.res_class); }
			if (h.res_name) { strncpy(name, h.res_name, nn - 1); name[nn - 1] = 0; XFree(h.res_name); }
			return;
		}
		Window root, parent, *kids = NULL;
		unsigned int nk;
		if (!XQueryTree(s->d, w, &root, &parent, &kids, &nk)) return;
		if (kids) XFree(kids);
		if (parent == root) return;
		w = parent;
	}
}

// wk_title_pid writes the title (_NET_WM_NAME, else WM_NAME) of w or its
// nearest ancestor with one into buf, and returns the _NET_WM_PID of w or its
// nearest ancestor with one (0: none): toolkits put them on different windows.
static long wk_title_pid(wk_owner *s, unsigned long w, char *buf, int n) {
	Atom net_name = XInternAtom(s->d, "_NET_WM_NAME", False);
	Atom net_pid = XInternAtom(s->d, "_NET_WM_PID", False);
	long pid = 0;
	buf[0] = 0;
	for (int depth = 0; w != None && depth < 16 && !(buf[0] && pid); depth++) {
		Atom type; int format; unsigned long count, after; unsigned char *data = NULL;
		if (!pid && XGetWindowProperty(s->d, w, net_pid, 0, 1, False, XA_CARDINAL, &type, &format, &count, &after, &data) == Success && data) {
			if (count == 1 && format == 32) pid = *(long *)data;
			XFree(data);
			data = NULL;
		}
		if (!buf[0]) {
			if (XGetWindowProperty(s->d, w, net_name, 0, 1024, False, s->utf8, &type, &format, &count, &after, &data) == Success && data && count > 0) {
				strncpy(buf, (char *)data, n - 1); buf[n - 1] = 0;
			} else {
				char *name = NULL;
				if (XFetchName(s->d, w, &name) && name) { strncpy(buf, name, n - 1); buf[n - 1] = 0; XFree(name); }
			}
			if (data) XFree(data);
		}
		Window root, parent, *kids = NULL;
		unsigned int nk;
		if (!XQueryTree(s->d, w, &root, &parent, &kids, &nk)) break;
		if (kids) XFree(kids);
		if (parent == root) break;
		w = parent;
	}
	return pid;
}

static int wk_wait(int xfd, int wakefd, int ms) {
	struct pollfd p[2] = {{xfd, POLLIN, 0}, {wakefd, POLLIN, 0}};
	return poll(p, 2, ms);
}

// wk_free_keycodes lists up to n keycodes with no keysyms: spare keys to map the
// characters the layout lacks. Returns how many.
static int wk_free_keycodes(wk_owner *s, int *out, int n) {
	int lo, hi, per, found = 0;
	XDisplayKeycodes(s->d, &lo, &hi);
	KeySym *m = XGetKeyboardMapping(s->d, lo, hi - lo + 1, &per);
	if (m == NULL) return 0;
	for (int kc = hi; kc >= lo && found < n; kc--) {
		int empty = 1;
		for (int i = 0; i < per; i++) {
			if (m[(kc - lo) * per + i] != NoSymbol) { empty = 0; break; }
		}
		if (empty) out[found++] = kc;
	}
	XFree(m);
	return found;
}

// wk_layout_key finds the layout's key for ks: *kc, and *shift when it is on the
// shifted level. Returns 0 when the layout has none.
static int wk_layout_key(wk_owner *s, unsigned long ks, int *kc, int *shift) {
	KeyCode k = XKeysymToKeycode(s->d, ks);
	if (k == 0) return 0;
	if (XkbKeycodeToKeysym(s->d, k, 0, 0) == ks) { *kc = k; *shift = 0; return 1; }
	if (XkbKeycodeToKeysym(s->d, k, 0, 1) == ks) { *kc = k; *shift = 1; return 1; }
	return 0;
}

// wk_map maps keycode kc to ks on both levels (kc's keysyms go back with ks = NoSymbol).
static void wk_map(wk_owner *s, int kc, unsigned long ks) {
	KeySym syms[2] = {ks, ks};
	XChangeKeyboardMapping(s->d, kc, 2, syms, 1);
}

static void wk_tap(wk_owner *s, int kc, int shift) {
	int sk = XKeysymToKeycode(s->d, 0xffe1); // Shift_L
	if (shift && sk) XTestFakeKeyEvent(s->d, sk, True, 0);
	XTestFakeKeyEvent(s->d, kc, True, 0);
	XTestFakeKeyEvent(s->d, kc, False, 0);
	if (shift && sk) XTestFakeKeyEvent(s->d, sk, False, 0);
}

static void wk_sync(wk_owner *s) { XSync(s->d, False); }

static int wk_has_xtest(wk_owner *s) {
	int ev, er, ma, mi;
	return XTestQueryExtension(s->d, &ev, &er, &ma, &mi);
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"unsafe"
)

// xOwner serves pasted text on the X selection from its own connection and window,
// on a goroutine of its own, and reports when the target asks for it.
type xOwner struct {
	log   *slog.Logger
	reqs  chan func(*C.wk_owner)
	wakeR *os.File
	wakeW *os.File
	quit  chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	cur   *xOffer // the text we serve now; nil when none
	spare []C.int // keycodes typeText mapped; owner thread only
}

// xOffer is one text put on the clipboard: read closes when the target (a window of
// the client that had the focus) first asks for the text, lost when another program
// takes the clipboard.
type xOffer struct {
	target            uint64
	read, lost        chan struct{}
	readOnce, lostOne sync.Once
	primary           bool
}

func (o *xOffer) markRead() { o.readOnce.Do(func() { close(o.read) }) }
func (o *xOffer) markLost() { o.lostOne.Do(func() { close(o.lost) }) }

func newXOwner(log *slog.Logger) (*xOwner, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("clipboard owner: %w", err)
	}
	x := &xOwner{log: log, reqs: make(chan func(*C.wk_owner), 1), wakeR: r, wakeW: w, quit: make(chan struct{}), done: make(chan struct{})}
	started := make(chan error, 1)
	go x.run(started)
	if err := <-started; err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	return x, nil
}

func (x *xOwner) run(started chan<- error) {
	defer close(x.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	s := (*C.wk_owner)(C.calloc(1, C.sizeof_wk_owner))
	defer C.free(unsafe.Pointer(s))
	if C.wk_owner_open(s) != 0 {
		started <- errors.New("clipboard owner: cannot open the X display")
		return
	}
	defer C.wk_owner_close(s)
	defer x.unmapSpare(s)
	started <- nil
	xfd, wfd := C.wk_owner_fd(s), C.int(x.wakeR.Fd())
	var buf [64]byte
	for {
		x.events(s)
		C.wk_wait(xfd, wfd, 1000)
		select {
		case <-x.quit:
			return
		case f := <-x.reqs:
			_, _ = x.wakeR.Read(buf[:]) // one byte per request
			f(s)
		default:
		}
	}
}

// events handles everything queued on the connection.
func (x *xOwner) events(s *C.wk_owner) {
	for {
		var requestor C.ulong
		kind := C.wk_owner_event(s, &requestor)
		if kind == C.EV_NONE {
			return
		}
		x.mu.Lock()
		o := x.cur
		x.mu.Unlock()
		if o == nil {
			continue
		}
		switch kind {
		case C.EV_DATA:
			// A clipboard manager copying our text is not the target pasting it.
			if o.target <= 1 || C.wk_same_client(s, requestor, C.ulong(o.target)) != 0 {
				o.markRead()
			} else {
				x.log.Debug("clipboard read by another program than the target", "requestor", uint64(requestor))
			}
		case C.EV_CLEAR:
			o.markLost()
			C.wk_owner_drop(s)
			x.mu.Lock()
			if x.cur == o {
				x.cur = nil
			}
			x.mu.Unlock()
		}
	}
}

// do runs f on the owner's thread and waits for it.
func (x *xOwner) do(f func(*C.wk_owner)) error {
	ran := make(chan struct{})
	select {
	case x.reqs <- func(s *C.wk_owner) { f(s); close(ran) }:
	case <-x.done:
		return errors.New("clipboard owner closed")
	}
	if _, err := x.wakeW.Write([]byte{1}); err != nil {
		return fmt.Errorf("clipboard owner: %w", err)
	}
	select {
	case <-ran:
		return nil
	case <-x.done:
		return errors.New("clipboard owner closed")
	}
}

// offer puts text on CLIPBOARD (and PRIMARY too when primary is set, for terminals
// whose paste key reads it) for the window target (0: any reader counts).
func (x *xOwner) offer(text string, target uint64, primary bool) (*xOffer, error) {
	o := &xOffer{target: target, read: make(chan struct{}), lost: make(chan struct{}), primary: primary}
	u, l := []byte(text), []byte(toLatin1(text))
	var ok bool
	err := x.do(func(s *C.wk_owner) {
		x.mu.Lock()
		prev := x.cur
		x.cur = o
		x.mu.Unlock()
		if prev != nil {
			prev.markLost()
		}
		cu, cl := C.CBytes(append(u, 0)), C.CBytes(append(l, 0))
		defer C.free(cu)
		defer C.free(cl)
		p := C.int(0)
		if primary {
			p = 1
		}
		ok = C.wk_owner_take(s, (*C.char)(cu), C.int(len(u)), (*C.char)(cl), C.int(len(l)), p) != 0
	})
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("another program kept the clipboard")
	}
	return o, nil
}

// releasePrimary gives PRIMARY back to nobody after a terminal read it.
func (x *xOwner) releasePrimary() {
	_ = x.do(func(s *C.wk_owner) { C.wk_owner_release_primary(s) })
}

// windowClass is the WM_CLASS class and instance of w or its nearest ancestor with one.
func (x *xOwner) windowClass(w uint64) (class, name string) {
	var cb, nb [128]C.char
	_ = x.do(func(s *C.wk_owner) { C.wk_class(s, C.ulong(w), &cb[0], 128, &nb[0], 128) })
	return C.GoString(&cb[0]), C.GoString(&nb[0])
}

// titlePID is the title and _NET_WM_PID (0: unknown) of w or its nearest
// ancestor with a title.
func (x *xOwner) titlePID(w uint64) (string, int) {
	var buf [512]C.char
	var pid C.long
	_ = x.do(func(s *C.wk_owner) { pid = C.wk_title_pid(s, C.ulong(w), &buf[0], 512) })
	return C.GoString(&buf[0]), int(pid)
}

func (x *xOwner) close() {
	select {
	case <-x.quit:
		return
	default:
	}
	close(x.quit)
	_, _ = x.wakeW.Write([]byte{1})
	<-x.done
	x.wakeR.Close()
	x.wakeW.Close()
}

// toLatin1 is text for the old STRING target: characters outside Latin-1 become '?'.
func toLatin1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r < 256 {
			b = append(b, byte(r))
		} else {
			b = append(b, '?')
		}
	}
	return string(b)
}

// keysym is the X keysym that types r: Latin-1 characters are their own keysym,
// others 0x01000000 + code point; newline and tab are Return and Tab.
func keysym(r rune) uint64 {
	switch {
	case r == '\n':
		return 0xff0d
	case r == '\t':
		return 0xff09
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xff:
		return uint64(r)
	}
	return 0x01000000 | uint64(r)
}

// typeText types text into the focused window through XTest on the owner's
// connection. Characters the layout lacks are mapped to spare keycodes, all at once
// before typing: a client looks keysyms up when it handles the key event, so a mapping
// changed between two characters would turn earlier ones into later ones. The spare
// keycodes are cleared at the next typeText and at close.
func (x *xOwner) typeText(ctx context.Context, text string) error {
	type key struct {
		kc    C.int
		shift C.int
	}
	var plan []key
	var err error
	if e := x.do(func(s *C.wk_owner) {
		if C.wk_has_xtest(s) == 0 {
			err = errors.New("the X server has no XTEST extension")
			return
		}
		x.unmapSpare(s)
		var free [256]C.int
		nfree := int(C.wk_free_keycodes(s, &free[0], C.int(len(free))))
		spare := map[uint64]C.int{}
		for _, r := range text {
			if r == '\r' {
				continue
			}
			ks := keysym(r)
			var k key
			if C.wk_layout_key(s, C.ulong(ks), &k.kc, &k.shift) == 0 {
				kc, ok := spare[ks]
				if !ok {
					if len(spare) == nfree {
						err = fmt.Errorf("the text has more different characters missing from the keyboard layout than there are spare keys (%d)", nfree)
						return
					}
					kc = free[len(spare)]
					spare[ks] = kc
					C.wk_map(s, kc, C.ulong(ks))
					x.spare = append(x.spare, kc)
				}
				k = key{kc: kc}
			}
			plan = append(plan, k)
		}
		C.wk_sync(s)
	}); e != nil {
		return e
	}
	if err != nil {
		return err
	}
	for len(plan) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := plan[:min(len(plan), 32)]
		if e := x.do(func(s *C.wk_owner) {
			for _, k := range chunk {
				C.wk_tap(s, k.kc, k.shift)
			}
			C.wk_sync(s)
		}); e != nil {
			return e
		}
		plan = plan[len(chunk):]
	}
	return nil
}

// unmapSpare clears the spare keycodes the last typeText mapped. Owner thread only.
func (x *xOwner) unmapSpare(s *C.wk_owner) {
	for _, kc := range x.spare {
		C.wk_map(s, kc, 0)
	}
	x.spare = nil
	C.wk_sync(s)
}
