//go:build linux

package testenv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Sway is a headless sway compositor (Debian's sway, no GPU, no input
// devices) that a test drives: a real Wayland session for native Wayland
// windows, its clipboard and its key bindings.
type Sway struct {
	// RuntimeDir is its XDG_RUNTIME_DIR, which its clients share as in a
	// real session (GTK finds the display only there); Display is the
	// name of its socket in it, the value for WAYLAND_DISPLAY.
	RuntimeDir, Display string
	// IPC is its IPC socket, the value for SWAYSOCK.
	IPC string
}

// WaylandTarget starts internal/output/testdata/wltarget.py, a native
// Wayland GTK window, in the session of env and returns once it has the
// keyboard focus: its command lines go to in, its answers come from out.
// A window that never gets the focus fails the test within 20 s.
func WaylandTarget(t testing.TB, env []string) (in io.WriteCloser, out *bufio.Scanner) {
	t.Helper()
	RequireWaylandTarget(t, false)
	cmd := exec.Command("/usr/bin/python3", filepath.Join(RepoRoot(t), "internal", "output", "testdata", "wltarget.py"))
	cmd.Env = append(os.Environ(), append(env, "GDK_BACKEND=wayland", "DISPLAY=")...)
	in, stdout := StartPiped(t, cmd)
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	out = bufio.NewScanner(stdout)
	timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	if !out.Scan() || out.Text() != "READY" {
		t.Fatalf("the Wayland target window did not take the focus: %q", out.Text())
	}
	return in, out
}

// RequireWaylandTarget stops the test unless the native Wayland target
// window can run (Python's GTK 3 bindings) and, with clipboard, the Wayland
// clipboard tools and wtype are there to paste into it and read it back.
func RequireWaylandTarget(t testing.TB, clipboard bool) {
	t.Helper()
	if clipboard {
		for _, tool := range []string{"wtype", "wl-copy", "wl-paste"} {
			if _, err := exec.LookPath(tool); err != nil {
				Require(t, tool, "make deps (apt-get install wtype wl-clipboard)")
			}
		}
	}
	if exec.Command("/usr/bin/python3", "-c", "import gi; gi.require_version('Gtk', '3.0')").Run() != nil {
		Require(t, "python3-gi with GTK 3", "make deps (apt-get install python3-gi gir1.2-gtk-3.0)")
	}
}

// Env is what a client needs to reach the compositor.
func (s *Sway) Env() []string {
	return []string{"XDG_RUNTIME_DIR=" + s.RuntimeDir, "WAYLAND_DISPLAY=" + s.Display, "SWAYSOCK=" + s.IPC,
		"XDG_SESSION_TYPE=wayland", "XDG_CURRENT_DESKTOP=sway"}
}

// Socket is the absolute path of its Wayland socket.
func (s *Sway) Socket() string { return filepath.Join(s.RuntimeDir, s.Display) }

// Msg runs swaymsg with args against this compositor and returns its output.
func (s *Sway) Msg(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command("swaymsg", append([]string{"-s", s.IPC}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("swaymsg %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// StartSway starts headless sway with config (sway's config syntax; one
// headless output is added) and stops it when the test ends. sway refuses
// to run as root, which CI is: then it runs in a user namespace where root
// is an ordinary uid, so the commands its bindings run are still root's
// outside, as the app under test is.
func StartSway(t testing.TB, config string) *Sway {
	t.Helper()
	Short(t, "a headless sway")
	for _, tool := range []string{"sway", "swaymsg"} {
		if _, err := exec.LookPath(tool); err != nil {
			Require(t, tool, "make deps (apt-get install sway)")
		}
	}
	// A short folder: unix socket paths are limited to 108 bytes.
	dir, err := os.MkdirTemp("", "wksway")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg := filepath.Join(dir, "config")
	if err := os.WriteFile(cfg, []byte("output HEADLESS-1 resolution 1280x800\nxwayland disable\n"+config), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"sway", "-c", cfg}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("unshare"); err != nil {
			Require(t, "unshare", "apt-get install util-linux")
		}
		args = append([]string{"unshare", "--user", "--map-user=1000", "--map-group=1000"}, args...)
	}
	var logBuf Buffer
	cmd := exec.Command(args[0], args[1:]...)
	// Not nested in another compositor, and its own IPC socket (sway takes
	// SWAYSOCK, even empty, as the path to listen on).
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "WAYLAND_DISPLAY=") && !strings.HasPrefix(e, "SWAYSOCK=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "XDG_RUNTIME_DIR="+dir, "WLR_BACKENDS=headless", "WLR_RENDERER=pixman", "WLR_LIBINPUT_NO_DEVICES=1")
	cmd.Stdout, cmd.Stderr = &logBuf, &logBuf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sway: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s := &Sway{RuntimeDir: dir}
	t.Cleanup(func() {
		Terminate(cmd, exited, 5*time.Second)
		if t.Failed() {
			t.Logf("sway log:\n%s", lastLines(logBuf.String(), 40))
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		ipc, _ := filepath.Glob(filepath.Join(dir, "sway-ipc.*.sock"))
		wl, _ := filepath.Glob(filepath.Join(dir, "wayland-[0-9]"))
		if len(wl) == 1 && len(ipc) == 1 {
			s.Display, s.IPC = filepath.Base(wl[0]), ipc[0]
			if exec.Command("swaymsg", "-s", s.IPC, "-t", "get_version").Run() == nil {
				return s
			}
		}
		select {
		case <-exited:
			t.Fatalf("sway exited at start:\n%s", lastLines(logBuf.String(), 40))
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("sway did not open its sockets in %s within 15 s:\n%s", dir, lastLines(logBuf.String(), 40))
	return nil
}

// Keyboard plugs a keyboard into the seat for the rest of the test, as a
// desk has one: headless sway has none, and a window then meets a keyboard
// only when a virtual one appears, too late for its first keys. It is
// wtype's virtual keyboard, idle.
func (s *Sway) Keyboard(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("wtype"); err != nil {
		Require(t, "wtype", "make deps (apt-get install wtype)")
	}
	cmd := exec.Command("wtype", "-s", "1800000") // 30 min; wtype sleeps in µs, which a day overflows
	cmd.Env = append(os.Environ(), s.Env()...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("wtype: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	select {
	case err := <-exited:
		t.Fatalf("the keyboard (wtype) exited at once: %v", err)
	case <-time.After(300 * time.Millisecond): // the seat announces it to its clients
	}
}

// Screenshot is the output as it shows now, taken with grim (the
// screencopy protocol): what the compositor composites, layer surfaces
// included.
func (s *Sway) Screenshot(t testing.TB) *image.RGBA {
	t.Helper()
	if _, err := exec.LookPath("grim"); err != nil {
		Require(t, "grim", "make deps (apt-get install grim)")
	}
	cmd := exec.Command("grim", "-t", "png", "-")
	cmd.Env = append(os.Environ(), s.Env()...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("grim: %v: %s", err, stderr.String())
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("grim's screenshot: %v", err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

// Focused is the id of the node that has the focus in sway's tree (a
// window, or the workspace when none has it).
func (s *Sway) Focused(t testing.TB) int64 {
	t.Helper()
	type node struct {
		ID       int64  `json:"id"`
		Focused  bool   `json:"focused"`
		Nodes    []node `json:"nodes"`
		Floating []node `json:"floating_nodes"`
	}
	var root node
	if err := json.Unmarshal([]byte(s.Msg(t, "-t", "get_tree")), &root); err != nil {
		t.Fatalf("sway's tree: %v", err)
	}
	var find func(n node) int64
	find = func(n node) int64 {
		if n.Focused {
			return n.ID
		}
		for _, c := range append(n.Nodes, n.Floating...) {
			if id := find(c); id != 0 {
				return id
			}
		}
		return 0
	}
	return find(root)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
