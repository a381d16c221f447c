package output

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// wlChildEnv makes the test binary a Paster in a Wayland session (the
// value is the mode): x/clipboard picks its backend once per process, and
// this package's other tests use X11's.
const wlChildEnv = "WHISPERKEY_OUTPUT_WAYLAND_CHILD"

// wlResult is what the child reports of its Output.
type wlResult struct {
	Result Result
	Err    string
}

// waylandChild pastes the text on stdin's first line into the focused
// window, prints the result as JSON and keeps serving the clipboard (a
// Wayland clipboard lives in its owner) until stdin closes.
func waylandChild() int {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	in := bufio.NewReader(os.Stdin)
	line, _ := in.ReadString('\n')
	text, _ := hex.DecodeString(strings.TrimSpace(line))
	p, err := New(Config{Mode: choice.PasteMode(os.Getenv(wlChildEnv))}, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "New:", err)
		return 1
	}
	defer p.Close()
	res, err := p.Output(context.Background(), string(text), Options{})
	r := wlResult{Result: res}
	if err != nil {
		r.Err = err.Error()
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
	_, _ = io.Copy(io.Discard, in)
	return 0
}

// wlTarget is a native Wayland GTK window (testdata/wltarget.py).
type wlTargetWindow struct {
	in  io.WriteCloser
	out *bufio.Scanner
}

func openWaylandTarget(t *testing.T, env []string) *wlTargetWindow {
	t.Helper()
	in, out := testenv.WaylandTarget(t, env)
	return &wlTargetWindow{in: in, out: out}
}

func (w *wlTargetWindow) ask(t *testing.T, cmd string) string {
	t.Helper()
	fmt.Fprintln(w.in, cmd)
	if !w.out.Scan() {
		t.Fatal("Wayland target closed")
	}
	return w.out.Text()
}

func (w *wlTargetWindow) text(t *testing.T) string {
	b, err := hex.DecodeString(strings.TrimPrefix(w.ask(t, "dump"), "GOT "))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wlPaste reads the Wayland clipboard with wl-paste; ok is false when it
// is empty.
func wlPaste(t *testing.T, env []string) (string, bool) {
	t.Helper()
	cmd := exec.Command("wl-paste", "--no-newline")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	return string(out), true
}

// wlCopy puts text on the Wayland clipboard as another program (wl-copy
// serves it from the background until replaced); "" empties it.
func wlCopy(t *testing.T, env []string, text string) {
	t.Helper()
	args := []string{text}
	if text == "" {
		args = []string{"--clear"}
	}
	cmd := exec.Command("wl-copy", args...)
	cmd.Env = append(os.Environ(), env...)
	// No pipes: the server wl-copy leaves behind would hold them open.
	if err := cmd.Run(); err != nil {
		t.Fatalf("wl-copy %q: %v", text, err)
	}
}

// A dictation into a native Wayland window: the text arrives through the
// Wayland clipboard and wtype's Ctrl+V (or typed), and the clipboard is the
// user's again afterwards; a missing wtype is said, never a silent no-op.
func TestWaylandPaste(t *testing.T) {
	testenv.RequireWaylandTarget(t, true)
	sway := testenv.StartSway(t, "")
	sway.Keyboard(t)
	env := sway.Env()
	tg := openWaylandTarget(t, env)
	const text = "Wayland dictation, café ✓"
	tests := []struct {
		name, mode string
		before     string // the clipboard before; "" empty
		withX      bool   // an X display beside (XWayland's place): the Wayland window still wins
		noFocus    bool   // a compositor that cannot be asked for the focus (not sway or Hyprland)
		noWtype    bool
		wantText   bool
		wantErr    string
		wantClip   string // after; "" means what it was before
	}{
		{name: "paste, clipboard restored", mode: "paste", before: "what was copied ✓", wantText: true},
		{name: "paste with an X display beside", mode: "paste", before: "copied", withX: true, wantText: true},
		{name: "compositor that cannot tell the focus, no X window focused", mode: "paste", before: "copied", withX: true,
			noFocus: true, wantText: true},
		{name: "empty clipboard stays empty", mode: "paste", wantText: true},
		{name: "type", mode: "type", before: "kept", wantText: true},
		{name: "paste needs no wtype", mode: "paste", before: "copied", noWtype: true, wantText: true},
		{name: "type without wtype: said, text left on the clipboard", mode: "type", before: "copied", noWtype: true,
			wantErr: "apt install wtype", wantClip: text},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tg.ask(t, "clear"); got != "CLEARED" {
				t.Fatalf("clear: %q", got)
			}
			wlCopy(t, env, tt.before)
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), append(env, wlChildEnv+"="+tt.mode)...)
			if !tt.withX {
				cmd.Env = append(cmd.Env, "DISPLAY=")
			}
			if tt.noFocus {
				cmd.Env = append(cmd.Env, "SWAYSOCK=")
			}
			if tt.noWtype {
				// Only wl-clipboard's folder: the other tools are gone.
				dir := t.TempDir()
				for _, tool := range []string{"wl-copy", "wl-paste", "swaymsg"} {
					p, _ := exec.LookPath(tool)
					if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
						t.Fatal(err)
					}
				}
				cmd.Env = append(cmd.Env, "PATH="+dir)
			}
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			var stderr testenv.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				in.Close()
				_ = cmd.Wait()
				if t.Failed() {
					t.Logf("child log:\n%s", stderr.String())
				}
			}()
			fmt.Fprintln(in, hex.EncodeToString([]byte(text)))
			kill := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
			defer kill.Stop()
			var r wlResult
			if err := json.NewDecoder(out).Decode(&r); err != nil {
				t.Fatalf("child result: %v", err)
			}
			t.Logf("result %+v", r)
			if tt.wantErr != "" {
				if !strings.Contains(r.Err, tt.wantErr) || !strings.Contains(r.Err, "the text is on the clipboard") {
					t.Fatalf("error %q, want one naming %q and where the text is", r.Err, tt.wantErr)
				}
			} else if r.Err != "" {
				t.Fatalf("Output: %s", r.Err)
			}
			var got string
			wait := 5 * time.Second
			if !tt.wantText {
				wait = 1500 * time.Millisecond // nothing may arrive: a keystroke takes milliseconds
			}
			for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if got = tg.text(t); got != "" {
					break
				}
			}
			switch {
			case tt.wantText && got != text:
				t.Fatalf("target holds %q, want %q", got, text)
			case !tt.wantText && got != "":
				t.Fatalf("target holds %q, want nothing", got)
			}
			clip, ok := wlPaste(t, env)
			want := tt.before
			if tt.wantClip != "" {
				want = tt.wantClip
			}
			switch {
			case want == "" && ok:
				t.Fatalf("clipboard holds %q, want it empty as before", clip)
			case want != "" && clip != want:
				t.Fatalf("clipboard holds %q (present %v), want %q", clip, ok, want)
			}
			if tt.mode == "paste" && tt.wantErr == "" && (!r.Result.Pasted || !r.Result.Restored) {
				t.Errorf("result %+v: want pasted and restored", r.Result)
			}
			if tt.mode == "type" && tt.wantErr == "" && !r.Result.Typed {
				t.Errorf("result %+v: want typed", r.Result)
			}
		})
	}
}

