//go:build linux

package output

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Focused tells the window a dictation would go to: its WM_CLASS, title and
// program, which choose the dictation's profile.
func TestFocusedDescribesTheWindow(t *testing.T) {
	p := newPaster(t, Config{})
	_, _, ready := wish(t, "target.tcl", "-name", "wkprofile")
	win, ok := strings.CutPrefix(ready, "READY ")
	if !ok {
		t.Fatalf("target: %q", ready)
	}
	// Tk sets no _NET_WM_PID (GTK and Qt do): give it this process's.
	if out, err := exec.Command("xprop", "-id", win, "-f", "_NET_WM_PID", "32c", "-set", "_NET_WM_PID", strconv.Itoa(os.Getpid())).CombinedOutput(); err != nil {
		t.Fatalf("xprop: %v %s", err, out)
	}
	xdotool(t, "windowfocus", "--sync", win)
	w, err := p.Focused()
	if err != nil {
		t.Fatal(err)
	}
	if w.Class != "Wkprofile" || w.Instance != "wkprofile" || w.Title != "whisperkey-paste-target" || w.Exe != filepath.Base(os.Args[0]) {
		t.Errorf("Focused() = %+v; want class Wkprofile, instance wkprofile, the target's title and exe %s", w, filepath.Base(os.Args[0]))
	}

	// A per-call mode: typed although the Paster pastes.
	tg := startTarget(t)
	if _, err := p.Output(context.Background(), "typed here", Options{Mode: "type"}); err != nil {
		t.Fatal(err)
	}
	tg.waitFor("typed here")
	if _, err := p.Output(context.Background(), "x", Options{Mode: "shout"}); err == nil {
		t.Error("an unknown per-call mode was accepted")
	}
}
