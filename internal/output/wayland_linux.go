package output

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whisperkey/whisperkey/internal/portal"
	"github.com/whisperkey/whisperkey/internal/session"
)

// wlTarget marks a target that is a native Wayland window (not XWayland):
// the low bits are the compositor's id of it, 0 when it cannot be told.
const wlTarget = uint64(1) << 63

func isWayland(target uint64) bool { return target&wlTarget != 0 }

// wayland is the route into native Wayland windows: the clipboard through
// x/clipboard's data-control backend (or XWayland's, which the compositor
// bridges), the paste keystroke through our own client of the
// virtual-keyboard protocol (wlroots compositors, KDE), typing through
// wtype. The focused window is asked of the compositor where it says
// (sway, Hyprland).
type wayland struct {
	log    *slog.Logger
	socket string // the compositor's socket
	// keyErr is why no keystroke can reach a Wayland window (no
	// virtual-keyboard protocol); nil when one can.
	keyErr error
	// remote presses the paste keystroke through the RemoteDesktop portal
	// where the compositor offers no virtual keyboard (GNOME); nil when
	// the virtual keyboard does it or the portal is not offered.
	remote *portal.RemoteKeyboard
	// wtype types text (its keymap holds any character); "" when missing.
	wtype string
	// wlCopy is wl-copy (wl-clipboard), which empties the clipboard when
	// there was nothing on it to restore; "" when missing.
	wlCopy string
	// swaySock and hyprland say which compositor can tell the focus.
	swaySock, hyprland string
}

// newWayland is the Wayland route of this session, nil outside Wayland.
func newWayland(log *slog.Logger, getenv func(string) string, remoteToken string) *wayland {
	if getenv("WAYLAND_DISPLAY") == "" {
		return nil
	}
	w := &wayland{log: log, socket: session.SocketPath(getenv("WAYLAND_DISPLAY"), getenv("XDG_RUNTIME_DIR")),
		swaySock: getenv("SWAYSOCK"), hyprland: getenv("HYPRLAND_INSTANCE_SIGNATURE")}
	w.wtype, _ = exec.LookPath("wtype")
	w.wlCopy, _ = exec.LookPath("wl-copy")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	globals, err := session.Globals(ctx, w.socket)
	w.keyErr = keyRouteErr(globals, err)
	switch {
	case w.keyErr == nil:
	case err == nil && portal.Versions(ctx, portal.IfaceRemoteDesktop)[0] > 0:
		// The desktop may show its approval dialog: wait for it beside the
		// app, not here; a paste before the answer leaves the text on the
		// clipboard and says why.
		log.Info("no virtual keyboard; the paste keystroke goes through the RemoteDesktop portal", "err", w.keyErr)
		w.remote = portal.StartKeyboard(context.Background(), remoteToken, log)
	default:
		log.Warn("no paste keystroke into Wayland windows; the text is left on the clipboard there", "err", w.keyErr)
	}
	if w.wtype == "" {
		log.Info("wtype is not installed; paste: type cannot type into Wayland windows (sudo apt install wtype)")
	}
	return w
}

// keyRouteErr says why keystrokes cannot reach Wayland windows, nil when
// they can, naming what would fix it.
func keyRouteErr(globals []string, probeErr error) error {
	switch {
	case probeErr != nil:
		return fmt.Errorf("cannot ask the Wayland compositor for its protocols: %w", probeErr)
	case !slices.Contains(globals, "zwp_virtual_keyboard_manager_v1"):
		return errors.New("this compositor offers no virtual-keyboard protocol (GNOME does not), so no keystroke reaches Wayland windows")
	}
	return nil
}

// wlWindow is the focused window as the compositor tells it.
type wlWindow struct {
	id       uint64
	appID    string // Wayland app_id, or the X11 class of an XWayland window
	title    string
	pid      int
	xwayland bool
}

// focused asks sway or Hyprland for the focused window; false where the
// compositor cannot be asked.
func (w *wayland) focused() (wlWindow, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	switch {
	case w.swaySock != "":
		out, err := exec.CommandContext(ctx, "swaymsg", "-s", w.swaySock, "-t", "get_tree", "-r").Output()
		if err != nil {
			w.log.Debug("cannot ask sway for the focused window", "err", err)
			return wlWindow{}, false
		}
		return swayFocused(out)
	case w.hyprland != "":
		out, err := exec.CommandContext(ctx, "hyprctl", "activewindow", "-j").Output()
		if err != nil {
			w.log.Debug("cannot ask Hyprland for the focused window", "err", err)
			return wlWindow{}, false
		}
		return hyprFocused(out)
	}
	return wlWindow{}, false
}

// swayNode is the part of sway's get_tree a window needs.
type swayNode struct {
	ID            uint64     `json:"id"`
	Name          string     `json:"name"`
	Focused       bool       `json:"focused"`
	AppID         *string    `json:"app_id"`
	PID           int        `json:"pid"`
	Shell         string     `json:"shell"`
	Nodes         []swayNode `json:"nodes"`
	FloatingNodes []swayNode `json:"floating_nodes"`
	WindowProps   *struct {
		Class string `json:"class"`
	} `json:"window_properties"`
}

