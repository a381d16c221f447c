//go:build linux

package indicator

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Layout of a frame, in pixels; the same as the X11 window's (x11_linux.go).
const (
	dotX, dotD   = 12, 14           // the state's dot: left edge and diameter
	stripeW      = 4                // the coloured stripe at the left edge
	contentLeft  = dotX + dotD + 12 // where the bar or the label starts
	contentRight = Width - 14
	barH         = 8
)

// newFace is the Go font at the size of the X11 indicator's "fixed" font.
func newFace() (font.Face, error) {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("the Go font: %w", err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 13, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, fmt.Errorf("the Go font: %w", err)
	}
	return face, nil
}

func rgb(c uint32) color.RGBA {
	return color.RGBA{R: uint8(c >> 16), G: uint8(c >> 8), B: uint8(c), A: 0xff}
}

// render paints v as the X11 indicator does: background, the state's
// stripe and dot, then the level bar (with the profile's name right of it)
// or the label.
func render(dst *image.RGBA, face font.Face, v view) {
	b := dst.Bounds()
	fill := func(r image.Rectangle, c uint32) {
		draw.Draw(dst, r.Add(b.Min).Intersect(b), &image.Uniform{rgb(c)}, image.Point{}, draw.Src)
	}
	fill(image.Rect(0, 0, Width, Height), colourBackground)
	dot := DotColour(v.state)
	fill(image.Rect(0, 0, stripeW, Height), dot)
	drawDot(dst, b.Min.X+dotX, b.Min.Y+(Height-dotD)/2, dotD, rgb(dot))
	left, right := contentLeft, contentRight
	label := v.label()
	if v.state == Recording {
		if label = recordingLabel(measurer(face), v, right-left); label != "" {
			tw := font.MeasureString(face, label).Ceil()
			drawText(dst, face, b.Min.X+right-tw, label)
			right -= tw + labelGap
		}
		y := (Height - barH) / 2
		fill(image.Rect(left, y, right, y+barH), colourLevelTrack)
		if filled := levelWidth(v.level, right-left); filled > 0 {
			fill(image.Rect(left, y, left+filled, y+barH), colourLevel)
		}
		return
	}
	if label != "" {
		drawText(dst, face, b.Min.X+left, head(measurer(face), label, Width-left-stripeW))
	}
}

// levelWidth is how much of a bar w pixels wide level (0 to 1) fills.
func levelWidth(level float32, w int) int {
	return int(max(0, min(1, level)) * float32(w))
}

// drawDot fills a circle of diameter d whose bounding box starts at (x, y).
func drawDot(dst *image.RGBA, x, y, d int, c color.RGBA) {
	r2 := d * d // (2r)², compared in doubled coordinates to keep the centre on a half pixel
	for j := range d {
		for i := range d {
			dx, dy := 2*i+1-d, 2*j+1-d
			if dx*dx+dy*dy <= r2 {
				dst.SetRGBA(x+i, y+j, c)
			}
		}
	}
}

// drawText writes s in the text colour, vertically centred, from x.
func drawText(dst *image.RGBA, face font.Face, x int, s string) {
	m := face.Metrics()
	baseline := dst.Bounds().Min.Y + (Height+m.Ascent.Ceil()-m.Descent.Ceil())/2
	d := font.Drawer{Dst: dst, Src: &image.Uniform{rgb(colourText)}, Face: face, Dot: fixed.P(x, baseline)}
	d.DrawString(s)
}

// measurer measures text in face, in whole pixels, as drawText draws it.
func measurer(face font.Face) func(string) int {
	return func(s string) int { return font.MeasureString(face, s).Ceil() }
}
