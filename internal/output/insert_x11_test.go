//go:build linux && cgo

package output

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// lazyTarget focuses a Tk window that ignores the paste keystroke and reads the
// clipboard only when asked to.
func lazyTarget(t *testing.T) (read func() string) {
	read, _ = lazyTargetWidget(t)
	return read
}

// lazyTargetWidget is lazyTarget that also shows what the keyboard typed into it.
func lazyTargetWidget(t *testing.T) (read func() string, tg *target) {
	in, out, ready := wish(t, "lazy.tcl")
	win, ok := strings.CutPrefix(ready, "READY ")
	if !ok {
		t.Fatalf("lazy target: %q", ready)
	}
	xdotool(t, "windowfocus", "--sync", win)
	return func() string {
		t.Helper()
		io.WriteString(in, "read\n")
		line, err := readLine(out)
		h, ok := strings.CutPrefix(line, "CLIP ")
		if err != nil || !ok {
			t.Fatalf("lazy target: %q, %v", line, err)
		}
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}, &target{t: t, in: in, out: out}
}

type outcome struct {
	res Result
	err error
}

func outputAsync(p *Paster, text string, opt Options) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		res, err := p.Output(context.Background(), text, opt)
		ch <- outcome{res, err}
	}()
	return ch
}

// afterRead has the target read the clipboard, which must hold text, and
// returns what Output did within limit of that read.
func afterRead(t *testing.T, read func() string, text string, done <-chan outcome, limit time.Duration) outcome {
	t.Helper()
	if got := read(); got != text {
		t.Fatalf("the target read %q, want %q", got, text)
	}
	select {
	case o := <-done:
		return o
	case <-time.After(limit):
		t.Fatal("Output did not return after the target read the clipboard")
		return outcome{}
	}
}

// The previous clipboard comes back only after the target asked for the text, however
// late: well past the old fixed 500ms bet.
func TestRestoresOnlyAfterTargetRead(t *testing.T) {
	p := newPaster(t, Config{ReadTimeout: 5 * time.Second})
	const previous = "previous clipboard — keep me"
	ownClipboard(t, previous)
	read := lazyTarget(t)
	const text = "Dictated text, read late."

	done := outputAsync(p, text, Options{})
	time.Sleep(1500 * time.Millisecond)
	select {
	case o := <-done:
		t.Fatalf("Output returned before the target read the clipboard: %+v, %v", o.res, o.err)
	default:
	}
	// Another program reading (a clipboard manager) is not the target.
	if out, err := exec.Command("xclip", "-o", "-selection", "clipboard").Output(); err != nil || string(out) != text {
		t.Fatalf("xclip read %q, %v; want our text while we wait", out, err)
	}
	select {
	case o := <-done:
		t.Fatalf("a read by another program ended the wait: %+v, %v", o.res, o.err)
	case <-time.After(300 * time.Millisecond):
	}
	readAt := time.Now()
	o := afterRead(t, read, text, done, 3*time.Second)
	if o.err != nil || !o.res.Verified || !o.res.Restored || o.res.OnClipboard {
		t.Fatalf("result %+v, %v; want verified and restored", o.res, o.err)
	}
	t.Logf("restored %v after the target's read", time.Since(readAt))
	if got, _ := readClipboard(t); got != previous {
		t.Errorf("clipboard after the read = %q, want the previous %q", got, previous)
	}
}

// Enter waits until the target fetched the text: pressed before, it would send an
// empty message or run a terminal line without the text.
func TestEnterWaitsForTheRead(t *testing.T) {
	p := newPaster(t, Config{ReadTimeout: 10 * time.Second})
	ownClipboard(t, "previous")
	read, tg := lazyTargetWidget(t)
	const text = "Send this, then Enter."
	done := outputAsync(p, text, Options{PressEnter: true})
	time.Sleep(1500 * time.Millisecond)
	if got := tg.contents(); got != "" {
		t.Fatalf("the target got %q before it read the text; want no Enter yet", got)
	}
	o := afterRead(t, read, text, done, 15*time.Second)
	if o.err != nil || !o.res.PressedEnter || !o.res.Verified {
		t.Fatalf("result %+v, %v; want Enter pressed after the read", o.res, o.err)
	}
	tg.waitForWithin("\n", time.Minute)
}