// The focused window as sway's tree tells it (a tree recorded from the
// headless sway with the GTK target focused, trimmed).
func TestSwayFocused(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "sway-tree.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, ok := swayFocused(b)
	if !ok || w.appID != "whisperkey-wl-target" || w.xwayland || w.pid == 0 || w.id == 0 {
		t.Fatalf("swayFocused = %+v, %v; want the GTK target, native", w, ok)
	}
	if _, ok := swayFocused([]byte(`{"id":1,"nodes":[{"id":4,"focused":true,"name":"1","type":"workspace"}]}`)); ok {
		t.Error("an empty focused workspace taken for a window")
	}
	x, ok := swayFocused([]byte(`{"id":1,"nodes":[{"id":9,"focused":true,"name":"xterm","shell":"xwayland","app_id":null,"window_properties":{"class":"XTerm"},"pid":7}]}`))
	if !ok || !x.xwayland || x.appID != "XTerm" {
		t.Errorf("XWayland window = %+v, %v", x, ok)
	}
}

func TestHyprFocused(t *testing.T) {
	w, ok := hyprFocused([]byte(`{"address":"0x55d1c2a0","class":"foot","title":"~","pid":42,"xwayland":false}`))
	if !ok || w.id != 0x55d1c2a0 || w.appID != "foot" || w.xwayland {
		t.Fatalf("hyprFocused = %+v, %v", w, ok)
	}
	if _, ok := hyprFocused([]byte(`{}`)); ok {
		t.Error("no active window taken for one")
	}
}

// Every key WhisperKey presses has a key of its own in the virtual
// keyboard's keymap, at the keycode a US keyboard gives it.
func TestVirtualKeys(t *testing.T) {
	for ks, name := range wlKeysyms {
		k, ok := vkKeys[name]
		if !ok {
			t.Errorf("keysym %#x (%s) has no virtual key", ks, name)
			continue
		}
		if !strings.Contains(vkKeymap, fmt.Sprintf("= %d;", k.code+8)) {
			t.Errorf("%s: keycode %d is not in the keymap", name, k.code+8)
		}
	}
}

// What the user is told when keystrokes cannot reach Wayland windows.
func TestKeyRouteErr(t *testing.T) {
	vk := []string{"wl_seat", "zwp_virtual_keyboard_manager_v1"}
	tests := []struct {
		name      string
		globals   []string
		probe     error
		wantWords []string // nil: no error
	}{
		{"ready", vk, nil, nil},
		{"GNOME", []string{"wl_seat"}, nil, []string{"no virtual-keyboard protocol", "GNOME"}},
		{"compositor silent", nil, errors.New("connection refused"), []string{"cannot ask the Wayland compositor", "connection refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := keyRouteErr(tt.globals, tt.probe)
			if tt.wantWords == nil {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantWords {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}
