package plot

import (
	"testing"

	"github.com/tcpviz/tcpviz/flows"
)

// TestReducedLossless: where a device column holds at most two vertices
// of a line (a step is two) and bars that do not overlap, the reduction
// keeps every vertex and bar where it was, so the reduced drawing (forced
// with reduceAbove = 0) is pixel for pixel the stacked one. Both are
// drawn by gg (fastStrokes off): TestFastStrokeSame compares the other
// rasterizer.
func TestReducedLossless(t *testing.T) {
	defer func(b bool) { fastStrokes = b }(fastStrokes)
	fastStrokes = false
	r := bulkConn(300)
	var x, ack []float64
	for _, a := range r.Series.Acks[0] {
		x = append(x, a.Time.Sub(r.Conn.First).Seconds())
		ack = append(ack, float64(a.Ack))
	}
	for _, tt := range []struct {
		name string
		fig  func() (Figure, error)
	}{
		{"timeseq", func() (Figure, error) { return TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB, Run: "synthetic"}) }},
		{"xy-steps", func() (Figure, error) {
			return XY(XYSpec{Title: "steps", X: Axis{Label: "time", Unit: UnitSeconds}, Y: Axis{Label: "bytes", Unit: UnitBytes},
				Series: []Named{{Name: "ack", X: x, Y: ack, Step: true}}})
		}},
	} {
		stacked := render(t, tt.fig, true)
		func() {
			defer func(n int) { reduceAbove = n }(reduceAbove)
			reduceAbove = 0
			reduced := render(t, tt.fig, false)
			if n, most := pixelDiff(t, stacked, reduced); n != 0 {
				t.Errorf("%s: %d pixels differ, by up to %d of 255; want none", tt.name, n, most)
			}
		}()
	}
}
