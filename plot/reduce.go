package plot

import (
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A connection of a million segments gives a series of a million points,
// but a figure has about a thousand pixel columns: drawing every point
// costs seconds and hundreds of megabytes and shows nothing more. Series
// are therefore reduced to the figure's resolution (docs/performance.md):
//
//   - lines (and step lines, their steps made explicit) keep, per column,
//     the first, lowest, highest and last vertex in their order (the M4
//     aggregation of Jugel et al., VLDB 2014): the line enters and leaves
//     each column where it did and spans the same values in it;
//   - vertical bars (segments, SACK blocks) of one kind are merged per
//     column where their extents overlap; bars that do not overlap stay
//     apart, so every retransmission, out-of-order segment and SACK block
//     remains a mark of its own.
//
// A device column is one pixel of a PNG and a quarter point of SVG and PDF.
// Marks of one kind drawn one on top of another would add up their
// anti-aliased edges (a dense line looked bolder than a sparse one); the
// reduced figure draws each column's marks once.

// ReduceAbove is the number of points (or bars) up to which a series is
// drawn point by point, one stroke on another, as it always was; larger
// ones are reduced per device column. Tests set it to math.MaxInt to draw
// each point.
var ReduceAbove = 4096

// columnWidth is the width of one device column of c: a pixel on a raster
// canvas, a quarter point on a vector one.
func columnWidth(c draw.Canvas) vg.Length {
	if d, ok := c.Canvas.(interface{ DPI() float64 }); ok && d.DPI() > 0 {
		return vg.Inch / vg.Length(d.DPI())
	}
	return vg.Points(0.25)
}

// m4 reduces device points (a polyline) per column of width w to the
// first, lowest, highest and last vertex of each run of vertices in one
// column, in their order.
func m4(ps []vg.Point, w vg.Length) []vg.Point {
	out := ps[:0:0]
	for i := 0; i < len(ps); {
		col := math.Floor(float64(ps[i].X / w))
		lo, hi, j := i, i, i+1
		for j < len(ps) && math.Floor(float64(ps[j].X/w)) == col {
			if ps[j].Y < ps[lo].Y {
				lo = j
			}
			if ps[j].Y > ps[hi].Y {
				hi = j
			}
			j++
		}
		idx := [4]int{i, lo, hi, j - 1}
		slices.Sort(idx[:])
		for k, v := range idx {
			if k == 0 || v != idx[k-1] {
				out = append(out, ps[v])
			}
		}
		i = j
	}
	return out
}

// reducedLine is a plotter.Line drawn from its device points reduced per
// device column (m4) when it has more than ReduceAbove points; its steps
// (PostStep) are made explicit first. It draws no fill.
type reducedLine struct {
	*plotter.Line
}

// Plot implements gplot.Plotter.
func (l reducedLine) Plot(c draw.Canvas, plt *gplot.Plot) {
	if len(l.XYs) <= ReduceAbove || l.FillColor != nil || (l.StepStyle != plotter.NoStep && l.StepStyle != plotter.PostStep) {
		l.Line.Plot(c, plt)
		return
	}
	trX, trY := plt.Transforms(&c)
	n := len(l.XYs)
	if l.StepStyle == plotter.PostStep {
		n = 2*n - 1
	}
	ps := make([]vg.Point, 0, n)
	for i, p := range l.XYs {
		x, y := trX(p.X), trY(p.Y)
		if i > 0 && l.StepStyle == plotter.PostStep {
			ps = append(ps, vg.Point{X: x, Y: ps[len(ps)-1].Y})
		}
		ps = append(ps, vg.Point{X: x, Y: y})
	}
	ps = m4(ps, columnWidth(c))
	if l.LineStyle.Width == 0 {
		return
	}
	c.SetLineStyle(l.LineStyle)
	for _, ln := range c.ClipLinesXY(ps) {
		if len(ln) == 0 {
			continue
		}
		var p vg.Path
		p.Move(ln[0])
		for _, pt := range ln[1:] {
			p.Line(pt)
		}
		c.Stroke(p)
	}
}

// GlyphBoxes implements gplot.GlyphBoxer: of the boxes plotter.Line
// gives (one per point, all of one size), the ones that can decide the
// plot's padding — within the axes, the leftmost, rightmost, lowest and
// highest — instead of a million.
func (l reducedLine) GlyphBoxes(plt *gplot.Plot) []gplot.GlyphBox {
	r := 0.5 * l.LineStyle.Width
	rect := vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}
	var ext [4]gplot.GlyphBox // min x, max x, min y, max y
	n := 0
	for _, p := range l.XYs {
		b := gplot.GlyphBox{X: plt.X.Norm(p.X), Y: plt.Y.Norm(p.Y), Rectangle: rect}
		if r > 0 && (b.X < 0 || b.X > 1 || b.Y < 0 || b.Y > 1) {
			continue // Plot.GlyphBoxes leaves these out
		}
		if n == 0 {
			ext = [4]gplot.GlyphBox{b, b, b, b}
		}
		n++
		if b.X < ext[0].X {
			ext[0] = b
		}
		if b.X > ext[1].X {
			ext[1] = b
		}
		if b.Y < ext[2].Y {
			ext[2] = b
		}
		if b.Y > ext[3].Y {
			ext[3] = b
		}
	}
	if n == 0 {
		return nil
	}
	return ext[:]
}
