//go:build linux && cgo

package output

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// saturateCPU keeps every core busy until the test ends: typing must not depend on
// the target keeping up.
func saturateCPU(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range runtime.NumCPU() * 2 {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				_ = n * n
			}
		})
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// unicodeText is several hundred characters of what a dictation in several languages
// holds: accents, ß, dashes, symbols, CJK, newlines. Each line differs.
func unicodeText(lines int, line func(i int) string) string {
	var b strings.Builder
	for i := range lines {
		b.WriteString(line(i))
		if i < lines-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Typing a long text full of characters the US layout lacks lands every one of them,
// exactly, while every core is busy.
func TestTypeModeUnderLoad(t *testing.T) {
	p := newPaster(t, Config{Mode: "type"})
	tg := startTarget(t)
	text := unicodeText(6, func(i int) string {
		return fmt.Sprintf("%d. Grüße aus Köln — naïve café, crème brûlée; señor Muñoz, ¿qué tal? "+
			"smørrebrød på Ærø ✓ ★ € 12,50 · 日本語のテキスト。", i+1)
	})
	if n := len([]rune(text)); n < 400 {
		t.Fatalf("the text has %d characters, want several hundred", n)
	}
	saturateCPU(t)
	res, err := p.Output(context.Background(), text, Options{})
	if err != nil || !res.Typed {
		t.Fatalf("Output = %+v, %v; want typed", res, err)
	}
	tg.waitForWithin(text, time.Minute)
}

// slowTarget runs testdata/slowtarget.c: an Xlib window that answers _NET_WM_PING and
// handles each key press only after a pause.
func slowTarget(t *testing.T) *target {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Fatalf("the slow target needs a C compiler (cgo builds need one too): %v", err)
	}
	bin := filepath.Join(t.TempDir(), "slowtarget")
	if out, err := exec.Command(cc, "-o", bin, "testdata/slowtarget.c", "-lX11").CombinedOutput(); err != nil {
		t.Fatalf("build the slow target: %v: %s", err, out)
	}
	cmd := exec.Command(bin)
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	tg := &target{t: t, in: in, out: bufio.NewReader(outPipe)}
	ready, err := readLine(tg.out)
	if !strings.HasPrefix(ready, "READY ") || err != nil {
		t.Fatalf("slow target: %q, %v", ready, err)
	}
	xdotool(t, "windowfocus", "--sync", strings.TrimPrefix(ready, "READY "))
	return tg
}

// More different missing characters than the spare keys hold: typing goes in
// batches, and a key typed in one batch gets its next character only after the
// target, far behind, handled the earlier presses (it answers a ping after them).
func TestTypeModeBatchesWaitForSlowTarget(t *testing.T) {
	p := newPaster(t, Config{Mode: "type"})
	tg := slowTarget(t)
	// 120 different CJK characters and a few accents: far more than the ~20 spare keys
	// of a US layout hold (two each).
	text := unicodeText(8, func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%d: é ß — ", i)
		for j := range 15 {
			b.WriteRune(rune(0x4e00 + 37*(i*15+j)))
		}
		return b.String()
	})
	saturateCPU(t)
	res, err := p.Output(context.Background(), text, Options{})
	if err != nil || !res.Typed {
		t.Fatalf("Output = %+v, %v; want typed", res, err)
	}
	tg.waitForWithin(text, time.Minute)
}

func (tg *target) waitForWithin(want string, limit time.Duration) {
	tg.t.Helper()
	var got string
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if got = tg.contents(); got == want {
			return
		}
		if len(got) >= len(want) {
			break
		}
	}
	tg.t.Fatalf("target holds %q,\nwant %q", got, want)
}

// Caps Lock on, or another layout group selected, does not change what is typed, and
// stays as the user left it.
func TestTypeModeCapsLock(t *testing.T) {
	p := newPaster(t, Config{Mode: "type"})
	tg := startTarget(t)
	xdotool(t, "key", "Caps_Lock")
	t.Cleanup(func() { exec.Command("xdotool", "key", "Caps_Lock").Run() })
	const text = "Hello World, café ÉTÉ ß"
	if _, err := p.Output(context.Background(), text, Options{}); err != nil {
		t.Fatal(err)
	}
	tg.waitForWithin(text, time.Minute)
	out, err := exec.Command("xset", "q").Output()
	if err != nil {
		t.Fatalf("xset q: %v", err)
	}
	if !strings.Contains(string(out), "Caps Lock:   on") {
		t.Errorf("Caps Lock is off after typing; want it left on:\n%s", out)
	}
}
