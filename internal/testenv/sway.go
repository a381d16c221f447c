package testenv

import (
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
	// Display is the absolute path of its Wayland socket: the value for
	// WAYLAND_DISPLAY, so clients need no XDG_RUNTIME_DIR of its own.
	Display string
	// IPC is its IPC socket, the value for SWAYSOCK.
	IPC string
	log string
}

// Env is what a client needs to reach the compositor.
func (s *Sway) Env() []string {
	return []string{"WAYLAND_DISPLAY=" + s.Display, "SWAYSOCK=" + s.IPC, "XDG_SESSION_TYPE=wayland", "XDG_CURRENT_DESKTOP=sway"}
}

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
	s := &Sway{Display: filepath.Join(dir, "wayland-1")}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("sway log:\n%s", lastLines(logBuf.String(), 40))
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		ipc, _ := filepath.Glob(filepath.Join(dir, "sway-ipc.*.sock"))
		if _, err := os.Stat(s.Display); err == nil && len(ipc) == 1 {
			s.IPC = ipc[0]
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

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
