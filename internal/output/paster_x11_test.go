//go:build linux

package output

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.design/x/clipboard"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

// These tests paste into a real Tk window on an X display (Xvfb in CI).

func requireX(t *testing.T) {
	t.Helper()
	testenv.RequireX(t)
	for _, tool := range []string{"wish", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Require(t, tool, "apt-get install tk xdotool")
		}
	}
}

func logger(t *testing.T) *slog.Logger { return testlog.New(t, slog.LevelDebug) }

func xdotool(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
}

// wish runs a Tk script from testdata and waits for its first line of output.
func wish(t *testing.T, script string, args ...string) (io.WriteCloser, *bufio.Reader, string) {
	t.Helper()
	cmd := exec.Command("wish", append([]string{"testdata/" + script}, args...)...)
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("wish %s: %v", script, err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	out := bufio.NewReader(outPipe)
	line, err := readLine(out)
	if err != nil {
		t.Fatalf("wish %s: %v", script, err)
	}
	return in, out, line
}

func readLine(r *bufio.Reader) (string, error) {
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := r.ReadString('\n')
		ch <- res{strings.TrimSuffix(s, "\n"), err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-time.After(10 * time.Second):
		return "", errors.New("no output within 10s")
	}
}

// target is a focused Tk text widget that reports what was typed or pasted into it.
type target struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
}

func startTarget(t *testing.T) *target {
	in, out, ready := wish(t, "target.tcl")
	win, ok := strings.CutPrefix(ready, "READY ")
	if !ok {
		t.Fatalf("target: %q", ready)
	}
	xdotool(t, "windowfocus", "--sync", win)
	return &target{t: t, in: in, out: out}
}

func (tg *target) contents() string {
	tg.t.Helper()
	io.WriteString(tg.in, "dump\n")
	line, err := readLine(tg.out)
	h, ok := strings.CutPrefix(line, "GOT ")
	if err != nil || !ok {
		tg.t.Fatalf("target dump: %q, %v", line, err)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		tg.t.Fatalf("target dump %q: %v", h, err)
	}
	return string(b)
}

// waitFor polls the widget until it holds want; the target processes the paste on its own time.
func (tg *target) waitFor(want string) {
	tg.t.Helper()
	var got string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got = tg.contents(); got == want {
			return
		}
	}
	tg.t.Fatalf("target holds %q, want %q", got, want)
}

// ownClipboard makes another process own the clipboard with text, as a copy in another app does.
func ownClipboard(t *testing.T, text string) {
	t.Helper()
	if _, _, ready := wish(t, "setclip.tcl", hex.EncodeToString([]byte(text))); ready != "READY" {
		t.Fatalf("setclip: %q", ready)
	}
}

func readClipboard(t *testing.T) (string, bool) {
	t.Helper()
	b, err := clipboard.Read(context.Background(), clipboard.FmtText)
	if errors.Is(err, clipboard.ErrNoData) {
		return "", false
	}
	if err != nil {
		t.Fatalf("read clipboard: %v", err)
	}
	return string(b), true
}

func newPaster(t *testing.T, cfg Config) *Paster {
	t.Helper()
	requireX(t)
	p, err := New(cfg, logger(t))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := p.os.canPaste(); err != nil {
		t.Fatalf("paste unavailable: %v", err)
	}
	return p
}

func TestPasteRestoresClipboard(t *testing.T) {
	p := newPaster(t, Config{})
	const previous = "previous clipboard ✓ — keep me"
	ownClipboard(t, previous)
	tg := startTarget(t)

	res, err := p.Output(context.Background(), " hello from whisperkey", Options{})
	if err != nil {
		t.Fatalf("Output: %v", err)
	}
	if !res.Pasted || !res.Restored || res.PressedEnter || res.Text != "hello from whisperkey" {
		t.Fatalf("result %+v", res)
	}
	tg.waitFor("hello from whisperkey")
	if got, _ := readClipboard(t); got != previous {
		t.Fatalf("clipboard after paste = %q, want the previous %q", got, previous)
	}

	// The next dictation into the same window continues the text.
	if _, err := p.Output(context.Background(), " And more.", Options{}); err != nil {
		t.Fatalf("Output: %v", err)
	}
	tg.waitFor("hello from whisperkey And more.")
	if got, _ := readClipboard(t); got != previous {
		t.Fatalf("clipboard after second paste = %q, want %q", got, previous)
	}
}

