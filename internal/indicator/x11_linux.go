//go:build linux && cgo

package indicator

/*
#cgo LDFLAGS: -lX11 -lXext -lXrandr
#include <stdlib.h>
#include <string.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/shape.h>
#include <X11/extensions/Xrandr.h>

typedef struct {
	Display *d;
	Window root, w;
	GC gc;
	XFontStruct *font;
	Visual *vis;
	int x, y, width, height;
} wk_ind;

// wk_pixel turns 0xRRGGBB into a pixel of the default visual (TrueColor, as every
// server made in this century offers).
static unsigned long wk_pixel(wk_ind *s, unsigned long rgb) {
	unsigned long masks[3] = {s->vis->red_mask, s->vis->green_mask, s->vis->blue_mask};
	unsigned long px = 0;
	for (int i = 0; i < 3; i++) {
		unsigned long c = (rgb >> (16 - 8 * i)) & 0xff, m = masks[i];
		if (m == 0) continue;
		int shift = 0, bits = 0;
		while (!((m >> shift) & 1)) shift++;
		while ((m >> (shift + bits)) & 1) bits++;
		c = bits >= 8 ? c << (bits - 8) : c >> (8 - bits);
		px |= (c << shift) & m;
	}
	return px;
}

// wk_open creates the hidden window: override-redirect, so no window manager frames
// it or gives it the focus; with an empty input shape, so every click goes through
// to the window below. Returns 0 or a reason code.
static int wk_open(wk_ind *s, int width, int height, unsigned long bg) {
	memset(s, 0, sizeof *s);
	s->d = XOpenDisplay(NULL);
	if (s->d == NULL) return 1;
	int ev, er;
	if (!XShapeQueryExtension(s->d, &ev, &er)) { XCloseDisplay(s->d); return 2; }
	int scr = DefaultScreen(s->d);
	s->root = RootWindow(s->d, scr);
	s->vis = DefaultVisual(s->d, scr);
	s->width = width; s->height = height;
	XSetWindowAttributes a;
	memset(&a, 0, sizeof a);
	a.override_redirect = True;
	a.background_pixel = wk_pixel(s, bg);
	a.event_mask = ExposureMask;
	s->w = XCreateWindow(s->d, s->root, 0, 0, width, height, 0, CopyFromParent, InputOutput,
		CopyFromParent, CWOverrideRedirect | CWBackPixel | CWEventMask, &a);
	XShapeCombineRectangles(s->d, s->w, ShapeInput, 0, 0, NULL, 0, ShapeSet, Unsorted);
	XWMHints h;
	memset(&h, 0, sizeof h);
	h.flags = InputHint;
	h.input = False;
	XSetWMHints(s->d, s->w, &h);
	XStoreName(s->d, s->w, "WhisperKey indicator");
	XClassHint ch = {"whisperkey-indicator", "WhisperKey"};
	XSetClassHint(s->d, s->w, &ch);
	Atom type = XInternAtom(s->d, "_NET_WM_WINDOW_TYPE", False);
	Atom notif = XInternAtom(s->d, "_NET_WM_WINDOW_TYPE_NOTIFICATION", False);
	XChangeProperty(s->d, s->w, type, XA_ATOM, 32, PropModeReplace, (unsigned char *)&notif, 1);
	s->gc = XCreateGC(s->d, s->w, 0, NULL);
	s->font = XLoadQueryFont(s->d, "fixed");
	if (s->font != NULL) XSetFont(s->d, s->gc, s->font->fid);
	XSync(s->d, False);
	return 0;
}

static void wk_close(wk_ind *s) {
	if (s->font != NULL) XFreeFont(s->d, s->font);
	XFreeGC(s->d, s->gc);
	XDestroyWindow(s->d, s->w);
	XCloseDisplay(s->d);
}

// wk_anchor finds the point that picks the monitor: the centre of the focused
// window, or the pointer. It also returns the pointer position.
static void wk_anchor(wk_ind *s, int *ax, int *ay, int *px, int *py) {
	Window r, c, focus;
	int wx, wy, revert;
	unsigned int mask;
	*px = *py = 0;
	XQueryPointer(s->d, s->root, &r, &c, px, py, &wx, &wy, &mask);
	*ax = *px; *ay = *py;
	XGetInputFocus(s->d, &focus, &revert);
	if (focus == None || focus == PointerRoot || focus == s->root) return;
	XWindowAttributes wa;
	if (!XGetWindowAttributes(s->d, focus, &wa)) return;
	int rx, ry;
	Window child;
	if (XTranslateCoordinates(s->d, focus, s->root, 0, 0, &rx, &ry, &child)) {
		*ax = rx + wa.width / 2;
		*ay = ry + wa.height / 2;
	}
}

// wk_monitors fills up to n rectangles (x, y, w, h) from RandR; returns how many.
static int wk_monitors(wk_ind *s, int *out, int n) {
	int ev, er, count = 0;
	if (XRRQueryExtension(s->d, &ev, &er)) {
		XRRMonitorInfo *m = XRRGetMonitors(s->d, s->root, True, &count);
		if (m != NULL) {
			if (count > n) count = n;
			for (int i = 0; i < count; i++) {
				out[4*i] = m[i].x; out[4*i+1] = m[i].y; out[4*i+2] = m[i].width; out[4*i+3] = m[i].height;
			}
			XRRFreeMonitors(m);
		}
	}
	if (count == 0) {
		int scr = DefaultScreen(s->d);
		out[0] = 0; out[1] = 0; out[2] = DisplayWidth(s->d, scr); out[3] = DisplayHeight(s->d, scr);
		count = 1;
	}
	return count;
}

static void wk_place(wk_ind *s, int x, int y) {
	s->x = x; s->y = y;
	XMoveWindow(s->d, s->w, x, y);
}

// wk_draw paints one frame: background, the state's dot, then the level bar or the label;
// while recording, a label (the profile) goes right of a shorter bar. filled is 0 to 1000.
static void wk_draw(wk_ind *s, unsigned long bg, unsigned long dot, int bar, unsigned long track,
		unsigned long fill, int filled, unsigned long fg, const char *text) {
	Display *d = s->d;
	XSetForeground(d, s->gc, wk_pixel(s, bg));
	XFillRectangle(d, s->w, s->gc, 0, 0, s->width, s->height);
	int r = 14, top = (s->height - r) / 2;
	XSetForeground(d, s->gc, wk_pixel(s, dot));
	XFillArc(d, s->w, s->gc, 12, top, r, r, 0, 360 * 64);
	XFillRectangle(d, s->w, s->gc, 0, 0, 4, s->height); // a stripe, so the state shows even at a glance
	int left = 12 + r + 12, right = s->width - 14;
	if (bar) {
		if (text != NULL && s->font != NULL) {
			int tw = XTextWidth(s->font, text, strlen(text)); // fitted by the caller
			XSetForeground(d, s->gc, wk_pixel(s, fg));
			int baseline = (s->height + s->font->ascent - s->font->descent) / 2;
			XDrawString(d, s->w, s->gc, right - tw, baseline, text, strlen(text));
			right -= tw + 10;
		}
		filled = filled * (right - left) / 1000;
		int h = 8, y = (s->height - h) / 2;
		XSetForeground(d, s->gc, wk_pixel(s, track));
		XFillRectangle(d, s->w, s->gc, left, y, right - left, h);
		if (filled > 0) {
			XSetForeground(d, s->gc, wk_pixel(s, fill));
			XFillRectangle(d, s->w, s->gc, left, y, filled, h);
		}
	} else if (text != NULL && s->font != NULL) {
		XSetForeground(d, s->gc, wk_pixel(s, fg));
		int baseline = (s->height + s->font->ascent - s->font->descent) / 2;
		XDrawString(d, s->w, s->gc, left, baseline, text, strlen(text));
	}
}

// wk_text_width is text's width in the indicator's font; -1 without one.
static int wk_text_width(wk_ind *s, const char *text) {
	if (s->font == NULL) return -1;
	return XTextWidth(s->font, text, strlen(text));
}

static void wk_show(wk_ind *s) { XMapRaised(s->d, s->w); }
static void wk_hide(wk_ind *s) { XUnmapWindow(s->d, s->w); }
static void wk_sync(wk_ind *s) { XSync(s->d, False); }

// wk_exposed drains the event queue and says whether the window needs painting again.
static int wk_exposed(wk_ind *s) {
	int exposed = 0;
	while (XPending(s->d) > 0) {
		XEvent e;
		XNextEvent(s->d, &e);
		if (e.type == Expose) exposed = 1;
	}
	return exposed;
}
*/
import "C"

