/* A deliberately slow typing target for the tests: a plain Xlib window that takes
 * the focus, answers _NET_WM_PING (as GTK and Qt windows do) and handles each key
 * press only after a pause, so it lags far behind the keys sent to it, as a busy
 * application does. Keysyms are looked up the way Xlib clients do (XLookupString:
 * the keyboard map is fetched lazily after a change).
 * Prints "READY <window id>"; for each "dump" line on stdin prints
 * "GOT <hex of the UTF-8 text typed so far>". Exits when stdin closes.
 *   cc -o slowtarget slowtarget.c -lX11
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

static char text[1 << 16];
static int len;

static void put_utf8(unsigned long c) {
	if (len > (int)sizeof text - 4) return;
	if (c < 0x80) text[len++] = c;
	else if (c < 0x800) { text[len++] = 0xc0 | c >> 6; text[len++] = 0x80 | (c & 0x3f); }
	else if (c < 0x10000) { text[len++] = 0xe0 | c >> 12; text[len++] = 0x80 | (c >> 6 & 0x3f); text[len++] = 0x80 | (c & 0x3f); }
	else { text[len++] = 0xf0 | c >> 18; text[len++] = 0x80 | (c >> 12 & 0x3f); text[len++] = 0x80 | (c >> 6 & 0x3f); text[len++] = 0x80 | (c & 0x3f); }
}

int main(void) {
	Display *d = XOpenDisplay(NULL);
	if (d == NULL) { fprintf(stderr, "slowtarget: no display\n"); return 1; }
	Window w = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, 300, 100, 0, 0, 0);
	XStoreName(d, w, "whisperkey-slow-target");
	Atom protocols = XInternAtom(d, "WM_PROTOCOLS", False), ping = XInternAtom(d, "_NET_WM_PING", False);
	XSetWMProtocols(d, w, &ping, 1);
	XSelectInput(d, w, KeyPressMask | ExposureMask);
	XMapWindow(d, w);
	for (;;) {
		XEvent e;
		XNextEvent(d, &e);
		if (e.type == Expose) break;
	}
	XSetInputFocus(d, w, RevertToParent, CurrentTime);
	XSync(d, False);
	printf("READY %lu\n", w);
	fflush(stdout);
	char line[64];
	int lpos = 0;
	for (;;) {
		while (XPending(d)) {
			XEvent e;
			XNextEvent(d, &e);
			if (e.type == KeyPress) {
				struct timespec pause = {0, 3 * 1000 * 1000}; /* a busy application */
				nanosleep(&pause, NULL);
				KeySym ks = NoSymbol;
				char buf[8];
				XLookupString(&e.xkey, buf, sizeof buf, &ks, NULL);
				if (ks == XK_Return) put_utf8('\n');
				else if (ks == XK_Tab) put_utf8('\t');
				else if ((ks >= 0x20 && ks <= 0x7e) || (ks >= 0xa0 && ks <= 0xff)) put_utf8(ks);
				else if ((ks & 0xff000000) == 0x01000000) put_utf8(ks & 0x00ffffff);
			} else if (e.type == ClientMessage && e.xclient.message_type == protocols &&
			           (Atom)e.xclient.data.l[0] == ping) {
				e.xclient.window = DefaultRootWindow(d);
				XSendEvent(d, DefaultRootWindow(d), False, SubstructureNotifyMask | SubstructureRedirectMask, &e);
				XFlush(d);
			}
		}
		struct pollfd p[2] = {{ConnectionNumber(d), POLLIN, 0}, {0, POLLIN, 0}};
		poll(p, 2, 1000);
		if (p[1].revents) {
			char c;
			if (read(0, &c, 1) <= 0) return 0;
			if (c != '\n') { if (lpos < (int)sizeof line - 1) line[lpos++] = c; continue; }
			line[lpos] = 0;
			lpos = 0;
			if (strcmp(line, "dump") == 0) {
				printf("GOT ");
				for (int i = 0; i < len; i++) printf("%02x", (unsigned char)text[i]);
				printf("\n");
				fflush(stdout);
			}
		}
	}
}
