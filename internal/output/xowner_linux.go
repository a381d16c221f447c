//go:build linux && cgo

package output

/*
#cgo LDFLAGS: -lX11 -lXtst
#include <poll.h>
#include <time.h>
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

enum { EV_NONE, EV_OTHER, EV_DATA, EV_META, EV_CLEAR, EV_CLEAR_PRIMARY };

// wk_owner_event handles one queued event, if any: it answers a SelectionRequest
// and says what happened. *requestor is the window that asked for data.
static int wk_owner_event(wk_owner *s, unsigned long *requestor) {
	if (XPending(s->d) == 0) return EV_NONE;
	XEvent e;
	XNextEvent(s->d, &e);
	if (e.type == SelectionClear) {
		return e.xselectionclear.selection == s->clipboard ? EV_CLEAR : EV_CLEAR_PRIMARY;
	}
	if (e.type != SelectionRequest) return EV_OTHER; // root events after a ping
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

// wk_parent is w's parent, or None when w is top-level (its parent is the
// root) or the server cannot say: the end of a walk up from w.
static Window wk_parent(wk_owner *s, Window w) {
	Window root, parent, *kids = NULL;
	unsigned int nk;
	if (!XQueryTree(s->d, w, &root, &parent, &kids, &nk)) return None;
	if (kids) XFree(kids);
	return parent == root ? None : parent;
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
		w = wk_parent(s, w);
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
		w = wk_parent(s, w);
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

// wk_keys_set gives each keycode kc[i] the keysyms lo[i] (plain) and hi[i] (with
// Shift); lo[i] == NoSymbol empties the key. It is one XkbSetMap request, so clients
// get one notification for the whole change: Xlib forgets a notification that
// arrives while it fetches the map for an earlier one, and one request per key lost
// characters that way under load. Returns 1 when the server took it.
static int wk_keys_set(wk_owner *s, const int *kc, const unsigned long *lo, const unsigned long *hi, int n) {
	if (n == 0) return 1;
	XkbDescPtr xkb = XkbGetMap(s->d, XkbKeyTypesMask | XkbKeySymsMask, XkbUseCoreKbd);
	if (xkb == NULL) return 0;
	XkbMapChangesRec ch;
	memset(&ch, 0, sizeof ch);
	int first = 255, last = 0, ok = 1;
	for (int i = 0; i < n && ok; i++) {
		int types[XkbNumKbdGroups] = {XkbOneLevelIndex, XkbOneLevelIndex, XkbOneLevelIndex, XkbOneLevelIndex};
		if (lo[i] == NoSymbol) {
			ok = XkbChangeTypesOfKey(xkb, kc[i], 0, XkbGroup1Mask, types, &ch) == Success;
		} else {
			int width = hi[i] != NoSymbol ? 2 : 1;
			types[0] = width == 2 ? XkbTwoLevelIndex : XkbOneLevelIndex;
			ok = XkbChangeTypesOfKey(xkb, kc[i], 1, XkbGroup1Mask, types, &ch) == Success;
			KeySym *syms = ok ? XkbResizeKeySyms(xkb, kc[i], width) : NULL;
			if (syms == NULL) ok = 0;
			else {
				syms[0] = lo[i];
				if (width == 2) syms[1] = hi[i];
			}
		}
		if (kc[i] < first) first = kc[i];
		if (kc[i] > last) last = kc[i];
	}
	if (ok) {
		ch.changed |= XkbKeySymsMask;
		ch.first_key_sym = first;
		ch.num_key_syms = last - first + 1;
		ok = XkbChangeMap(s->d, xkb, &ch) ? 1 : 0;
	}
	XkbFreeKeyboard(xkb, XkbAllComponentsMask, True);
	XSync(s->d, False);
	return ok;
}

// wk_keys_get reads the group-1 keysyms of keycodes kc[] from the server (not from
// this connection's cache). Returns 1 on success.
static int wk_keys_get(wk_owner *s, const int *kc, unsigned long *lo, unsigned long *hi, int n) {
	XkbDescPtr xkb = XkbGetMap(s->d, XkbKeyTypesMask | XkbKeySymsMask, XkbUseCoreKbd);
	if (xkb == NULL) return 0;
	for (int i = 0; i < n; i++) {
		lo[i] = hi[i] = NoSymbol;
		if (XkbKeyNumGroups(xkb, kc[i]) == 0) continue;
		int width = XkbKeyGroupWidth(xkb, kc[i], 0);
		lo[i] = XkbKeySymEntry(xkb, kc[i], 0, 0);
		if (width > 1) hi[i] = XkbKeySymEntry(xkb, kc[i], 1, 0);
	}
	XkbFreeKeyboard(xkb, XkbAllComponentsMask, True);
	return 1;
}

// wk_ping_window is w or its nearest ancestor whose WM_PROTOCOLS lists _NET_WM_PING;
// None when none does.
static Window wk_ping_window(wk_owner *s, Window w) {
	Atom ping = XInternAtom(s->d, "_NET_WM_PING", False);
	for (int depth = 0; w != None && w != PointerRoot && depth < 16; depth++) {
		Atom *protos = NULL;
		int n = 0;
		if (XGetWMProtocols(s->d, w, &protos, &n)) {
			int has = 0;
			for (int i = 0; i < n; i++) has |= protos[i] == ping;
			XFree(protos);
			if (has) return w;
		}
		w = wk_parent(s, w);
	}
	return None;
}

// wk_ping sends _NET_WM_PING to w and waits up to ms for the answer, which the client
// sends once it handled every event queued before the ping: the key presses typed
// so far included. Returns 1 when it answered.
static int wk_ping(wk_owner *s, Window w, long token, int ms) {
	Atom proto = XInternAtom(s->d, "WM_PROTOCOLS", False);
	Atom ping = XInternAtom(s->d, "_NET_WM_PING", False);
	Window root = DefaultRootWindow(s->d);
	XSelectInput(s->d, root, SubstructureNotifyMask); // where the answer goes
	XEvent e;
	memset(&e, 0, sizeof e);
	e.xclient.type = ClientMessage;
	e.xclient.window = w;
	e.xclient.message_type = proto;
	e.xclient.format = 32;
	e.xclient.data.l[0] = ping;
	e.xclient.data.l[1] = token;
	e.xclient.data.l[2] = w;
	XSendEvent(s->d, w, False, NoEventMask, &e);
	XFlush(s->d);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int got = 0;
	while (!got) {
		XEvent r;
		while (!got && XCheckTypedEvent(s->d, ClientMessage, &r)) {
			got = r.xclient.message_type == proto && r.xclient.data.l[0] == (long)ping && r.xclient.data.l[1] == token;
		}
		if (got) break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		int left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0) break;
		struct pollfd p = {ConnectionNumber(s->d), POLLIN, 0};
		poll(&p, 1, left);
		XEventsQueued(s->d, QueuedAfterReading);
	}
	XSelectInput(s->d, root, NoEventMask);
	XSync(s->d, False);
	return got;
}

static void wk_tap(wk_owner *s, int kc, int shift) {
	int sk = XKeysymToKeycode(s->d, 0xffe1); // Shift_L
	if (shift && sk) XTestFakeKeyEvent(s->d, sk, True, 0);
	XTestFakeKeyEvent(s->d, kc, True, 0);
	XTestFakeKeyEvent(s->d, kc, False, 0);
	if (shift && sk) XTestFakeKeyEvent(s->d, sk, False, 0);
}

static void wk_sync(wk_owner *s) { XSync(s->d, False); }

// wk_plain_state unlocks Caps Lock and selects the first layout group, where the
// keys typing looks up are: each key event carries the state, and Caps Lock would
// turn "Hello" into "hELLO". *lock and *group receive what wk_restore_state puts back.
static void wk_plain_state(wk_owner *s, unsigned *lock, int *group) {
	XkbStateRec st;
	*lock = 0;
	*group = 0;
	if (XkbGetState(s->d, XkbUseCoreKbd, &st) != Success) return;
	*lock = st.locked_mods & LockMask;
	*group = st.locked_group;
	if (*lock) XkbLockModifiers(s->d, XkbUseCoreKbd, LockMask, 0);
	if (*group) XkbLockGroup(s->d, XkbUseCoreKbd, 0);
	XSync(s->d, False);
}

// wk_restore_state puts back what wk_plain_state changed, after the typed keys: the
// server handles requests in order and stamps each key event with the state then.
static void wk_restore_state(wk_owner *s, unsigned lock, int group) {
	if (lock) XkbLockModifiers(s->d, XkbUseCoreKbd, LockMask, lock);
	if (group) XkbLockGroup(s->d, XkbUseCoreKbd, group);
	XSync(s->d, False);
}

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
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"
	"unsafe"
)

// pingTimeout bounds the wait for a window's answer to _NET_WM_PING while typing;
// settleDelay is the wait after the last key for a window that cannot answer.
const (
	pingTimeout = 3 * time.Second
	settleDelay = 500 * time.Millisecond
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
	// Typing state, owner thread only: the spare keys mapped and their keysyms, those
	// tapped since the target last settled, when, and the last ping's token.
	keys    map[uint32]keySlots
	tapped  map[uint32]bool
	lastTap time.Time
	pings   int64
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
	x := &xOwner{log: log, reqs: make(chan func(*C.wk_owner), 1), wakeR: r, wakeW: w, quit: make(chan struct{}), done: make(chan struct{}),
		keys: map[uint32]keySlots{}, tapped: map[uint32]bool{}}
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
	defer x.clearKeys(s)
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
		if o == nil || kind == C.EV_OTHER {
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

// typeText types text into the focused window through XTest on the owner's
// connection. Characters the layout lacks go on spare keycodes (planTyping says
// which, in batches); every change of them is one request, checked on the server
// before a key is pressed, and a key tapped earlier changes only once the target
// has handled those taps (settle). The spare keys keep their keysyms until a later
// text needs them for others, or close.
func (x *xOwner) typeText(ctx context.Context, text string) error {
	var batches []typingBatch
	var err error
	if e := x.do(func(s *C.wk_owner) {
		if C.wk_has_xtest(s) == 0 {
			err = errors.New("the X server has no XTEST extension")
			return
		}
		spare := map[uint32]keySlots{}
		var free [256]C.int
		for _, kc := range free[:C.wk_free_keycodes(s, &free[0], C.int(len(free)))] {
			spare[uint32(kc)] = keySlots{}
		}
		// Our keys as the server has them now: a layout change may have taken them.
		now, e := x.getKeys(s, slices.Collect(maps.Keys(x.keys)))
		if e != nil {
			err = e
			return
		}
		for kc, sl := range x.keys {
			if now[kc] == sl {
				spare[kc] = sl
			} else {
				delete(x.keys, kc)
			}
		}
		layout := func(ks uint64) (stroke, bool) {
			var kc, shift C.int
			if C.wk_layout_key(s, C.ulong(ks), &kc, &shift) == 0 {
				return stroke{}, false
			}
			if _, ours := spare[uint32(kc)]; ours {
				return stroke{}, false
			}
			return stroke{code: uint32(kc), shift: shift != 0}, true
		}
		batches, err = planTyping(text, layout, spare)
	}); e != nil {
		return e
	}
	if err != nil {
		return err
	}
	var lock C.uint
	var group C.int
	if e := x.do(func(s *C.wk_owner) { C.wk_plain_state(s, &lock, &group) }); e != nil {
		return e
	}
	defer x.do(func(s *C.wk_owner) { C.wk_restore_state(s, lock, group) }) //nolint:errcheck // only fails once the owner closed, which drops the state anyway
	for _, b := range batches {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(b.remap) > 0 {
			if err := x.remap(b.remap); err != nil {
				return err
			}
		}
		for len(b.strokes) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			chunk := b.strokes[:min(len(b.strokes), 32)]
			if e := x.do(func(s *C.wk_owner) {
				for _, k := range chunk {
					shift := C.int(0)
					if k.shift {
						shift = 1
					}
					C.wk_tap(s, C.int(k.code), shift)
					x.tapped[k.code] = true
				}
				C.wk_sync(s)
				x.lastTap = time.Now()
			}); e != nil {
				return e
			}
			b.strokes = b.strokes[len(chunk):]
		}
	}
	return nil
}

// remap gives spare keys new keysyms in one request and checks that the server has
// them. Keys tapped since the last settle wait for the target first.
func (x *xOwner) remap(keys map[uint32]keySlots) error {
	var err error
	if e := x.do(func(s *C.wk_owner) {
		for kc := range keys {
			if x.tapped[kc] {
				x.settle(s)
				break
			}
		}
		err = x.setKeys(s, keys)
	}); e != nil {
		return e
	}
	return err
}

// setKeys applies keys (keycode → keysyms) in one request and reads them back from
// the server. Owner thread only.
func (x *xOwner) setKeys(s *C.wk_owner, keys map[uint32]keySlots) error {
	n := len(keys)
	if n == 0 {
		return nil
	}
	// Go memory holding no Go pointers may be lent to C for the call.
	ck, cl, ch := make([]C.int, 0, n), make([]C.ulong, 0, n), make([]C.ulong, 0, n)
	for k, sl := range keys {
		ck, cl, ch = append(ck, C.int(k)), append(cl, C.ulong(sl[0])), append(ch, C.ulong(sl[1]))
	}
	if C.wk_keys_set(s, &ck[0], &cl[0], &ch[0], C.int(n)) == 0 {
		return errors.New("the X server refused to map characters the keyboard layout lacks to spare keys")
	}
	for k, sl := range keys {
		if sl == (keySlots{}) {
			delete(x.keys, k)
		} else {
			x.keys[k] = sl
		}
		delete(x.tapped, k)
	}
	// Pressing a key before the server holds its new keysyms would type the old ones.
	got, err := x.getKeys(s, slices.Collect(maps.Keys(keys)))
	if err != nil {
		return err
	}
	for k, sl := range keys {
		if got[k] != sl {
			return fmt.Errorf("the X server kept keycode %d at keysyms %#x instead of %#x", k, got[k], sl)
		}
	}
	return nil
}

// getKeys reads the keysyms of keycodes codes from the server. Owner thread only.
func (x *xOwner) getKeys(s *C.wk_owner, codes []uint32) (map[uint32]keySlots, error) {
	out := make(map[uint32]keySlots, len(codes))
	if len(codes) == 0 {
		return out, nil
	}
	n := len(codes)
	kc, lo, hi := make([]C.int, n), make([]C.ulong, n), make([]C.ulong, n)
	for i, c := range codes {
		kc[i] = C.int(c)
	}
	if C.wk_keys_get(s, &kc[0], &lo[0], &hi[0], C.int(n)) == 0 {
		return nil, errors.New("read the keyboard mapping from the X server")
	}
	for i, c := range codes {
		out[c] = keySlots{uint64(lo[i]), uint64(hi[i])}
	}
	return out, nil
}

// settle waits until the focused window has handled the keys tapped so far: it
// answers _NET_WM_PING only after every earlier event. A window that does not speak
// the protocol gets settleDelay after the last tap, a bet a client far behind can
// lose. Owner thread only.
func (x *xOwner) settle(s *C.wk_owner) {
	defer clear(x.tapped)
	var focus C.Window
	var revert C.int
	C.XGetInputFocus(s.d, &focus, &revert)
	if w := C.wk_ping_window(s, focus); w != 0 {
		x.pings++
		if C.wk_ping(s, w, C.long(x.pings), C.int(pingTimeout/time.Millisecond)) != 0 {
			return
		}
		x.log.Warn("the focused window did not answer a ping while typing; changing keys anyway", "timeout", pingTimeout)
		return
	}
	if wait := time.Until(x.lastTap.Add(settleDelay)); wait > 0 {
		time.Sleep(wait)
	}
}

// clearKeys empties the spare keys typeText mapped, after the target handled their
// taps. Owner thread only.
func (x *xOwner) clearKeys(s *C.wk_owner) {
	if len(x.keys) == 0 {
		return
	}
	keys := map[uint32]keySlots{}
	for kc := range x.keys {
		keys[kc] = keySlots{}
	}
	if len(x.tapped) > 0 {
		x.settle(s)
	}
	if err := x.setKeys(s, keys); err != nil {
		x.log.Warn("could not clear the spare keys typing mapped", "err", err)
	}
}
