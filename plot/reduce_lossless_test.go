package plot

import (
	"testing"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
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
	for _, tt := range seqAndSteps(bulkConn(300), false) {
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

// namedFig is a figure to draw in a test, by name.
type namedFig struct {
	name string
	fig  func() (Figure, error)
}

// seqAndSteps is the time-sequence graph of r and a step line of its ACKs
// (and, with win, one of its receive window): what the reduction and
// rasterizer tests draw both ways.
func seqAndSteps(r *tcpanalysis.ConnResult, win bool) []namedFig {
	var x, ack, rw []float64
	for _, a := range r.Series.Acks[0] {
		x = append(x, a.Time.Sub(r.Conn.First).Seconds())
		ack = append(ack, float64(a.Ack))
		rw = append(rw, float64(a.Window))
	}
	series := []Named{{Name: "ack", X: x, Y: ack, Step: true}}
	if win {
		series = append(series, Named{Name: "window", X: x, Y: rw, Step: true})
	}
	return []namedFig{
		{"timeseq", func() (Figure, error) { return TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB, Run: "synthetic"}) }},
		{"xy-steps", func() (Figure, error) {
			return XY(XYSpec{Title: "steps", X: Axis{Label: "time", Unit: UnitSeconds}, Y: Axis{Label: "bytes", Unit: UnitBytes}, Series: series})
		}},
	}
}