import (
	"fmt"
	"log/slog"
	"time"
	"unsafe"

	"github.com/whisperkey/whisperkey/internal/choice"
)

// x11Window: one goroutine on a locked OS thread owns the Display and runs
// every Xlib call; the others hand it functions and wait for them.
type x11Window struct {
	cfg Config
	log *slog.Logger
	*windowThread[*C.wk_ind]

	windowState
}

func newX11(cfg Config, log *slog.Logger) (backend, error) {
	w := &x11Window{cfg: cfg, log: log}
	// Expose events arrive when something covered the window; a slow tick repaints then.
	t, err := startWindowThread(openX11, 250*time.Millisecond, w.repaintExposed)
	if err != nil {
		return nil, err
	}
	w.windowThread = t
	return w, nil
}

func openX11() (*C.wk_ind, func(), error) {
	s := (*C.wk_ind)(C.calloc(1, C.sizeof_wk_ind))
	rc := C.wk_open(s, Width, Height, colourBackground)
	// A busy X server can refuse one connection among many (seen under
	// parallel load); a short retry tells that from a display that is not there.
	for try := 0; rc == 1 && try < 3; try++ {
		time.Sleep(100 * time.Millisecond)
		rc = C.wk_open(s, Width, Height, colourBackground)
	}
	switch rc {
	case 0:
	case 1:
		C.free(unsafe.Pointer(s))
		return nil, nil, fmt.Errorf("%w: cannot open the X display (is DISPLAY set?)", ErrUnavailable)
	default:
		C.free(unsafe.Pointer(s))
		return nil, nil, fmt.Errorf("%w: the X server lacks the SHAPE extension, which a click-through window needs", ErrUnavailable)
	}
	return s, func() { C.wk_close(s); C.free(unsafe.Pointer(s)) }, nil
}