// swayFocused finds the focused window in sway's tree; false when the
// focus is on no window (an empty workspace).
func swayFocused(tree []byte) (wlWindow, bool) {
	var root swayNode
	if err := json.Unmarshal(tree, &root); err != nil {
		return wlWindow{}, false
	}
	var find func(n *swayNode) *swayNode
	find = func(n *swayNode) *swayNode {
		if n.Focused && (n.AppID != nil || n.Shell != "") {
			return n
		}
		for i := range n.Nodes {
			if f := find(&n.Nodes[i]); f != nil {
				return f
			}
		}
		for i := range n.FloatingNodes {
			if f := find(&n.FloatingNodes[i]); f != nil {
				return f
			}
		}
		return nil
	}
	n := find(&root)
	if n == nil {
		return wlWindow{}, false
	}
	win := wlWindow{id: n.ID, title: n.Name, pid: n.PID, xwayland: n.Shell == "xwayland"}
	switch {
	case n.AppID != nil:
		win.appID = *n.AppID
	case n.WindowProps != nil:
		win.appID = n.WindowProps.Class
	}
	return win, true
}

// hyprFocused reads `hyprctl activewindow -j`.
func hyprFocused(out []byte) (wlWindow, bool) {
	var a struct {
		Address  string `json:"address"`
		Class    string `json:"class"`
		Title    string `json:"title"`
		PID      int    `json:"pid"`
		XWayland bool   `json:"xwayland"`
	}
	if err := json.Unmarshal(out, &a); err != nil || a.Address == "" {
		return wlWindow{}, false
	}
	id, _ := strconv.ParseUint(strings.TrimPrefix(a.Address, "0x"), 16, 63)
	return wlWindow{id: id, appID: a.Class, title: a.Title, pid: a.PID, xwayland: a.XWayland}, true
}

// describe is a Wayland window for the profiles: its app_id as the class.
func (w wlWindow) describe() Window {
	win := Window{Class: w.appID, Title: w.title}
	if w.pid > 0 {
		if exe, err := os.Readlink("/proc/" + strconv.Itoa(w.pid) + "/exe"); err == nil {
			win.Exe = filepath.Base(exe)
		}
	}
	return win
}

// keysErr says why no keystroke reaches a Wayland window: nil when the
// virtual keyboard or the RemoteDesktop portal can press keys now.
func (w *wayland) keysErr() error {
	if w.keyErr != nil && w.remote != nil {
		return w.remote.Err()
	}
	return w.keyErr
}

// send presses keys in the focused Wayland window: through the virtual
// keyboard, else as keysyms through the RemoteDesktop portal.
func (w *wayland) send(keys []keyEvent, names map[uint32]string) error {
	if err := w.keysErr(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if w.keyErr == nil {
		return vkSend(ctx, w.socket, keys, names)
	}
	seq := make([]portal.Key, 0, len(keys))
	for _, k := range keys {
		ks, ok := keysymOf(names[k.code])
		if !ok {
			return fmt.Errorf("no keysym for key code %d", k.code)
		}
		seq = append(seq, portal.Key{Keysym: ks, Down: k.down})
	}
	return w.remote.Press(ctx, seq)
}

// keysymOf is the keysym of one of the keys WhisperKey presses, by name.
func keysymOf(name string) (uint32, bool) {
	for ks, n := range wlKeysyms {
		if n == name {
			return uint32(ks), true
		}
	}
	return 0, false
}

// close ends the RemoteDesktop session, if any.
func (w *wayland) close() {
	if w.remote != nil {
		_ = w.remote.Close()
	}
}

// typeText types text: wtype maps every character into its own keymap;
// without a virtual keyboard (GNOME) each character goes to the
// RemoteDesktop portal as its keysym.
func (w *wayland) typeText(ctx context.Context, text string) error {
	switch {
	case w.keyErr != nil && w.remote != nil:
		if err := w.remote.Err(); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return w.remote.Press(ctx, typedKeys(text))
	case w.keyErr != nil:
		return w.keyErr
	case w.wtype == "":
		return errors.New("typing into Wayland windows needs wtype: sudo apt install wtype (Fedora: dnf install wtype; Arch: pacman -S wtype)")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// The text comes on stdin, so a leading "-" is not an option; the
	// pauses let the window take wtype's keyboard before the first
	// character and keep its keymap until the last is read.
	cmd := exec.CommandContext(ctx, w.wtype, "-s", "150", "-", "-s", "150")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("wtype: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// typedKeys presses and releases each character of text as its keysym:
// Latin-1 characters are their own keysyms, the rest of Unicode is
// 0x01000000 plus the code point (X11's rule, which portals follow), and
// line breaks and tabs are the Return and Tab keys. The desktop finds each
// keysym on the user's layout, shift levels included.
func typedKeys(text string) []portal.Key {
	keys := make([]portal.Key, 0, 2*len(text))
	for _, r := range strings.ReplaceAll(text, "\r\n", "\n") {
		var ks uint32
		switch {
		case r == '\n' || r == '\r':
			ks = xkReturn
		case r == '\t':
			ks = xkTab
		case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xff:
			ks = uint32(r)
		case r < 0x20 || r == 0x7f:
			continue // other control characters type nothing
		default:
			ks = 0x01000000 | uint32(r)
		}
		keys = append(keys, portal.Key{Keysym: ks, Down: true}, portal.Key{Keysym: ks})
	}
	return keys
}

// clear empties the Wayland clipboard: x/clipboard has no call for it.
func (w *wayland) clear(ctx context.Context) error {
	if w.wlCopy == "" {
		return errors.New("wl-copy is not installed: sudo apt install wl-clipboard")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, w.wlCopy, "--clear").CombinedOutput(); err != nil {
		return fmt.Errorf("wl-copy --clear: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
