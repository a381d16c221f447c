//go:build linux && cgo

package grab

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain gives the tests an X server of their own when Xvfb is installed: go test
// runs packages in parallel, and another package's keystrokes on a shared display would
// reach our grabs. Without Xvfb the tests use DISPLAY, and without that they stop in
// needDisplay.
func TestMain(m *testing.M) {
	stop := func() {}
	if os.Getenv("GRAB_HELPER") == "" { // the helper process must share its parent's display
		var err error
		if stop, err = privateXvfb(); err != nil {
			fmt.Fprintln(os.Stderr, "no private Xvfb, using DISPLAY:", err)
		}
	}
	code := 0
	if code = m.Run(); code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	stop()
	os.Exit(code)
}

// privateXvfb starts Xvfb on a free display number (autorepeat off) and points DISPLAY at it.
func privateXvfb() (stop func(), err error) {
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
		cmd.Process.Kill()
		cmd.Wait()
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
			return func() {}, fmt.Errorf("Xvfb did not report a display")
		}
		os.Setenv("DISPLAY", ":"+n)
		return stop, nil
	case <-time.After(10 * time.Second):
		stop()
		return func() {}, fmt.Errorf("Xvfb did not start within 10s")
	}
}