func (w *x11Window) repaintExposed(s *C.wk_ind) {
	last := w.shown()
	if C.wk_exposed(s) != 0 && last.state != Hidden {
		paint(s, last)
		C.wk_sync(s)
	}
}

func paint(s *C.wk_ind, v view) {
	var text *C.char
	l := v.label()
	if v.state == Recording {
		l = recordingLabel(func(t string) int {
			c := C.CString(latin1(t))
			defer C.free(unsafe.Pointer(c))
			return int(C.wk_text_width(s, c))
		}, v, contentRight-contentLeft) // wk_draw's layout is render's
	}
	if l != "" {
		// The core font is Latin-1; drop the ellipsis rather than show garbage.
		text = C.CString(latin1(l))
		defer C.free(unsafe.Pointer(text))
	}
	bar, filled := C.int(0), C.int(0)
	if v.state == Recording {
		bar = 1
		filled = C.int(1000 * v.level)
	}
	C.wk_draw(s, colourBackground, C.ulong(DotColour(v.state)), bar, colourLevelTrack, colourLevel, filled, colourText, text)
}

func latin1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r == '…':
			b = append(b, "..."...)
		case r < 256:
			b = append(b, byte(r))
		default:
			b = append(b, '?')
		}
	}
	return string(b)
}

func (w *x11Window) show(v view, relocate bool) {
	w.shows(v)
	w.do(func(s *C.wk_ind) {
		if relocate {
			var ax, ay, px, py C.int
			C.wk_anchor(s, &ax, &ay, &px, &py)
			var buf [4 * 16]C.int
			n := int(C.wk_monitors(s, &buf[0], 16))
			mons := make([]Rect, n)
			for i := range mons {
				mons[i] = Rect{int(buf[4*i]), int(buf[4*i+1]), int(buf[4*i+2]), int(buf[4*i+3])}
			}
			anchorX, anchorY := int(ax), int(ay)
			if w.cfg.Placement == choice.Cursor {
				anchorX, anchorY = int(px), int(py)
			}
			r := place(w.cfg.Placement, monitorFor(mons, anchorX, anchorY), int(px), int(py), Width, Height, w.cfg.Margin)
			C.wk_place(s, C.int(r.X), C.int(r.Y))
			w.placed(r)
		}
		C.wk_show(s)
		paint(s, v)
		C.wk_sync(s)
	})
}

func (w *x11Window) draw(v view) {
	w.shows(v)
	w.do(func(s *C.wk_ind) {
		paint(s, v)
		C.wk_sync(s)
	})
}

func (w *x11Window) hide() {
	w.shows(view{})
	w.do(func(s *C.wk_ind) {
		C.wk_hide(s)
		C.wk_sync(s)
	})
}
