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
// reduced figure draws each column's marks once. That is also why it is not
// pixel for pixel the figure drawn from every point where columns are
// dense: at most 0.6 % of the pixels differ, all on the edge of the line
// (TestReducedFigures, docs/performance.md#series-commands); where a column
// holds at most two vertices and no overlapping bars, none
// (TestReducedLossless).

// reduceAbove is the number of points (or bars) up to which a series is
// drawn point by point, one stroke on another, as it always was; larger
// ones are reduced per device column. Tests set it to math.MaxInt to draw
// each point.
var reduceAbove = 4096

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
// device column (m4) when it has more than reduceAbove points; its steps
// (PostStep) are made explicit first. It draws no fill.
type reducedLine struct {
	*plotter.Line
	boxes    []gplot.GlyphBox // as xyLine's
	boxesFor [4]float64
}

// Plot implements gplot.Plotter.
func (l *reducedLine) Plot(c draw.Canvas, plt *gplot.Plot) {
	if len(l.XYs) <= reduceAbove || l.FillColor != nil || (l.StepStyle != plotter.NoStep && l.StepStyle != plotter.PostStep) {
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
	strokeClipped(c, l.LineStyle, ps)
}

// GlyphBoxes implements gplot.GlyphBoxer: of the boxes plotter.Line
// gives (one per point, all of one size), the ones that can decide the
// plot's padding — within the axes, the leftmost, rightmost, lowest and
// highest — instead of a million.
func (l *reducedLine) GlyphBoxes(plt *gplot.Plot) []gplot.GlyphBox {
	axes := [4]float64{plt.X.Min, plt.X.Max, plt.Y.Min, plt.Y.Max}
	if l.boxes == nil || axes != l.boxesFor {
		if l.boxes = extremeBoxes(plt, l.LineStyle.Width, len(l.XYs), l.XYs.XY); l.boxes == nil {
			l.boxes = []gplot.GlyphBox{}
		}
		l.boxesFor = axes
	}
	return l.boxes
}

// extremeBoxes are the glyph boxes of a line's n points (xy gives them),
// of the size plotter.Line gives each, that can decide the padding:
// within the axes, the leftmost, rightmost, lowest and highest.
func extremeBoxes(plt *gplot.Plot, width vg.Length, n int, xy func(int) (float64, float64)) []gplot.GlyphBox {
	r := 0.5 * width
	rect := vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}
	var ext [4]gplot.GlyphBox // min x, max x, min y, max y
	found := false
	for i := 0; i < n; i++ {
		x, y := xy(i)
		b := gplot.GlyphBox{X: plt.X.Norm(x), Y: plt.Y.Norm(y), Rectangle: rect}
		if r > 0 && (b.X < 0 || b.X > 1 || b.Y < 0 || b.Y > 1) {
			continue // Plot.GlyphBoxes leaves these out
		}
		if !found {
			ext, found = [4]gplot.GlyphBox{b, b, b, b}, true
		}
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
	if !found {
		return nil
	}
	return ext[:]
}

// xyLine is a line (or post-step line) of an XY figure drawn from the
// series' own X and Y (no copy of a million points), without NaN or
// infinite values (a part splitGaps cut); above reduceAbove points it is
// drawn per device column (m4), steps made explicit first.
type xyLine struct {
	x, y  []float64
	step  bool
	style draw.LineStyle
	// boxes are the glyph boxes last computed, for the axes in boxesFor
	// (gonum asks several times per drawing).
	boxes    []gplot.GlyphBox
	boxesFor [4]float64
}

// line is l as a plotter.Line, its points copied.
func (l *xyLine) line() *plotter.Line {
	ln := &plotter.Line{XYs: make(plotter.XYs, len(l.x)), LineStyle: l.style}
	for i := range l.x {
		ln.XYs[i] = plotter.XY{X: l.x[i], Y: l.y[i]}
	}
	if l.step {
		ln.StepStyle = plotter.PostStep
	}
	return ln
}

// Plot implements gplot.Plotter.
func (l *xyLine) Plot(c draw.Canvas, plt *gplot.Plot) {
	if len(l.x) <= reduceAbove {
		l.line().Plot(c, plt)
		return
	}
	trX, trY := plt.Transforms(&c)
	w := columnWidth(c)
	// m4 over the device vertices, one column at a time: the first, lowest,
	// highest and last vertex of each run in one column, in their order.
	var out, col []vg.Point
	flush := func() {
		if len(col) == 0 {
			return
		}
		out = append(out, m4(col, w)...)
		col = col[:0]
	}
	add := func(p vg.Point) {
		if len(col) > 0 && math.Floor(float64(col[0].X/w)) != math.Floor(float64(p.X/w)) {
			flush()
		}
		col = append(col, p)
	}
	var prev vg.Length
	for i := range l.x {
		x, y := trX(l.x[i]), trY(l.y[i])
		if l.step && i > 0 {
			add(vg.Point{X: x, Y: prev})
		}
		add(vg.Point{X: x, Y: y})
		prev = y
	}
	flush()
	if l.style.Width == 0 {
		return
	}
	strokeClipped(c, l.style, out)
}

// strokeClipped draws the polyline ps with style st, clipped to the canvas.
func strokeClipped(c draw.Canvas, st draw.LineStyle, ps []vg.Point) {
	c.SetLineStyle(st)
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

// DataRange implements gplot.DataRanger.
func (l *xyLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range l.x {
		xmin, xmax = math.Min(xmin, l.x[i]), math.Max(xmax, l.x[i])
		ymin, ymax = math.Min(ymin, l.y[i]), math.Max(ymax, l.y[i])
	}
	return
}

// GlyphBoxes implements gplot.GlyphBoxer, as reducedLine's.
func (l *xyLine) GlyphBoxes(plt *gplot.Plot) []gplot.GlyphBox {
	axes := [4]float64{plt.X.Min, plt.X.Max, plt.Y.Min, plt.Y.Max}
	if l.boxes == nil || axes != l.boxesFor {
		l.boxes = extremeBoxes(plt, l.style.Width, len(l.x), func(i int) (float64, float64) { return l.x[i], l.y[i] })
		if l.boxes == nil {
			l.boxes = []gplot.GlyphBox{}
		}
		l.boxesFor = axes
	}
	return l.boxes
}

// Thumbnail implements gplot.Thumbnailer: a line as plotter.Line draws it.
func (l *xyLine) Thumbnail(c *draw.Canvas) { (&plotter.Line{LineStyle: l.style}).Thumbnail(c) }

// xys adapts two slices to plotter.XYer.
type xys struct{ x, y []float64 }

func (p xys) Len() int                    { return len(p.x) }
func (p xys) XY(i int) (float64, float64) { return p.x[i], p.y[i] }
