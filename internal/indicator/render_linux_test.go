//go:build linux

package indicator

import (
	"image"
	"strings"
	"testing"
)

func renderView(t *testing.T, v view) *image.RGBA {
	t.Helper()
	face, err := newFace()
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, Width, Height))
	render(img, face, v)
	return img
}

// pixels counts the pixels of r in img of colour 0xRRGGBB.
func pixels(img *image.RGBA, r image.Rectangle, c uint32) int {
	n := 0
	want := rgb(c)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) == want {
				n++
			}
		}
	}
	return n
}

// textPixels counts the pixels of r that are none of the frame's flat
// colours: the anti-aliased glyphs.
func textPixels(img *image.RGBA, r image.Rectangle, flat ...uint32) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			text := true
			for _, f := range flat {
				if c == rgb(f) {
					text = false
				}
			}
			if text {
				n++
			}
		}
	}
	return n
}

var (
	whole    = image.Rect(0, 0, Width, Height)
	content  = image.Rect(contentLeft, 0, Width, Height)
	dotInner = image.Rect(dotX+3, Height/2-3, dotX+dotD-3, Height/2+3)
)

// The level bar fills its share of the track: wider as the level rises,
// none at silence, all at full scale.
func TestRenderLevelBar(t *testing.T) {
	track := contentRight - contentLeft
	tests := []struct {
		level float32
		want  int // green pixels
	}{
		{0, 0},
		{0.25, track / 4 * barH},
		{0.5, track / 2 * barH},
		{1, track * barH},
		{1.7, track * barH}, // clipped
		{-1, 0},
	}
	prev := -1
	for _, tt := range tests {
		img := renderView(t, view{state: Recording, level: tt.level})
		got := pixels(img, whole, colourLevel)
		if got < tt.want-barH || got > tt.want+barH {
			t.Errorf("level %.2f: %d green pixels, want about %d", tt.level, got, tt.want)
		}
		if tt.level >= 0 && tt.level <= 1 && got < prev {
			t.Errorf("level %.2f: %d green pixels, fewer than at a lower level (%d)", tt.level, got, prev)
		}
		prev = got
		if n := pixels(img, dotInner, colourRecording); n != dotInner.Dx()*dotInner.Dy() {
			t.Errorf("level %.2f: the dot has %d of %d red pixels", tt.level, n, dotInner.Dx()*dotInner.Dy())
		}
		if n := textPixels(img, content, colourBackground, colourLevel, colourLevelTrack); n != 0 {
			t.Errorf("level %.2f: %d text pixels without a label", tt.level, n)
		}
	}
}

// Each state shows its dot and stripe, and its label as text; the
// profile's name goes right of a shorter bar.
func TestRenderStates(t *testing.T) {
	tests := []struct {
		name       string
		v          view
		wantText   bool
		rightText  bool // the text is in the right half (the profile beside the bar)
		wantTrack  bool
		shortTrack bool
	}{
		{"recording", view{state: Recording, level: 1}, false, false, true, false},
		{"recording with a profile", view{state: Recording, level: 1, text: "terminal"}, true, true, true, true},
		{"transcribing", view{state: Transcribing}, true, false, false, false},
		{"nothing heard", view{state: NothingHeard}, true, false, false, false},
		{"error", view{state: Error, text: "Not pasted — press Ctrl+V"}, true, false, false, false},
		{"an error too long to fit", view{state: Error, text: "The engine stopped while it was transcribing this dictation and restarted"}, true, false, false, false},
	}
	full := (contentRight - contentLeft) * barH
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := renderView(t, tt.v)
			dot := DotColour(tt.v.state)
			if n := pixels(img, dotInner, dot); n != dotInner.Dx()*dotInner.Dy() {
				t.Errorf("dot: %d of %d pixels are %06x", n, dotInner.Dx()*dotInner.Dy(), dot)
			}
			if n := pixels(img, image.Rect(0, 0, stripeW, Height), dot); n != stripeW*Height {
				t.Errorf("stripe: %d of %d pixels", n, stripeW*Height)
			}
			flat := []uint32{colourBackground, colourLevel, colourLevelTrack}
			left := textPixels(img, image.Rect(contentLeft, 0, Width/2, Height), flat...)
			right := textPixels(img, image.Rect(Width/2, 0, Width, Height), flat...)
			switch {
			case !tt.wantText && left+right != 0:
				t.Errorf("%d text pixels, want none", left+right)
			case tt.wantText && tt.rightText && (right == 0 || left != 0):
				t.Errorf("text pixels left %d, right %d; want them right of the bar only", left, right)
			case tt.wantText && !tt.rightText && left == 0:
				t.Errorf("no text pixels where the label starts")
			}
			if n := textPixels(img, image.Rect(Width-4, 0, Width, Height), flat...); n != 0 {
				t.Errorf("%d text pixels at the right edge: the label is not fitted", n)
			}
			green := pixels(img, whole, colourLevel)
			switch {
			case !tt.wantTrack && green != 0:
				t.Errorf("%d level pixels outside recording", green)
			case tt.shortTrack && (green == 0 || green >= full):
				t.Errorf("%d level pixels at full level with a profile, want some but fewer than %d", green, full)
			case tt.wantTrack && !tt.shortTrack && green != full:
				t.Errorf("%d level pixels at full level, want %d", green, full)
			}
		})
	}
}