func TestEnter(t *testing.T) {
	tests := []struct {
		name string
		mode choice.PasteMode
		opt  Options
	}{
		{name: "paste-enter mode", mode: "paste-enter"},
		{name: "auto-send option", mode: "paste", opt: Options{PressEnter: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPaster(t, Config{Mode: tt.mode})
			ownClipboard(t, "before")
			tg := startTarget(t)
			res, err := p.Output(context.Background(), " send this", tt.opt)
			if err != nil || !res.PressedEnter {
				t.Fatalf("Output = %+v, %v", res, err)
			}
			tg.waitFor("send this\n")
			if got, _ := readClipboard(t); got != "before" {
				t.Fatalf("clipboard = %q, want %q", got, "before")
			}
		})
	}
}

func TestClipboardMode(t *testing.T) {
	p := newPaster(t, Config{Mode: "clipboard"})
	ownClipboard(t, "before")
	tg := startTarget(t)
	res, err := p.Output(context.Background(), " only copied", Options{PressEnter: true})
	if err != nil || res.Pasted || res.PressedEnter || !res.OnClipboard {
		t.Fatalf("Output = %+v, %v", res, err)
	}
	if got, _ := readClipboard(t); got != "only copied" {
		t.Fatalf("clipboard = %q, want the text", got)
	}
	// No keystroke was sent, so there is nothing the target could still be processing.
	if got := tg.contents(); got != "" {
		t.Fatalf("target got %q, want nothing", got)
	}
}

func TestClipboardChangedDuringWait(t *testing.T) {
	p := newPaster(t, Config{})
	ownClipboard(t, "before")
	tg := startTarget(t)
	const other = "copied by another app meanwhile"
	p.afterPaste = func() { ownClipboard(t, other) }
	res, err := p.Output(context.Background(), " dictated", Options{})
	if err != nil {
		t.Fatalf("Output: %v", err)
	}
	if res.Restored || !res.Pasted {
		t.Fatalf("result %+v: restored over another program's copy", res)
	}
	tg.waitFor("dictated")
	if got, _ := readClipboard(t); got != other {
		t.Fatalf("clipboard = %q, want the other program's %q", got, other)
	}
}

func TestWaitsForHeldKeys(t *testing.T) {
	p := newPaster(t, Config{KeyReleaseTimeout: time.Minute})
	ownClipboard(t, "before")
	tg := startTarget(t)
	// The user still holds the hotkey's modifiers: Ctrl+Shift+V would paste nothing into Tk.
	xdotool(t, "keydown", "ctrl+shift")
	t.Cleanup(func() { exec.Command("xdotool", "keyup", "ctrl+shift").Run() })
	waited := false
	p.onKeysHeld = func() {
		waited = true
		xdotool(t, "keyup", "ctrl+shift")
	}
	if _, err := p.Output(context.Background(), " after release", Options{}); err != nil {
		t.Fatalf("Output: %v", err)
	}
	if !waited {
		t.Fatal("Output did not notice the held keys")
	}
	tg.waitFor("after release")
}

func TestLiftsModifiersAfterTimeout(t *testing.T) {
	p := newPaster(t, Config{KeyReleaseTimeout: 100 * time.Millisecond})
	ownClipboard(t, "before")
	tg := startTarget(t)
	xdotool(t, "keydown", "shift")
	t.Cleanup(func() { exec.Command("xdotool", "keyup", "shift").Run() })
	if _, err := p.Output(context.Background(), " despite shift", Options{}); err != nil {
		t.Fatalf("Output: %v", err)
	}
	tg.waitFor("despite shift")
	// Shift is pressed again afterwards: the keyboard state matches the user's hand.
	shift := p.os.x.keycode(0xffe1)
	if down, _ := p.os.keysDown(); !slices.Contains(down, shift) {
		t.Fatalf("shift (keycode %d) not down again after the paste; down: %v", shift, down)
	}
}

