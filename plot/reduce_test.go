package plot

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
	"gonum.org/v1/plot/vg"
)

// bulkConn is a synthetic bulk transfer of n segments of 1448 bytes, one
// every 50 µs (± 20 µs), in direction a → b: every 997th segment is lost
// and retransmitted 40 segments later (with a SACK block meanwhile), every
// 1 499th arrives out of order; an ACK every second segment, the receive
// window wandering between 64 and 256 KB.
func bulkConn(n int) *tcpanalysis.ConnResult {
	rng := rand.New(rand.NewPCG(1, 2))
	c := &flows.Conn{Index: 0, First: capture.Timestamp(time.Second), HandshakeSeen: true}
	c.Half[0].Addr = netip.MustParseAddrPort("10.0.0.1:40000")
	c.Half[1].Addr = netip.MustParseAddrPort("10.0.1.1:5201")
	ser := &tcpanalysis.Series{}
	t := c.First
	var frame int64
	var acked int64 = 1
	win := int64(128 << 10)
	var lost []int64
	for i := 0; i < n; i++ {
		t += capture.Timestamp(30*time.Microsecond + time.Duration(rng.IntN(40))*time.Microsecond)
		frame++
		start := 1 + int64(i)*1448
		kind := tcpanalysis.KindNew
		switch {
		case i%997 == 500:
			lost = append(lost, start)
			continue
		case i%1499 == 700:
			kind = tcpanalysis.KindOutOfOrder
		}
		ser.Segs[0] = append(ser.Segs[0], tcpanalysis.SegPoint{Time: t, Frame: frame, Start: start, End: start + 1448, Payload: 1448, Flags: capture.ACK, Kind: kind})
		if len(lost) > 0 && i%997 == 540 {
			l := lost[0]
			lost = lost[1:]
			frame++
			ser.Segs[0] = append(ser.Segs[0], tcpanalysis.SegPoint{Time: t, Frame: frame, Start: l, End: l + 1448, Payload: 1448, Flags: capture.ACK, Kind: tcpanalysis.KindRetransmitted})
		}
		if i%2 == 1 {
			frame++
			if len(lost) == 0 {
				acked = start + 1448
			} else {
				ser.SACKs[0] = append(ser.SACKs[0], tcpanalysis.SACKPoint{Time: t, Frame: frame, Left: lost[0] + 1448, Right: start + 1448})
			}
			win = min(max(win+int64(rng.IntN(8193))-4096, 64<<10), 256<<10)
			ser.Acks[0] = append(ser.Acks[0], tcpanalysis.AckPoint{Time: t, Frame: frame, Ack: acked, Window: win, WindowKnown: true})
		}
	}
	c.Last = t
	return &tcpanalysis.ConnResult{Summary: tcpanalysis.Summary{Conn: c}, Series: ser}
}

// render draws f as a PNG with the default style, the full series when
// full is set.
func render(t *testing.T, f func() (Figure, error), full bool) []byte {
	t.Helper()
	if full {
		defer func(n int) { reduceAbove = n }(reduceAbove)
		reduceAbove = math.MaxInt
	}
	fig, err := f()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fig.SaveStyle(&b, "png", DefaultStyle); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pixelDiff counts the pixels that differ between two PNGs of one size,
// and the largest difference of one channel (0–255).
func pixelDiff(t *testing.T, a, b []byte) (n int, most int) {
	t.Helper()
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if ia.Bounds() != ib.Bounds() {
		t.Fatalf("sizes %v and %v", ia.Bounds(), ib.Bounds())
	}
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if d := chanDiff(ia, ib, x, y); d > 0 {
				n++
				most = max(most, d)
			}
		}
	}
	return n, most
}

// offFringe reports whether every pixel that differs between PNGs a and b
// lies within d pixels (horizontally, vertically or diagonally) of a pixel
// that is inked (a channel below 200: darker than the grid) and the same in
// both; else it returns the first pixel that does not.
func offFringe(t *testing.T, a, b []byte, d int) (x, y int, ok bool) {
	t.Helper()
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r := ia.Bounds()
	shared := func(x, y int) bool {
		if !(image.Point{x, y}).In(r) || chanDiff(ia, ib, x, y) != 0 {
			return false
		}
		cr, cg, cb, _ := ia.At(x, y).RGBA()
		return min(cr, cg, cb)>>8 < 200
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if chanDiff(ia, ib, x, y) == 0 {
				continue
			}
			near := false
			for dy := -d; dy <= d && !near; dy++ {
				for dx := -d; dx <= d && !near; dx++ {
					near = shared(x+dx, y+dy)
				}
			}
			if !near {
				return x, y, false
			}
		}
	}
	return 0, 0, true
}

