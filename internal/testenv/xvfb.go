package testenv

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// MainOnPrivateXvfb is a package's TestMain that runs its tests on a
// PrivateXvfb, or on DISPLAY when none starts, and exits with their status.
func MainOnPrivateXvfb(m *testing.M) {
	stop, err := PrivateXvfb()
	if err != nil {
		fmt.Fprintln(os.Stderr, "no private Xvfb, using DISPLAY:", err)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

// PrivateXvfb starts Xvfb on a free display number (autorepeat off, as
// push-to-talk needs) and points DISPLAY at it, for a package's TestMain:
// go test runs packages in parallel, and keystrokes or focus changes from
// another package on a shared display would land in this one's windows.
func PrivateXvfb() (stop func(), err error) {
	stop = func() {}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		return stop, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return stop, err
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-r")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		w.Close()
		return stop, err
	}
	w.Close()
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	num := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		num <- strings.TrimSpace(line)
	}()
	select {
	case n := <-num:
		if n == "" {
			stop()
			return func() {}, errors.New("start Xvfb: it reported no display")
		}
		os.Setenv("DISPLAY", ":"+n)
		// Xvfb names the display before it takes every connection; the
		// package's first test must not find it refusing one.
		if err := waitForDisplay(10 * time.Second); err != nil && !errors.Is(err, exec.ErrNotFound) {
			stop()
			return func() {}, err
		}
		return stop, nil
	case <-time.After(10 * time.Second):
		stop()
		return func() {}, errors.New("start Xvfb: no display within 10s")
	}
}

// RequireX fails the test unless DISPLAY names an X server that answers. A
// display busy with a parallel package's clients, or one just started, may
// refuse a connection, so it is asked again for a few seconds first.
func RequireX(t testing.TB) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		Require(t, "an X display (DISPLAY)", "run the tests through scripts/testenv.sh, which starts Xvfb")
	}
	if err := waitForDisplay(5 * time.Second); errors.Is(err, exec.ErrNotFound) {
		Require(t, "xdpyinfo", "apt-get install x11-utils")
	} else if err != nil {
		t.Fatal(err)
	}
}

// waitForDisplay asks xdpyinfo until DISPLAY answers or limit has passed.
func waitForDisplay(limit time.Duration) error {
	var out []byte
	var err error
	for deadline := time.Now().Add(limit); ; {
		if out, err = exec.Command("xdpyinfo").CombinedOutput(); err == nil {
			return nil
		}
		if errors.Is(err, exec.ErrNotFound) || time.Now().After(deadline) {
			return fmt.Errorf("the X display %s is unreachable: xdpyinfo: %w: %.300s", os.Getenv("DISPLAY"), err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
