package testenv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math/bits"
	"os/exec"
	"testing"
	"time"
)

// Screenshot grabs the whole X screen with xwd (x11-apps) and decodes it.
func Screenshot(t testing.TB) *image.RGBA {
	t.Helper()
	// xwd fails now and then with an X error when a window (the indicator,
	// say) maps or unmaps while it reads the screen: try again shortly.
	var out []byte
	var err error
	for try := 0; try < 3; try++ {
		var stderr bytes.Buffer
		cmd := exec.Command("xwd", "-root", "-silent")
		cmd.Stderr = &stderr
		if out, err = cmd.Output(); err == nil {
			break
		}
		err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(stderr.Bytes()))
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("xwd -root: %v", err)
	}
	img, err := DecodeXWD(out)
	if err != nil {
		t.Fatalf("decode the xwd dump: %v", err)
	}
	return img
}

// DecodeXWD reads a ZPixmap TrueColor XWD dump of 24 or 32 bits per pixel,
// which is what xwd writes for a TrueColor screen such as Xvfb's.
func DecodeXWD(b []byte) (*image.RGBA, error) {
	if len(b) < 100 {
		return nil, fmt.Errorf("%d bytes: too short for an XWD header", len(b))
	}
	var h [25]uint32
	for i := range h {
		h[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	size, format, width, height := h[0], h[2], int(h[4]), int(h[5])
	order, bpp, stride, class := h[7], int(h[11]), int(h[12]), h[13]
	masks := [3]uint32{h[14], h[15], h[16]}
	ncolors := int(h[19])
	if format != 2 || class != 4 && class != 5 || bpp != 32 && bpp != 24 {
		return nil, fmt.Errorf("format %d, visual class %d, %d bits per pixel: only ZPixmap TrueColor 24/32 is read", format, class, bpp)
	}
	data := int(size) + 12*ncolors
	if len(b) < data+stride*height {
		return nil, fmt.Errorf("%d bytes, want %d", len(b), data+stride*height)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	for y := range height {
		row := b[data+y*stride:]
		for x := range width {
			p := row[x*bpp/8:]
			var v uint32
			if order == 0 { // LSBFirst
				v = uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16
				if bpp == 32 {
					v |= uint32(p[3]) << 24
				}
			} else {
				v = uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2])
				if bpp == 32 {
					v = v<<8 | uint32(p[3])
				}
			}
			var c [3]uint8
			for i, m := range masks {
				c[i] = uint8((v & m) >> bits.TrailingZeros32(m))
			}
			img.SetRGBA(x, y, color.RGBA{c[0], c[1], c[2], 255})
		}
	}
	return img, nil
}

// PixelsOf counts img's pixels of the colour 0xRRGGBB and returns their
// bounding box.
func PixelsOf(img *image.RGBA, rgb uint32) (n int, box image.Rectangle) {
	want := color.RGBA{uint8(rgb >> 16), uint8(rgb >> 8), uint8(rgb), 255}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) == want {
				if n == 0 {
					box = image.Rect(x, y, x+1, y+1)
				} else {
					box = box.Union(image.Rect(x, y, x+1, y+1))
				}
				n++
			}
		}
	}
	return n, box
}
