//go:build linux

// These tests drive the real systray over a session D-Bus, as a tray host
// does. Run them without -race: the detector can report a race inside
// fyne.io/systray v1.12.2 itself (GetLayout's delayed refresh writes the
// menu revision under another lock than GetLayout reads it with).

package tray_test

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/tray"
	"github.com/whisperkey/whisperkey/internal/tray/traytest"
)

func testLogger(t *testing.T) *slog.Logger {
	return testlog.New(t, slog.LevelDebug)
}

// sessionBus connects the test's own (private) connection, as a tray host would.
func sessionBus(t *testing.T) *dbus.Conn {
	t.Helper()
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		testenv.Require(t, "a D-Bus session bus (DBUS_SESSION_BUS_ADDRESS)",
			"scripts/testenv.sh go test ./internal/tray/, or dbus-run-session -- go test ./internal/tray/")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connect session bus: %v", err)
	}
	return conn
}

func menu(model, device string) tray.Menu {
	check := func(items []tray.Item, id string) []tray.Item {
		for i := range items {
			items[i].Checked = items[i].ID == id
		}
		return items
	}
	return tray.Menu{
		Models: check([]tray.Item{
			{ID: "tiny", Label: "tiny"},
			{ID: "base.en", Label: "base.en"},
			{ID: "small", Label: "small (464 MB)"},
		}, model),
		Devices: check([]tray.Item{
			{ID: "auto", Label: "Auto"},
			{ID: "cuda:0", Label: "NVIDIA GeForce RTX 3060"},
			{ID: "cpu", Label: "CPU"},
		}, device),
		ComputeTypes: []tray.Item{{ID: "int8", Label: "int8", Checked: true}, {ID: "float32", Label: "float32"}},
		Languages:    []tray.Item{{ID: "auto", Label: "Detect", Checked: true}, {ID: "en", Label: "English"}},
		InputDevices: []tray.Item{{ID: "", Label: "System default", Checked: true}},
		PasteModes:   []tray.Item{{ID: "paste", Label: "Paste", Checked: true}, {ID: "clipboard", Label: "Copy to clipboard only"}},
	}
}

func next(t *testing.T, tr *tray.Tray) tray.Action {
	t.Helper()
	select {
	case a := <-tr.Actions():
		return a
	case <-time.After(5 * time.Second):
		t.Fatal("no action from the tray")
		return tray.Action{}
	}
}