// The frame goes to the compositor as ARGB8888: B, G, R, A in memory.
func TestToARGB(t *testing.T) {
	img := renderView(t, view{state: Recording, level: 1})
	buf := make([]byte, frameBytes)
	toARGB(buf, img)
	at := func(x, y int) [4]byte { o := y*stride + 4*x; return [4]byte{buf[o], buf[o+1], buf[o+2], buf[o+3]} }
	if got, want := at(1, 1), [4]byte{0x3c, 0x45, 0xe8, 0xff}; got != want { // the red stripe
		t.Errorf("stripe pixel %v, want %v", got, want)
	}
	if got, want := at(Width-2, Height-2), [4]byte{0x24, 0x21, 0x20, 0xff}; got != want { // the background
		t.Errorf("background pixel %v, want %v", got, want)
	}
}

// A repaint is sent only when the frame changes: a level that moves the
// bar by less than a pixel, or the same label again, sends nothing.
func TestFrameOf(t *testing.T) {
	a := frameOf(view{state: Recording, level: 0.5})
	if b := frameOf(view{state: Recording, level: 0.5001}); a != b {
		t.Error("a level change under a pixel makes a new frame")
	}
	if b := frameOf(view{state: Recording, level: 0.6}); a == b {
		t.Error("the bar grew and the frame is the same")
	}
	if b := frameOf(view{state: Transcribing, level: 0.5}); a == b {
		t.Error("another state, the same frame")
	}
	if frameOf(view{state: Transcribing, level: 0.1}) != frameOf(view{state: Transcribing, level: 0.9}) {
		t.Error("the level changes the frame outside recording")
	}
}

// Live text takes all but a short bar, shows its newest words, and stays
// inside the frame; the bar is still there to show the level.
func TestRenderLiveText(t *testing.T) {
	face, err := newFace()
	if err != nil {
		t.Fatal(err)
	}
	const said = "The quarterly report is due on Friday afternoon. Let us meet in the small conference room at ten."
	v := view{state: Recording, level: 1, text: said, live: true}
	label := recordingLabel(measurer(face), v, contentRight-contentLeft)
	if !strings.HasPrefix(label, "…") || !strings.HasSuffix(said, strings.TrimPrefix(label, "…")) {
		t.Fatalf("live label %q: not the end of what was said", label)
	}
	img := renderView(t, v)
	if n := textPixels(img, image.Rect(contentRight, 0, Width, Height), colourBackground); n != 0 {
		t.Errorf("%d text pixels right of the content", n)
	}
	if got := pixels(img, whole, colourLevel); got < liveBarW*barH {
		t.Errorf("%d green pixels at full level, want at least the short bar's %d", got, liveBarW*barH)
	}
	profile := recordingLabel(measurer(face), view{state: Recording, text: said}, contentRight-contentLeft)
	if !strings.HasPrefix(said, strings.TrimSuffix(profile, "…")) {
		t.Errorf("a profile's name %q does not keep its start", profile)
	}
	t.Logf("live %q, profile %q", label, profile)
}
