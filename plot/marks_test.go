package plot

import (
	"bytes"
	"image/color"
	"testing"

	"github.com/tcpviz/tcpviz/internal/imgtest"
)

// colourPixels counts the pixels of a PNG within 40 (per channel) of c.
func colourPixels(t *testing.T, b []byte, c color.Color) int { return imgtest.ColourPixels(t, b, c) }

// TestCoincidentMarksVisible: an ACK RTT sample (dot) and a TSval sample
// (ring) of one segment fall on one spot; both stay visible whichever
// series has more samples (trial13 B15: the ACK samples were hidden under
// the TS circles). Each mark keeps at least 80 % of the pixels it has
// when drawn alone.
func TestCoincidentMarksVisible(t *testing.T) {
	render := func(ss ...Named) []byte {
		f, err := XY(XYSpec{X: Axis{Label: "t", Unit: UnitSeconds}, Y: Axis{Label: "RTT", Unit: UnitMillis}, Series: ss})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := f.SaveStyle(&b, "png", DefaultStyle); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	blue, orange := Colour(0), Colour(1)
	for _, n := range [][2]int{{1, 3}, {3, 1}} { // dots, rings
		pts := func(k int) ([]float64, []float64) {
			x, y := []float64{0, 10}, []float64{0, 800} // fixes the axes
			for i := range k {
				x, y = append(x, 5+float64(i)), append(y, 600)
			}
			return x, y
		}
		dx, dy := pts(n[0])
		rx, ry := pts(n[1])
		dot := Named{Scatter: true, Mark: MarkDot, Color: blue, X: dx, Y: dy}
		ring := Named{Scatter: true, Mark: MarkRing, Color: orange, X: rx, Y: ry}
		dotAlone, ringAlone := colourPixels(t, render(dot), blue), colourPixels(t, render(ring), orange)
		both := render(dot, ring)
		if b, o := colourPixels(t, both, blue), colourPixels(t, both, orange); b < dotAlone*8/10 || o < ringAlone*8/10 {
			t.Errorf("%d dots, %d rings: %d blue px (alone %d), %d orange px (alone %d); want both ≥ 80 %%", n[0], n[1], b, dotAlone, o, ringAlone)
		}
	}
}