// A target that never reads: the user is told (ErrNotRead) and the text stays on the clipboard.
func TestTargetNeverReadsLeavesText(t *testing.T) {
	p := newPaster(t, Config{ReadTimeout: 700 * time.Millisecond})
	ownClipboard(t, "previous")
	lazyTarget(t)
	const text = "Nobody took this text."
	start := time.Now()
	res, err := p.Output(context.Background(), text, Options{})
	if !errors.Is(err, ErrNotRead) {
		t.Fatalf("Output = %+v, %v; want ErrNotRead", res, err)
	}
	if waited := time.Since(start); waited < 700*time.Millisecond || waited > 3*time.Second {
		t.Errorf("gave up after %v, want the 700ms read timeout", waited)
	}
	if !res.Pasted || res.Verified || res.Restored || !res.OnClipboard {
		t.Errorf("result %+v; want pasted, not verified, not restored, on the clipboard", res)
	}
	if got, ok := readClipboard(t); !ok || got != text {
		t.Errorf("clipboard = %q (%v), want the dictated text", got, ok)
	}
}

// A dictation into xterm lands through its own paste key (Shift+Insert, which reads PRIMARY).
func TestPasteIntoXterm(t *testing.T) {
	p := newPaster(t, Config{})
	if _, err := exec.LookPath("xterm"); err != nil {
		testenv.Require(t, "xterm", "make deps (apt-get install xterm)")
	}
	ownClipboard(t, "previous")
	out := filepath.Join(t.TempDir(), "got")
	title := fmt.Sprintf("whisperkey-xterm-%d", os.Getpid())
	cmd := exec.Command("xterm", "-title", title, "-geometry", "80x10+50+50", "-e",
		"sh", "-c", `IFS= read -r line && printf '%s' "$line" > "$0"`, out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	id, err := exec.Command("xdotool", "search", "--sync", "--onlyvisible", "--name", title).Output()
	if err != nil {
		t.Fatalf("find the xterm window: %v", err)
	}
	win := strings.Fields(string(id))[0]
	xdotool(t, "windowfocus", "--sync", win)
	time.Sleep(300 * time.Millisecond) // the shell inside starts reading

	const text = "echo from the dictation: ünïcode ok"
	res, err := p.Output(context.Background(), text, Options{PressEnter: true})
	if err != nil {
		t.Fatalf("Output: %+v, %v", res, err)
	}
	if res.PasteKey != "shift+insert" || !res.Verified || !res.Restored {
		t.Errorf("result %+v; want shift+insert, verified, restored", res)
	}
	var got []byte
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if got, err = os.ReadFile(out); err == nil && len(got) > 0 {
			break
		}
	}
	if string(got) != text {
		t.Errorf("the shell in xterm read %q, want %q", got, text)
	}
	if c, _ := readClipboard(t); c != "previous" {
		t.Errorf("clipboard after the paste = %q, want it restored", c)
	}
}

// paste: type sends keystrokes: the text lands, the clipboard is never touched.
func TestTypeMode(t *testing.T) {
	p := newPaster(t, Config{Mode: "type"})
	const previous = "untouched"
	ownClipboard(t, previous)
	tg := startTarget(t)
	const text = "Grüße, naïve café — ✓ 日本語 (typed)"
	res, err := p.Output(context.Background(), text, Options{})
	if err != nil || !res.Typed || res.Pasted || res.OnClipboard {
		t.Fatalf("Output = %+v, %v; want typed", res, err)
	}
	tg.waitFor(text)
	if got, _ := readClipboard(t); got != previous {
		t.Errorf("clipboard = %q, want %q untouched", got, previous)
	}
}

// Copy (the Recent menu's action) leaves the text on the clipboard for any program.
func TestCopyLeavesText(t *testing.T) {
	p := newPaster(t, Config{})
	ownClipboard(t, "previous")
	const text = "  An earlier dictation, copied again. "
	if err := p.Copy(context.Background(), text); err != nil {
		t.Fatal(err)
	}
	// The X server hands the selection over asynchronously: allow it a moment.
	var out []byte
	var err error
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if out, err = exec.Command("xclip", "-o", "-selection", "clipboard").Output(); err == nil && string(out) == text {
			return
		}
	}
	t.Errorf("xclip read %q, %v; want %q", out, err, text)
}