func TestEmptyClipboardStaysEmpty(t *testing.T) {
	p := newPaster(t, Config{})
	p.os.x.disownClipboard()
	if got, ok := readClipboard(t); ok {
		t.Fatalf("clipboard not empty before the test: %q", got)
	}
	tg := startTarget(t)
	res, err := p.Output(context.Background(), " into nothing", Options{})
	if err != nil || !res.Restored {
		t.Fatalf("Output = %+v, %v", res, err)
	}
	tg.waitFor("into nothing")
	if got, ok := readClipboard(t); ok {
		t.Fatalf("clipboard = %q, want empty as before", got)
	}
}

func TestRestoresEveryFormat(t *testing.T) {
	p := newPaster(t, Config{})
	var pngBuf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	png.Encode(&pngBuf, img)
	html := clipboard.Register("text/html")
	want := []clipboard.Item{
		{Format: clipboard.FmtText, Bytes: []byte("rich ✓")},
		{Format: clipboard.FmtImage, Bytes: pngBuf.Bytes()},
		{Format: html, Bytes: []byte("<b>rich</b> ✓")},
	}
	ctx := context.Background()
	if _, err := clipboard.WriteAll(ctx, want[0], want[1], want[2]); err != nil {
		t.Fatalf("WriteAll: %v", err)
	}
	tg := startTarget(t)
	if res, err := p.Output(ctx, " plain", Options{}); err != nil || !res.Restored {
		t.Fatalf("Output = %+v, %v", res, err)
	}
	tg.waitFor("plain")
	for _, it := range want {
		got, err := clipboard.Read(ctx, it.Format)
		if err != nil || !bytes.Equal(got, it.Bytes) {
			t.Errorf("format %s after restore: %q, %v; want %q", it.Format.MIME(), got, err, it.Bytes)
		}
	}
}

func TestCloseIdempotent(t *testing.T) {
	p := newPaster(t, Config{})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Output(context.Background(), "x", Options{}); err == nil {
		t.Fatal("Output after Close succeeded")
	}
}