func layout(t *testing.T, m *traytest.Menu) traytest.Node {
	t.Helper()
	root, err := m.Layout()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func find(t *testing.T, root traytest.Node, path ...string) traytest.Node {
	t.Helper()
	n, err := root.Find(path...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func checked(n traytest.Node) []string {
	var out []string
	for _, c := range n.Shown() {
		if c.Checked {
			out = append(out, c.Label)
		}
	}
	return out
}

func TestTrayOverDBus(t *testing.T) {
	conn := sessionBus(t)
	defer goleak.VerifyNone(t)
	defer conn.Close()

	tr := tray.New(tray.Config{Title: "WhisperKey"}, testLogger(t))
	defer tr.Close()
	tr.SetMenu(menu("base.en", "auto"))
	tr.SetState(tray.StateIdle, "Model base.en · CPU int8 · ready")
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	m, err := traytest.Find(conn, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}

	t.Run("layout", func(t *testing.T) {
		root := layout(t, m)
		want := []string{"Model base.en · CPU int8 · ready", "Model", "Device", "Compute type", "Language",
			"Input device", "Paste mode", "Paste last dictation again", "Open config file", "Settings help: vocabulary, replacements…", "GPU setup guide", "Open log", "Quit"}
		if got := root.Labels(); !reflect.DeepEqual(got, want) {
			t.Fatalf("top level = %q\nwant %q", got, want)
		}
		if root.Shown()[0].Enabled {
			t.Error("status line is clickable; want it disabled")
		}
		tests := []struct {
			name        string
			path        string
			wantLabels  []string
			wantChecked []string
		}{
			{name: "models", path: "Model", wantLabels: []string{"tiny", "base.en", "small (464 MB)"}, wantChecked: []string{"base.en"}},
			{name: "devices", path: "Device", wantLabels: []string{"Auto", "NVIDIA GeForce RTX 3060", "CPU"}, wantChecked: []string{"Auto"}},
			{name: "paste modes", path: "Paste mode", wantLabels: []string{"Paste", "Copy to clipboard only"}, wantChecked: []string{"Paste"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				n := find(t, root, tt.path)
				if got := n.Labels(); !reflect.DeepEqual(got, tt.wantLabels) {
					t.Errorf("labels = %q, want %q", got, tt.wantLabels)
				}
				if got := checked(n); !reflect.DeepEqual(got, tt.wantChecked) {
					t.Errorf("checked = %q, want %q", got, tt.wantChecked)
				}
			})
		}
		if s, err := m.Status(); err != nil || s != "Model base.en · CPU int8 · ready" {
			t.Errorf("Status() = %q, %v", s, err)
		}
	})

	t.Run("clicks", func(t *testing.T) {
		tests := []struct {
			name string
			path []string
			want tray.Action
		}{
			{name: "device cpu", path: []string{"Device", "CPU"}, want: tray.Action{Kind: tray.SelectDevice, Value: "cpu"}},
			{name: "model small", path: []string{"Model", "small"}, want: tray.Action{Kind: tray.SelectModel, Value: "small"}},
			{name: "language", path: []string{"Language", "English"}, want: tray.Action{Kind: tray.SelectLanguage, Value: "en"}},
			{name: "open config", path: []string{"Open config file"}, want: tray.Action{Kind: tray.OpenConfig}},
			{name: "settings help", path: []string{"Settings help: vocabulary, replacements…"}, want: tray.Action{Kind: tray.OpenConfigHelp}},
			{name: "guide", path: []string{"GPU setup guide"}, want: tray.Action{Kind: tray.OpenGuide}},
			{name: "quit", path: []string{"Quit"}, want: tray.Action{Kind: tray.Quit}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if err := m.Click(tt.path...); err != nil {
					t.Fatal(err)
				}
				if got := next(t, tr); got != tt.want {
					t.Errorf("action = %+v, want %+v", got, tt.want)
				}
			})
		}
		if err := m.Click("Model base.en · CPU int8 · ready"); err == nil {
			t.Error("clicking the status line worked; want it disabled")
		}
	})

	t.Run("checkmark moves", func(t *testing.T) {
		tr.SetMenu(menu("small", "cpu"))
		root := layout(t, m)
		if got := checked(find(t, root, "Model")); !reflect.DeepEqual(got, []string{"small (464 MB)"}) {
			t.Errorf("checked models = %q, want small", got)
		}
		if got := checked(find(t, root, "Device")); !reflect.DeepEqual(got, []string{"CPU"}) {
			t.Errorf("checked devices = %q, want CPU", got)
		}
	})

	t.Run("download progress label", func(t *testing.T) {
		label := "small — 42/480 MB · 12 MB/s · ETA 30s"
		tr.SetItemLabel(tray.SelectModel, "small", label)
		got := find(t, layout(t, m), "Model").Labels()
		if want := []string{"tiny", "base.en", label}; !reflect.DeepEqual(got, want) {
			t.Errorf("models = %q, want %q", got, want)
		}
		if err := m.Click("Model", label); err != nil {
			t.Fatal(err)
		}
		if got := next(t, tr); got != (tray.Action{Kind: tray.SelectModel, Value: "small"}) {
			t.Errorf("action = %+v", got)
		}
	})

	t.Run("lists grow and shrink", func(t *testing.T) {
		mm := menu("base.en", "cpu")
		mm.Devices = append(mm.Devices, tray.Item{ID: "rocm:0", Label: "AMD Radeon RX 5700 XT (RDNA 1)"})
		mm.Languages = nil
		tr.SetMenu(mm)
		root := layout(t, m)
		if got := find(t, root, "Device").Labels(); len(got) != 4 || got[3] != "AMD Radeon RX 5700 XT (RDNA 1)" {
			t.Errorf("devices = %q, want the AMD card appended", got)
		}
		if _, err := root.Find("Language"); err == nil {
			t.Error("empty Language submenu is shown; want it hidden")
		}
		if err := m.Click("Device", "AMD Radeon RX 5700 XT (RDNA 1)"); err != nil {
			t.Fatal(err)
		}
		if got := next(t, tr); got != (tray.Action{Kind: tray.SelectDevice, Value: "rocm:0"}) {
			t.Errorf("action = %+v", got)
		}

		mm.Devices = mm.Devices[:1]
		mm.Languages = []tray.Item{{ID: "de", Label: "German", Checked: true}}
		tr.SetMenu(mm)
		root = layout(t, m)
		if got := find(t, root, "Device").Labels(); !reflect.DeepEqual(got, []string{"Auto"}) {
			t.Errorf("devices = %q, want only Auto", got)
		}
		if got := checked(find(t, root, "Language")); !reflect.DeepEqual(got, []string{"German"}) {
			t.Errorf("languages checked = %q, want German", got)
		}
	})

	t.Run("disabled and hidden items send nothing", func(t *testing.T) {
		mm := menu("base.en", "cpu")
		mm.Models[2] = tray.Item{ID: "medium", Label: "medium (1.5 GB)", Disabled: true}
		tr.SetMenu(mm)
		root := layout(t, m)
		medium := find(t, root, "Model", "medium")
		if medium.Enabled {
			t.Fatal("disabled model is enabled over D-Bus")
		}
		hiddenDevice := find(t, root, "Device").Children[2] // shown as "CPU"
		mm.Devices = mm.Devices[:2]
		tr.SetMenu(mm)
		if err := m.ClickID(hiddenDevice.ID); err != nil {
			t.Fatal(err)
		}
		if err := m.ClickID(medium.ID); err != nil {
			t.Fatal(err)
		}
		// The same slot, now enabled under another ID: its goroutine handles
		// clicks in order, so a wrongly sent "medium" would arrive first.
		mm.Models[2] = tray.Item{ID: "medium.en", Label: "medium.en"}
		tr.SetMenu(mm)
		if err := m.ClickID(medium.ID); err != nil {
			t.Fatal(err)
		}
		if got := next(t, tr); got != (tray.Action{Kind: tray.SelectModel, Value: "medium.en"}) {
			t.Errorf("action = %+v, want SelectModel medium.en", got)
		}
	})

	// The config lines sit under the status line, before the submenus, and
	// open the config file; the Language menu ends in its More languages
	// submenu however its top grows.
	t.Run("config lines and more languages", func(t *testing.T) {
		mm := menu("base.en", "cpu")
		mm.ConfigLines = []tray.Item{{Label: `config.yaml:3: unknown key "audio.pre_rol" is ignored; did you mean "audio.pre_roll"?`}}
		mm.Languages = []tray.Item{{ID: "auto", Label: "Detect automatically"}, {ID: "de", Label: "German (de)", Checked: true}}
		mm.MoreLanguages = []tray.Item{{ID: "af", Label: "Afrikaans (af)"}, {ID: "sq", Label: "Albanian (sq)"}}
		tr.SetMenu(mm)
		root := layout(t, m)
		if got := root.Labels(); len(got) < 3 || got[1] != mm.ConfigLines[0].Label || got[2] != "Model" {
			t.Errorf("top level = %q, want the config line second, before Model", got)
		}
		want := []string{"Detect automatically", "German (de)", "More languages"}
		if got := find(t, root, "Language").Labels(); !reflect.DeepEqual(got, want) {
			t.Errorf("Language = %q, want %q", got, want)
		}
		mm.Languages = append(mm.Languages, tray.Item{ID: "en", Label: "English (en)"})
		tr.SetMenu(mm)
		root = layout(t, m)
		want = []string{"Detect automatically", "German (de)", "English (en)", "More languages"}
		if got := find(t, root, "Language").Labels(); !reflect.DeepEqual(got, want) {
			t.Errorf("Language after it grew = %q, want %q", got, want)
		}
		if got := find(t, root, "Language", "More languages").Labels(); !reflect.DeepEqual(got, []string{"Afrikaans (af)", "Albanian (sq)"}) {
			t.Errorf("More languages = %q", got)
		}
		for _, c := range []struct {
			path []string
			want tray.Action
		}{
			{[]string{mm.ConfigLines[0].Label}, tray.Action{Kind: tray.OpenConfig}},
			{[]string{"Language", "More languages", "Albanian (sq)"}, tray.Action{Kind: tray.SelectLanguage, Value: "sq"}},
			{[]string{"Language", "English (en)"}, tray.Action{Kind: tray.SelectLanguage, Value: "en"}},
		} {
			if err := m.Click(c.path...); err != nil {
				t.Fatal(err)
			}
			if got := next(t, tr); got != c.want {
				t.Errorf("click %q: action = %+v, want %+v", c.path, got, c.want)
			}
		}
		mm.ConfigLines, mm.MoreLanguages = nil, nil
		tr.SetMenu(mm)
		root = layout(t, m)
		if got := root.Labels(); got[1] != "Model" {
			t.Errorf("top level after the fix = %q, want no config line", got)
		}
		if _, err := root.Find("Language", "More languages"); err == nil {
			t.Error("an empty More languages submenu is shown")
		}
	})

	t.Run("state sets icon, title and tooltip", func(t *testing.T) {
		idle, err := m.Icon()
		if err != nil {
			t.Fatal(err)
		}
		if len(idle) != 1 || idle[0].W != 64 || idle[0].H != 64 || len(idle[0].ARGB) != 64*64*4 {
			t.Fatalf("idle IconPixmap = %d entries, want one 64x64", len(idle))
		}
		tr.SetState(tray.StateRecording, "Recording…")
		rec, err := m.Icon()
		if err != nil {
			t.Fatal(err)
		}
		if len(rec) != 1 || bytes.Equal(rec[0].ARGB, idle[0].ARGB) {
			t.Error("IconPixmap did not change from idle to recording")
		}
		if tip, err := m.ToolTip(); err != nil || tip != "WhisperKey: Recording…" {
			t.Errorf("ToolTip = %q, %v", tip, err)
		}
		if title, err := m.Title(); err != nil || title != "WhisperKey" {
			t.Errorf("Title = %q, %v", title, err)
		}
		if s, err := m.Status(); err != nil || s != "Recording…" {
			t.Errorf("Status = %q, %v", s, err)
		}
		tr.SetState("bogus", "")
		if again, _ := m.Icon(); len(again) != 1 || !bytes.Equal(again[0].ARGB, rec[0].ARGB) {
			t.Error("an unknown state changed the icon")
		}
	})

	tr.Close()
	tr.Close()                    // idempotent
	for a := range tr.Actions() { // also catches a click on the hidden item
		t.Errorf("unexpected action %+v", a)
	}
	waitGone(t, conn)
	tr.SetState(tray.StateError, "after close") // no-op, no panic
}

// A second Tray in the same process starts from an empty menu.
func TestTrayRestart(t *testing.T) {
	conn := sessionBus(t)
	defer goleak.VerifyNone(t)
	defer conn.Close()
	for i, model := range []string{"tiny", "small"} {
		tr := tray.New(tray.Config{}, testLogger(t))
		tr.SetMenu(menu(model, "cpu"))
		tr.SetState(tray.StateLoading, "Downloading "+model)
		if err := tr.Start(); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if err := tray.New(tray.Config{}, testLogger(t)).Start(); err == nil {
			t.Errorf("run %d: a second concurrent tray started", i)
		}
		m, err := traytest.Find(conn, os.Getpid())
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		root := layout(t, m)
		if got := len(root.Shown()); got != 13 {
			t.Errorf("run %d: %d top-level items, want 13: %q", i, got, root.Labels())
		}
		if got := checked(find(t, root, "Model")); len(got) != 1 || got[0] != map[string]string{"tiny": "tiny", "small": "small (464 MB)"}[model] {
			t.Errorf("run %d: checked model = %q", i, got)
		}
		tr.Close()
		waitGone(t, conn)
	}
}

// waitGone waits for the bus to drop the tray's name: the daemon notices
// the closed connection asynchronously.
func waitGone(t *testing.T, conn *dbus.Conn) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err := traytest.Find(conn, os.Getpid())
		if errors.Is(err, traytest.ErrNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tray item still on the bus after Close (%v)", err)
		}
	}
}

func TestCloseWithoutStart(t *testing.T) {
	defer goleak.VerifyNone(t)
	tr := tray.New(tray.Config{}, testLogger(t))
	tr.SetMenu(menu("tiny", "cpu"))
	tr.Close()
	if err := tr.Start(); err == nil {
		t.Error("Start after Close succeeded")
	}
	if _, open := <-tr.Actions(); open {
		t.Error("Actions open after Close")
	}
}

func TestStartWithoutBus(t *testing.T) {
	defer goleak.VerifyNone(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+t.TempDir()+"/no-bus")
	tr := tray.New(tray.Config{}, testLogger(t))
	err := tr.Start()
	if !errors.Is(err, tray.ErrNoSessionBus) {
		t.Fatalf("Start() = %v, want ErrNoSessionBus", err)
	}
	t.Log(err)
	tr.SetState(tray.StateError, "no bus") // the Tray is closed: no-op
	tr.Close()
	if _, open := <-tr.Actions(); open {
		t.Error("Actions open after a failed Start and Close")
	}
}
