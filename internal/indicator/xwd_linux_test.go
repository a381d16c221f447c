//go:build linux

package indicator_test

import (
	"image"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// count is how many pixels of r in img have the colour 0xRRGGBB.
func count(img *image.RGBA, r image.Rectangle, rgb uint32) int {
	n, _ := testenv.PixelsOf(img.SubImage(r).(*image.RGBA), rgb)
	return n
}
