//go:build linux && cgo

package indicator_test

import (
	"bufio"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

func TestMain(m *testing.M) {
	// A private display: another package's windows or focus changes must not land here.
	testenv.MainOnPrivateXvfb(m)
}

func requireX(t *testing.T) {
	t.Helper()
	testenv.RequireX(t)
	for _, tool := range []string{"wish", "xdotool", "xwd"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Require(t, tool, "make deps (apt-get install tk xdotool x11-apps)")
		}
	}
}

func logger(t *testing.T) *slog.Logger {
	return testlog.New(t, slog.LevelDebug)
}

func xdotool(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("xdotool", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// under starts a focused Tk window across the bottom of the screen, where the indicator
// appears, and returns its window id and its output lines.
func under(t *testing.T) (string, <-chan string) {
	t.Helper()
	cmd := exec.Command("wish", "testdata/under.tcl")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	select {
	case l := <-lines:
		id, ok := strings.CutPrefix(l, "READY ")
		if !ok {
			t.Fatalf("wish said %q", l)
		}
		var n uint64
		if _, err := fmt.Sscan(id, &n); err != nil {
			t.Fatalf("window id %q: %v", id, err)
		}
		xdotool(t, "windowfocus", "--sync", fmt.Sprint(n))
		return settledFocus(t), lines
	case <-time.After(10 * time.Second):
		t.Fatal("the Tk window did not come up")
		return "", nil
	}
}

// settledFocus is the focused window once it has stopped moving. Tk hands
// the X focus between its frame and the entry inside it as it handles its
// own focus events, so the window that ends up focused is whichever of the
// two Tk chose last; the tests check that the focus stays there.
func settledFocus(t *testing.T) string {
	t.Helper()
	last, same := "", 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		got := xdotool(t, "getwindowfocus")
		if got != last {
			last, same = got, 0
			continue
		}
		if same++; same == 4 {
			return got
		}
	}
	t.Fatalf("the focus kept moving for 5s (last on %s)", last)
	return ""
}

func dot(r indicator.Rect) image.Rectangle {
	// The dot is 14 px at x 12..26, centred vertically; look at its middle.
	return image.Rect(r.X+15, r.Y+indicator.Height/2-3, r.X+23, r.Y+indicator.Height/2+3)
}

func bounds(r indicator.Rect) image.Rectangle { return image.Rect(r.X, r.Y, r.X+r.W, r.Y+r.H) }

// The indicator shows on a screenshot while shown and not after Hide, never takes the
// focus, lets clicks through to the window under it, and appears/hides in time.
func TestIndicatorOnScreen(t *testing.T) {
	requireX(t)
	focused, clicks := under(t)
	leaks := goleak.IgnoreCurrent() // the Tk window's reader ends in a cleanup, later
	if got := xdotool(t, "getwindowfocus"); got != focused {
		t.Fatalf("focus %s before the test, want the Tk window's %s", got, focused)
	}

	ind, err := indicator.New(indicator.Config{Placement: choice.Bottom, FlashFor: 400 * time.Millisecond}, logger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ind.Close(); err != nil {
			t.Error(err)
		}
		goleak.VerifyNone(t, leaks)
	}()
	before := testenv.Screenshot(t)

	start := time.Now()
	ind.Show(indicator.Recording, "")
	ind.SetLevel(0.6)
	appeared := time.Since(start)
	t.Logf("Show(Recording)+SetLevel returned after %v", appeared)
	// Show must not wait on the renderer; a second means it blocked, not
	// that the machine is busy (the speed itself is the benchmark's).
	if appeared > time.Second {
		t.Errorf("the indicator took %v to appear, want within 1s", appeared)
	}
	r := ind.Bounds()
	// Bottom centre of the 1280x800 screen, which holds the focused window.
	if want := (indicator.Rect{X: (1280 - indicator.Width) / 2, Y: 800 - indicator.Height - 48, W: indicator.Width, H: indicator.Height}); r != want {
		t.Errorf("bounds %+v, want %+v", r, want)
	}
	shot := testenv.Screenshot(t)
	red := indicator.DotColour(indicator.Recording)
	if n, want := count(shot, dot(r), red), dot(r).Dx()*dot(r).Dy(); n != want {
		t.Errorf("recording: %d of %d dot pixels are red", n, want)
	}
	if n := count(before, bounds(r), red); n != 0 {
		t.Errorf("%d red pixels there before Show", n)
	}
	// The level bar: 60% of its width green.
	green := count(shot, bounds(r), 0x34a853)
	if barH, barW := 8, indicator.Width-14-38; green < barH*barW*6/10-barH || green > barH*barW*6/10+barH {
		t.Errorf("level bar: %d green pixels, want about %d (60%% of %dx%d)", green, barH*barW*6/10, barW, barH)
	}
	if os.Getenv("WHISPERKEY_UPDATE_DOCS") == "1" {
		writePNG(t, shot, bounds(r).Inset(-12), filepath.Join(testenv.RepoRoot(t), "docs", "indicator.png"))
	}
	if got := xdotool(t, "getwindowfocus"); got != focused {
		t.Errorf("focus moved to %s while the indicator shows; want it to stay on %s", got, focused)
	}

	// A click on the indicator reaches the window under it.
	cx, cy := r.X+r.W/2, r.Y+r.H/2
	xdotool(t, "mousemove", "--sync", fmt.Sprint(cx), fmt.Sprint(cy), "click", "1")
	select {
	case l := <-clicks:
		if l != fmt.Sprintf("CLICK %d %d", cx, cy) {
			t.Errorf("window under the indicator got %q, want a click at %d,%d", l, cx, cy)
		}
	case <-time.After(3 * time.Second):
		t.Error("the click on the indicator did not reach the window under it")
	}
	if got := xdotool(t, "getwindowfocus"); got != focused {
		t.Errorf("focus moved to %s after clicking the indicator; want %s", got, focused)
	}

	ind.Show(indicator.Transcribing, "")
	if n := count(testenv.Screenshot(t), dot(r), indicator.DotColour(indicator.Transcribing)); n == 0 {
		t.Error("transcribing: no amber dot")
	}

	start = time.Now()
	ind.Hide()
	hid := time.Since(start)
	t.Logf("Hide returned after %v", hid)
	if hid > time.Second {
		t.Errorf("Hide took %v, want within 1s", hid)
	}
	after := testenv.Screenshot(t)
	for _, s := range []indicator.State{indicator.Recording, indicator.Transcribing} {
		if n := count(after, bounds(r), indicator.DotColour(s)); n != 0 {
			t.Errorf("after Hide: %d %s pixels remain", n, s)
		}
	}
	if n, all := count(after, bounds(r), 0xffffff), r.W*r.H; n != all {
		t.Errorf("after Hide: %d of %d pixels show the white window under it", n, all)
	}

	// "Nothing heard" shows for FlashFor, then goes by itself.
	ind.Show(indicator.NothingHeard, "")
	grey := indicator.DotColour(indicator.NothingHeard)
	if n := count(testenv.Screenshot(t), dot(r), grey); n == 0 {
		t.Error("nothing heard: no grey dot")
	}
	time.Sleep(700 * time.Millisecond)
	if n := count(testenv.Screenshot(t), dot(r), grey); n != 0 {
		t.Errorf("nothing heard still shown %v after it should have gone", 700*time.Millisecond)
	}
	ind.Show(indicator.Error, "Not pasted: on the clipboard")
	if n := count(testenv.Screenshot(t), dot(r), indicator.DotColour(indicator.Error)); n == 0 {
		t.Error("error: no red dot")
	}
	if got := xdotool(t, "getwindowfocus"); got != focused {
		t.Errorf("focus moved to %s; want %s", got, focused)
	}
}

func TestIndicatorAtCursor(t *testing.T) {
	requireX(t)
	ind, err := indicator.New(indicator.Config{Placement: choice.Cursor}, logger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer ind.Close()
	xdotool(t, "mousemove", "--sync", "300", "200")
	ind.Show(indicator.Recording, "")
	if got, want := ind.Bounds(), (indicator.Rect{X: 316, Y: 224, W: indicator.Width, H: indicator.Height}); got != want {
		t.Errorf("bounds %+v, want %+v", got, want)
	}
	if n := count(testenv.Screenshot(t), dot(ind.Bounds()), indicator.DotColour(indicator.Recording)); n == 0 {
		t.Error("no red dot next to the pointer")
	}
	ind.Hide()
}

func writePNG(t *testing.T, img *image.RGBA, r image.Rectangle, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img.SubImage(r)); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// While recording into a window with a profile, the indicator names the
// profile right of a shorter level bar.
func TestIndicatorShowsTheProfileWhileRecording(t *testing.T) {
	requireX(t)
	var ind *indicator.Indicator
	var err error
	for range 3 { // a fresh private display may refuse the very first connection
		if ind, err = indicator.New(indicator.Config{Placement: choice.Bottom}, logger(t)); err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer ind.Close()
	ind.Show(indicator.Recording, "")
	ind.SetLevel(1)
	r := ind.Bounds()
	right := image.Rect(r.X+r.W/2, r.Y, r.X+r.W, r.Y+r.H)
	plain := testenv.Screenshot(t)
	ind.Show(indicator.Recording, "terminal")
	ind.SetLevel(1)
	named := testenv.Screenshot(t)
	if os.Getenv("WHISPERKEY_KEEP_SHOTS") != "" {
		writePNG(t, named, bounds(r).Inset(-12), filepath.Join(os.Getenv("WHISPERKEY_KEEP_SHOTS"), "indicator-profile.png"))
	}
	const text = 0xf1f3f4 // the label colour
	if n := count(named, right, text); n == 0 {
		t.Error("no label pixels right of the bar")
	}
	if n := count(plain, right, text); n != 0 {
		t.Errorf("%d label pixels without a profile", n)
	}
	full, short := count(plain, bounds(r), 0x34a853), count(named, bounds(r), 0x34a853)
	if short == 0 || short >= full {
		t.Errorf("level bar at full level: %d green pixels with the label, %d without; want fewer but some", short, full)
	}
}