func TestCancelWhileWaitingRestores(t *testing.T) {
	p := newPaster(t, Config{KeyReleaseTimeout: time.Minute})
	ownClipboard(t, "before")
	tg := startTarget(t)
	xdotool(t, "keydown", "ctrl")
	t.Cleanup(func() { exec.Command("xdotool", "keyup", "ctrl").Run() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p.onKeysHeld = cancel
	res, err := p.Output(ctx, " never pasted", Options{})
	if !errors.Is(err, context.Canceled) || res.Pasted || !res.Restored {
		t.Fatalf("Output = %+v, %v; want cancelled, not pasted, restored", res, err)
	}
	if got, _ := readClipboard(t); got != "before" {
		t.Fatalf("clipboard = %q, want %q back", got, "before")
	}
	if got := tg.contents(); got != "" {
		t.Fatalf("target got %q", got)
	}
}

// SetMode changes what the next Output does without a new Paster; an invalid
// mode is refused and changes nothing.
func TestSetMode(t *testing.T) {
	p := newPaster(t, Config{Mode: "paste"})
	ownClipboard(t, "before")
	tg := startTarget(t)
	if err := p.SetMode("clipboard"); err != nil {
		t.Fatalf("SetMode: %v", err)
	}
	res, err := p.Output(context.Background(), " only copied", Options{})
	if err != nil || res.Pasted || !res.OnClipboard {
		t.Fatalf("Output in clipboard mode = %+v, %v", res, err)
	}
	if got := tg.contents(); got != "" {
		t.Fatalf("target got %q in clipboard mode, want nothing", got)
	}
	if err := p.SetMode("shout"); !errors.Is(err, ErrInvalidMode) {
		t.Fatalf("SetMode(shout) = %v, want ErrInvalidMode", err)
	}
	if res, err := p.Output(context.Background(), " still copied", Options{}); err != nil || res.Pasted || !res.OnClipboard {
		t.Fatalf("Output after a refused SetMode = %+v, %v; want clipboard mode kept", res, err)
	}
	if err := p.SetMode("paste"); err != nil {
		t.Fatalf("SetMode: %v", err)
	}
	if res, err := p.Output(context.Background(), " now pasted", Options{}); err != nil || !res.Pasted {
		t.Fatalf("Output in paste mode = %+v, %v", res, err)
	}
	tg.waitFor(" now pasted") // joined to the copied text: same window, within the join window
}

// Undo takes the dictation back out of the real window, keeps the clipboard,
// and refuses, leaving the text as it is, once something was typed after it,
// once another window has the focus, or with nothing left to undo.
func TestUndoInARealWindow(t *testing.T) {
	p := newPaster(t, Config{})
	const previous = "previous clipboard ✓"
	ownClipboard(t, previous)
	tg := startTarget(t)
	ctx := context.Background()

	if _, err := p.Output(ctx, " First words.", Options{}); err != nil {
		t.Fatalf("Output: %v", err)
	}
	if _, err := p.Output(ctx, " Grüße, zweimal.", Options{}); err != nil {
		t.Fatalf("Output: %v", err)
	}
	tg.waitFor("First words. Grüße, zweimal.")
	if err := p.Undo(ctx); err != nil {
		t.Fatalf("Undo: %v", err)
	}
	tg.waitFor("First words.")
	if got, _ := readClipboard(t); got != previous {
		t.Fatalf("clipboard after undo = %q, want %q", got, previous)
	}
	if err := p.Undo(ctx); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("second Undo: %v, want ErrNothingToUndo", err)
	}
	tg.waitFor("First words.")

	// Typed after the paste: the text before the cursor is not the dictation.
	if _, err := p.Output(ctx, " Third.", Options{}); err != nil {
		t.Fatalf("Output: %v", err)
	}
	tg.waitFor("First words. Third.") // joined: the undone one is forgotten
	xdotool(t, "type", "x")
	tg.waitFor("First words. Third.x")
	if err := p.Undo(ctx); !errors.Is(err, ErrTextChanged) {
		t.Fatalf("Undo after typing: %v, want ErrTextChanged", err)
	}
	// The selection was given back: what is typed now lands at the end.
	xdotool(t, "type", "y")
	tg.waitFor("First words. Third.xy")
	if got, _ := readClipboard(t); got != previous {
		t.Fatalf("clipboard after a refused undo = %q, want %q", got, previous)
	}

	// Another window focused.
	if _, err := p.Output(ctx, " Fourth.", Options{}); err != nil {
		t.Fatalf("Output: %v", err)
	}
	tg.waitFor("First words. Third.xy Fourth.")
	other := startTarget(t)
	if err := p.Undo(ctx); !errors.Is(err, ErrFocusMoved) {
		t.Fatalf("Undo in another window: %v, want ErrFocusMoved", err)
	}
	if got := other.contents(); got != "" {
		t.Fatalf("other window holds %q", got)
	}
	tg.waitFor("First words. Third.xy Fourth.")
}

// A modifier still down when Undo starts (a resting finger, a key-up the
// system lost) is lifted, so Shift+Left selects characters, not words, and
// pressed again after.
func TestUndoLiftsAHeldModifier(t *testing.T) {
	p := newPaster(t, Config{KeyReleaseTimeout: 100 * time.Millisecond})
	ownClipboard(t, "before")
	tg := startTarget(t)
	ctx := context.Background()
	if _, err := p.Output(ctx, "Kept words.", Options{}); err != nil {
		t.Fatalf("Output: %v", err)
	}
	if _, err := p.Output(ctx, " Taken back again.", Options{}); err != nil {
		t.Fatalf("Output: %v", err)
	}
	tg.waitFor("Kept words. Taken back again.")
	xdotool(t, "keydown", "ctrl")
	t.Cleanup(func() { _ = exec.Command("xdotool", "keyup", "ctrl").Run() })
	if err := p.Undo(ctx); err != nil {
		t.Fatalf("Undo with Ctrl held: %v", err)
	}
	tg.waitFor("Kept words.")
	ctrl := p.os.x.keycode(0xffe3)
	if down, _ := p.os.keysDown(); !slices.Contains(down, ctrl) {
		t.Fatalf("ctrl (keycode %d) not down again after the undo; down: %v", ctrl, down)
	}
}
