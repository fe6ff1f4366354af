// Package imgtest counts what tests look for in rendered figures. Test
// support only.
package imgtest

import (
	"bytes"
	"image/color"
	"image/png"
	"testing"
)

// ColourPixels counts the pixels of the PNG b within 40 (of 255, per
// channel) of c. It fails tb when b is not a PNG.
func ColourPixels(tb testing.TB, b []byte, c color.Color) int {
	tb.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		tb.Fatal(err)
	}
	r0, g0, b0, _ := c.RGBA()
	near := func(a, b uint32) bool { d := int(a>>8) - int(b>>8); return d > -40 && d < 40 }
	n := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r, r0) && near(g, g0) && near(bl, b0) {
				n++
			}
		}
	}
	return n
}