func chanDiff(a, b image.Image, x, y int) int {
	r1, g1, b1, _ := a.At(x, y).RGBA()
	r2, g2, b2, _ := b.At(x, y).RGBA()
	d := func(u, v uint32) int { return int(max(u, v)-min(u, v)) >> 8 }
	return max(d(r1, r2), d(g1, g2), d(b1, b2))
}

// TestReducedFigures: figures of a 200 000-segment connection drawn from
// the series reduced per device column (M4 for the lines, overlapping bars
// merged), against the same figures drawn point by point, one stroke on
// another (reduceAbove = MaxInt: how tcpviz drew them before). The line
// drawn is the same, but not every pixel: the raster backend (gonum's
// vgimg through gg and freetype's rasterizer) sums the coverage of the
// overlapping parts of one stroked path (non-zero winding, clamped per
// pixel) and lays separate strokes one over another, so where hundreds of
// vertices or bars share a column the stacked drawing's anti-aliased edge
// pixels come out darker than the edge of the one stroke the reduced
// drawing makes of them. The bound, measured here: every differing pixel
// lies within 2 pixels of ink the two drawings share (the fringe of the
// same line; nothing missing or added), and at most 0.6 % of the pixels
// differ (2 700, 3 091 and 2 866 of 945 × 591, by up to 221 of 255 in one
// channel). Where a column holds at most two vertices of a line and no
// overlapping bars, no pixel differs (TestReducedLossless). Every
// retransmission stays a mark of its own (TestMergeBars).
func TestReducedFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("draws 200 000 segments several times")
	}
	r := bulkConn(200_000)
	var x, ack, edge []float64
	for _, a := range r.Series.Acks[0] {
		x = append(x, a.Time.Sub(r.Conn.First).Seconds())
		ack, edge = append(ack, float64(a.Ack)), append(edge, float64(a.Ack+a.Window))
	}
	// An RTT cloud: 100 000 samples around 40 ms with a tail, and the
	// rings of a second method over them.
	rng := rand.New(rand.NewPCG(5, 6))
	var rx, ry, tx, ty []float64
	for i := range 100_000 {
		rx = append(rx, float64(i)*1e-3)
		ry = append(ry, 0.040+0.004*rng.NormFloat64()+0.02*rng.ExpFloat64()*float64(i%50/49))
		if i%3 == 0 {
			tx, ty = append(tx, float64(i)*1e-3), append(ty, 0.041+0.003*rng.NormFloat64())
		}
	}
	for _, tt := range []struct {
		name string
		fig  func() (Figure, error)
	}{
		{"xy-scatter", func() (Figure, error) {
			return XY(XYSpec{Title: "rtt", X: Axis{Label: "time", Unit: UnitSeconds}, Y: Axis{Label: "RTT", Unit: UnitSeconds},
				Series: []Named{{Name: "ack", X: rx, Y: ry, Scatter: true, Mark: MarkDot}, {Name: "ts", X: tx, Y: ty, Scatter: true, Mark: MarkRing}}})
		}},
		{"timeseq", func() (Figure, error) { return TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB, Run: "synthetic"}) }},
		{"timeseq-zoom", func() (Figure, error) {
			return TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB, Run: "synthetic", From: 2 * time.Second, To: 4 * time.Second})
		}},
		{"xy-steps", func() (Figure, error) {
			return XY(XYSpec{Title: "steps", X: Axis{Label: "time", Unit: UnitSeconds}, Y: Axis{Label: "bytes", Unit: UnitBytes},
				Series: []Named{{Name: "ack", X: x, Y: ack, Step: true}, {Name: "ack + rwnd", X: x, Y: edge, Step: true}}})
		}},
	} {
		stacked, reduced := render(t, tt.fig, true), render(t, tt.fig, false)
		n, most := pixelDiff(t, stacked, reduced)
		t.Logf("%s: %d pixels differ between the stacked and the reduced drawing, by up to %d of 255", tt.name, n, most)
		if dir := os.Getenv("TCPVIZ_REDUCE_OUT"); dir != "" {
			os.WriteFile(filepath.Join(dir, tt.name+"-full.png"), stacked, 0o644)
			os.WriteFile(filepath.Join(dir, tt.name+"-reduced.png"), reduced, 0o644)
		}
		if n > 3351 { // 0.6 % of the 945 × 591 pixels
			t.Errorf("%s: %d pixels differ, want at most 3 351 (0.6 %%)", tt.name, n)
		}
		if x, y, ok := offFringe(t, stacked, reduced, 2); !ok {
			t.Errorf("%s: pixel (%d, %d) differs more than 2 pixels away from ink both drawings share", tt.name, x, y)
		}
	}
}

