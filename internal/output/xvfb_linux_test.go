//go:build linux

package output

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain gives this package an X server of its own when Xvfb is installed: go test
// runs packages in parallel, and another package's keystrokes or focus changes on a
// shared display would land in our paste target.
func TestMain(m *testing.M) {
	stop, err := privateXvfb()
	if err != nil {
		fmt.Fprintln(os.Stderr, "no private Xvfb, using DISPLAY:", err)
	}
	code := m.Run()
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
