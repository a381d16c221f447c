//go:build linux

package tray_test

import (
	"context"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.design/x/clipboard"

	"github.com/whisperkey/whisperkey/internal/history"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/tray"
	"github.com/whisperkey/whisperkey/internal/tray/traytest"
)

// recentItems is the Recent submenu for h, as the desktop builds it.
func recentItems(h *history.History) []tray.Item {
	var items []tray.Item
	for _, e := range h.Entries() {
		items = append(items, tray.Item{ID: e.ID, Label: e.Label()})
	}
	return items
}

// The Recent submenu read over D-Bus lists the dictations; clicking one puts its full
// text on the clipboard, where another program (xclip) reads it.
func TestRecentSubmenuCopiesToClipboard(t *testing.T) {
	conn := sessionBus(t)
	defer conn.Close()
	if os.Getenv("DISPLAY") == "" {
		testenv.Require(t, "an X display (DISPLAY) for the clipboard", "scripts/testenv.sh go test ./internal/tray/")
	}
	if _, err := exec.LookPath("xclip"); err != nil {
		testenv.Require(t, "xclip", "make deps (apt-get install xclip)")
	}
	if err := clipboard.Init(); err != nil {
		t.Fatalf("clipboard: %v", err)
	}

	h, err := history.New(history.Config{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	long := "This dictation is longer than forty characters, so the menu shows only its start."
	for _, s := range []string{"First note.", long, "Ünïcödé is kept: naïve café."} {
		if _, err := h.Add(s, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	tr := tray.New(tray.Config{}, testLogger(t))
	defer tr.Close()
	m0 := menu("base.en", "cpu")
	m0.Recent = recentItems(h)
	tr.SetMenu(m0)
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	m, err := traytest.Find(conn, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	root := layout(t, m)
	if got := root.Labels()[1]; got != "Recent" {
		t.Errorf("second top-level item %q, want Recent (labels %q)", got, root.Labels())
	}
	wantLabels := []string{"Ünïcödé is kept: naïve café.", "This dictation is longer than forty cha…", "First note."}
	if got := find(t, root, "Recent").Labels(); !reflect.DeepEqual(got, wantLabels) {
		t.Fatalf("Recent = %q, want %q", got, wantLabels)
	}

	for _, tt := range []struct{ label, want string }{
		{"This dictation is longer than forty cha…", long},
		{"Ünïcödé is kept: naïve café.", "Ünïcödé is kept: naïve café."},
	} {
		if err := m.Click("Recent", tt.label); err != nil {
			t.Fatal(err)
		}
		a := next(t, tr)
		if a.Kind != tray.CopyRecent {
			t.Fatalf("action %+v, want CopyRecent", a)
		}
		// The desktop's handling of CopyRecent: the full text onto the clipboard. Loops(1)
		// only so the serving goroutine ends after xclip's read, for the leak checks of
		// the tests after this one; the app serves without a limit.
		e, ok := h.Get(a.Value)
		if !ok {
			t.Fatalf("history has no entry %q", a.Value)
		}
		if _, err := clipboard.Write(context.Background(), clipboard.FmtText, []byte(e.Text), clipboard.Loops(1)); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("xclip", "-o", "-selection", "clipboard").Output()
		if err != nil {
			t.Fatalf("xclip -o: %v", err)
		}
		if string(out) != tt.want {
			t.Errorf("clipboard after choosing %q = %q, want %q", tt.label, out, tt.want)
		}
	}

	// A new dictation appears on top; an emptied history hides the submenu.
	if _, err := h.Add("Newest.", time.Now()); err != nil {
		t.Fatal(err)
	}
	m0.Recent = recentItems(h)
	tr.SetMenu(m0)
	if got := find(t, layout(t, m), "Recent").Labels(); len(got) != 4 || got[0] != "Newest." {
		t.Errorf("Recent after a new dictation = %q", got)
	}
	m0.Recent = nil
	tr.SetMenu(m0)
	if got := layout(t, m).Labels(); strings.Contains(strings.Join(got, "|"), "Recent") {
		t.Errorf("empty Recent still shown: %q", got)
	}
}

// The "Start at login" checkbox shows the state it is given and asks for the opposite.
func TestStartAtLoginToggle(t *testing.T) {
	conn := sessionBus(t)
	defer conn.Close()
	tr := tray.New(tray.Config{}, testLogger(t))
	defer tr.Close()
	m0 := menu("tiny", "cpu")
	tr.SetMenu(m0) // not Available: hidden
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	m, err := traytest.Find(conn, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := layout(t, m).Find("Start at login"); err == nil {
		t.Error("Start at login shown while not available")
	}
	for _, on := range []bool{false, true} {
		m0.StartAtLogin = tray.Toggle{Available: true, On: on}
		tr.SetMenu(m0)
		n := find(t, layout(t, m), "Start at login")
		if n.Checked != on {
			t.Errorf("checkbox checked = %v, want %v", n.Checked, on)
		}
		if err := m.Click("Start at login"); err != nil {
			t.Fatal(err)
		}
		want := tray.Action{Kind: tray.ToggleStartAtLogin, Value: map[bool]string{false: "on", true: "off"}[on]}
		if got := next(t, tr); got != want {
			t.Errorf("click with checked=%v: %+v, want %+v", on, got, want)
		}
	}
}
