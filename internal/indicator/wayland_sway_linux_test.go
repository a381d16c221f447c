//go:build linux

package indicator_test

import (
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/indicator"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// swayEnv is the environment of a session in s: Wayland only, no X display.
func swayEnv(s *testenv.Sway) func(string) string {
	env := map[string]string{}
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

// The layer-shell indicator under real headless sway (no X display at
// all): it shows at the bottom centre of the output on a screenshot,
// above a focused window that keeps the focus, draws the level bar, and
// is gone after Hide.
func TestLayerShellIndicatorOnSway(t *testing.T) {
	s := testenv.StartSway(t, "")
	s.Keyboard(t)                     // a window takes the keyboard focus only when the seat has a keyboard
	testenv.WaylandTarget(t, s.Env()) // a focused window, which must keep the focus
	focus := s.Focused(t)
	leaks := goleak.IgnoreCurrent() // the window's pipes end in a cleanup, later

	ind, err := indicator.New(indicator.Config{Placement: choice.Bottom, FlashFor: 400 * time.Millisecond, Getenv: swayEnv(s)}, logger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ind.Close(); err != nil {
			t.Error(err)
		}
		goleak.VerifyNone(t, leaks)
	}()
	before := s.Screenshot(t)
	if b := before.Bounds(); b.Dx() != 1280 || b.Dy() != 800 {
		t.Fatalf("screenshot %v, want the 1280x800 output", b)
	}

	start := time.Now()
	ind.Show(indicator.Recording, "")
	ind.SetLevel(0.6)
	appeared := time.Since(start)
	t.Logf("Show(Recording)+SetLevel returned after %v", appeared)
	if appeared > 100*time.Millisecond {
		t.Errorf("the indicator took %v to appear, want within 100ms", appeared)
	}
	// Bottom centre, 48 px above the output's bottom edge.
	r := indicator.Rect{X: (1280 - indicator.Width) / 2, Y: 800 - indicator.Height - 48, W: indicator.Width, H: indicator.Height}
	shot := s.Screenshot(t)
	if dir := os.Getenv("WHISPERKEY_KEEP_SHOTS"); dir != "" {
		writePNG(t, shot, bounds(r).Inset(-60), filepath.Join(dir, "indicator-sway.png"))
	}
	red := indicator.DotColour(indicator.Recording)
	if n, want := count(shot, dot(r), red), dot(r).Dx()*dot(r).Dy(); n != want {
		t.Errorf("recording: %d of %d dot pixels are red", n, want)
	}
	if n := count(before, bounds(r), red); n != 0 {
		t.Errorf("%d red pixels there before Show", n)
	}
	// The stripe fills the left edge exactly: the surface is where it should be.
	stripe := image.Rect(r.X, r.Y, r.X+4, r.Y+r.H)
	if n := count(shot, stripe, red); n != 4*r.H {
		t.Errorf("stripe: %d of %d pixels red at %v", n, 4*r.H, stripe)
	}
	if n := count(shot, image.Rect(r.X-4, r.Y, r.X, r.Y+r.H), red); n != 0 {
		t.Errorf("%d red pixels left of the indicator: it is not at %v", n, r)
	}
	if n, all := count(shot, image.Rect(0, 0, 1280, 800), red), count(shot, bounds(r), red); n != all {
		t.Errorf("%d red pixels outside the indicator's place", n-all)
	}
	green := count(shot, bounds(r), 0x34a853)
	if barH, barW := 8, indicator.Width-14-38; green < barH*barW*6/10-barH || green > barH*barW*6/10+barH {
		t.Errorf("level bar: %d green pixels, want about %d (60%% of %dx%d)", green, barH*barW*6/10, barW, barH)
	}
	// The level feed's rate (30 a second) for a second: each frame a round
	// trip to the compositor, well inside its 33 ms.
	start = time.Now()
	for i := range 30 {
		ind.SetLevel(float32(i%10) / 10)
	}
	t.Logf("30 level frames took %v", time.Since(start))
	if d := time.Since(start); d > 30*33*time.Millisecond/2 {
		t.Errorf("30 level frames took %v, want well under a second", d)
	}
	ind.SetLevel(0.2)
	if g := count(s.Screenshot(t), bounds(r), 0x34a853); g >= green || g == 0 {
		t.Errorf("level 0.2: %d green pixels, want fewer than the %d at 0.6", g, green)
	}
	if got := s.Focused(t); got != focus {
		t.Errorf("focus moved to node %d while the indicator shows; want it to stay on %d", got, focus)
	}

	ind.Show(indicator.Transcribing, "")
	shot = s.Screenshot(t)
	if n := count(shot, dot(r), indicator.DotColour(indicator.Transcribing)); n == 0 {
		t.Error("transcribing: no amber dot")
	}
	if n := count(shot, bounds(r), 0xf1f3f4); n == 0 {
		t.Error("transcribing: no text pixels")
	}

	ind.Hide()
	after := s.Screenshot(t)
	for _, st := range []indicator.State{indicator.Recording, indicator.Transcribing} {
		if n := count(after, bounds(r), indicator.DotColour(st)); n != 0 {
			t.Errorf("after Hide: %d %s pixels remain", n, st)
		}
	}
	if n := count(after, bounds(r), 0x202124); n != 0 {
		t.Errorf("after Hide: %d background pixels of the indicator remain", n)
	}
	if got := s.Focused(t); got != focus {
		t.Errorf("focus moved to node %d after Hide; want %d", got, focus)
	}

	// Shown again after Hide (a new surface), and "nothing heard" goes by itself.
	ind.Show(indicator.NothingHeard, "")
	grey := indicator.DotColour(indicator.NothingHeard)
	if n := count(s.Screenshot(t), dot(r), grey); n == 0 {
		t.Error("nothing heard: no grey dot")
	}
	time.Sleep(700 * time.Millisecond)
	if n := count(s.Screenshot(t), dot(r), grey); n != 0 {
		t.Error("nothing heard still shown after FlashFor")
	}
}