// TestM4Stream: per column, the first, lowest (first of equals), highest
// and last vertex, in their order, each once.
func TestM4Stream(t *testing.T) {
	pt := func(x, y vg.Length) vg.Point { return vg.Point{X: x, Y: y} }
	for _, tt := range []struct {
		in, want []vg.Point
	}{
		{[]vg.Point{pt(0.1, 5), pt(0.2, 1), pt(0.3, 9), pt(0.4, 4), pt(1.5, 2)},
			[]vg.Point{pt(0.1, 5), pt(0.2, 1), pt(0.3, 9), pt(0.4, 4), pt(1.5, 2)}},
		{[]vg.Point{pt(0.1, 5), pt(0.2, 9), pt(0.25, 7), pt(0.3, 1), pt(0.4, 1), pt(0.5, 3)},
			[]vg.Point{pt(0.1, 5), pt(0.2, 9), pt(0.3, 1), pt(0.5, 3)}},
		{[]vg.Point{pt(0.1, 1), pt(0.2, 5), pt(0.3, 5), pt(2.1, 0), pt(2.2, 0)},
			[]vg.Point{pt(0.1, 1), pt(0.2, 5), pt(0.3, 5), pt(2.1, 0), pt(2.2, 0)}},
		{[]vg.Point{pt(0.5, 3)}, []vg.Point{pt(0.5, 3)}},
	} {
		m := m4Stream{w: 1}
		for _, p := range tt.in {
			m.add(p)
		}
		m.flush()
		if !slices.Equal(m.out, tt.want) {
			t.Errorf("m4 of %v = %v, want %v", tt.in, m.out, tt.want)
		}
	}
}

// TestMergeBars: bars of one device column are merged where they overlap
// or touch, and only there.
func TestMergeBars(t *testing.T) {
	got := mergeBars([]devBar{{1, 10, 12}, {2, 0, 1}, {3, 11, 15}, {4, 1, 2}, {5, 20, 21}})
	want := []devBar{{2, 0, 2}, {1, 10, 15}, {5, 20, 21}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// BenchmarkTimeSeq is the plot stage of 'tcpviz seq -o x.png' for a
// 200 000-segment connection: the figure built and drawn, reduced per
// device column (reduced) and one mark on another (stacked).
func BenchmarkTimeSeq(b *testing.B) {
	r := bulkConn(200_000)
	for _, name := range []string{"reduced", "stacked"} {
		b.Run(name, func(b *testing.B) {
			if name == "stacked" {
				defer func(n int) { reduceAbove = n }(reduceAbove)
				reduceAbove = math.MaxInt
			}
			b.ReportAllocs()
			for b.Loop() {
				f, err := TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB})
				if err != nil {
					b.Fatal(err)
				}
				if err := f.Save(io.Discard, "png"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkXYSteps is the plot stage of 'tcpviz window -o x.png': three
// step series of 1 000 000 points drawn on one set of axes.
func BenchmarkXYSteps(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, n)
	ys := make([][]float64, 3)
	for k := range ys {
		ys[k] = make([]float64, n)
		v := 1e5
		for i := range n {
			x[i] = float64(i) * 1e-5
			v = max(0, v+float64(rng.IntN(2001)-1000))
			ys[k][i] = v
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		var ss []Named
		for k, y := range ys {
			ss = append(ss, Named{Name: fmt.Sprint(k), X: x, Y: y, Step: true})
		}
		f, err := XY(XYSpec{Title: "steps", X: Axis{Label: "time", Unit: UnitSeconds}, Y: Axis{Label: "bytes", Unit: UnitBytes}, Series: ss})
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Save(io.Discard, "png"); err != nil {
			b.Fatal(err)
		}
	}
}
