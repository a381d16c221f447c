# Paste target for the Wayland tests: a native Wayland GTK window (GDK_BACKEND=wayland)
# with a text view that has the keyboard focus, speaking target.tcl's protocol:
# "READY" once it has the focus; "dump" prints "GOT <hex of the text's UTF-8>";
# "clear" empties it and prints "CLEARED". Exits when stdin closes.
# The app_id (WM_CLASS on Wayland) is argv[1], default whisperkey-wl-target.
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

app_id = sys.argv[1] if len(sys.argv) > 1 else "whisperkey-wl-target"
GLib.set_prgname(app_id)
win = Gtk.Window(title="whisperkey-wayland-target")
view = Gtk.TextView()
win.add(view)
win.set_default_size(400, 200)
buf = view.get_buffer()
ready = False


def text():
    return buf.get_text(buf.get_start_iter(), buf.get_end_iter(), True)


def on_focus(*_):
    global ready
    if not ready:
        ready = True
        print("READY", flush=True)
    return False


def on_stdin(source, _cond):
    line = source.readline()
    if not line:
        Gtk.main_quit()
        return False
    cmd = line.strip()
    if cmd == "dump":
        print("GOT " + text().encode("utf-8").hex(), flush=True)
    elif cmd == "clear":
        buf.set_text("")
        print("CLEARED", flush=True)
    return True


win.connect("focus-in-event", on_focus)
win.connect("destroy", Gtk.main_quit)
GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_stdin)
win.show_all()
view.grab_focus()
Gtk.main()
