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
	if dpi, ok := rasterDPI(c); ok {
		return vg.Inch / vg.Length(dpi)
	}
	return vg.Points(0.25)
}

// rasterDPI returns the resolution of the raster canvas under c, and
// false for a vector one. gonum hands a plotter a draw.Canvas wrapping
// another (the panel's crop of the figure's), so the raster canvas is
// looked for through the wrappers: asked of c.Canvas alone, every canvas
// looked like a vector one.
func rasterDPI(c draw.Canvas) (float64, bool) {
	if x, ok := underCanvas(c).(interface{ DPI() float64 }); ok {
		return x.DPI(), x.DPI() > 0
	}
	return 0, false
}

// underCanvas is the vg.Canvas under c's draw.Canvas wrappers.
func underCanvas(c draw.Canvas) vg.Canvas {
	v := c.Canvas
	for {
		switch x := v.(type) {
		case draw.Canvas:
			v = x.Canvas
		case *draw.Canvas:
			v = x.Canvas
		default:
			return v
		}
	}
}

// m4Stream reduces a polyline's device points, fed one at a time, per
// column of width w to the first, lowest, highest and last vertex of each
// run of vertices in one column, in their order (M4). It holds only the
// current column's four (their positions in the column decide their
// order), so a million points need no slice of a million device points.
type m4Stream struct {
	w   vg.Length
	out []vg.Point
	col float64 // the current column's index (floor(X/w))
	n   int     // vertices in it so far
	// the column's first, lowest and highest vertex and their positions
	// in it (the first lowest and first highest, as m4 keeps); last is
	// its latest
	first, lo, hi, last vg.Point
	iLo, iHi            int
}

func (m *m4Stream) add(p vg.Point) {
	col := math.Floor(float64(p.X / m.w))
	if m.n > 0 && col != m.col {
		m.flush()
	}
	if m.n == 0 {
		m.col, m.first, m.lo, m.hi, m.iLo, m.iHi = col, p, p, p, 0, 0
	} else {
		if p.Y < m.lo.Y {
			m.lo, m.iLo = p, m.n
		}
		if p.Y > m.hi.Y {
			m.hi, m.iHi = p, m.n
		}
	}
	m.last = p
	m.n++
}

// flush ends the current column: its kept vertices in their order, each
// once.
func (m *m4Stream) flush() {
	if m.n == 0 {
		return
	}
	type at struct {
		i int
		p vg.Point
	}
	v := [4]at{{0, m.first}, {m.iLo, m.lo}, {m.iHi, m.hi}, {m.n - 1, m.last}}
	slices.SortFunc(v[:], func(a, b at) int { return a.i - b.i })
	for k := range v {
		if k == 0 || v[k].i != v[k-1].i {
			m.out = append(m.out, v[k].p)
		}
	}
	m.n = 0
}

// linearMap is one axis's data-to-device map for a linear scale, with the
// arithmetic of gonum's Plot.Transforms (Axis.Norm, then Canvas.X or Y)
// but without an interface call and a copy of the Axis per point.
type linearMap struct {
	min, den     float64
	span, origin vg.Length
}

func (m linearMap) at(v float64) vg.Length { return vg.Length((v-m.min)/m.den)*m.span + m.origin }

// transforms returns the data-to-device maps of plt on c: the linear maps
// when both axes are linear (every figure of this package), else gonum's
// own.
func transforms(c *draw.Canvas, plt *gplot.Plot) (trX, trY func(float64) vg.Length) {
	if isLinear(plt.X.Scale) && isLinear(plt.Y.Scale) {
		mx := linearMap{plt.X.Min, plt.X.Max - plt.X.Min, c.Max.X - c.Min.X, c.Min.X}
		my := linearMap{plt.Y.Min, plt.Y.Max - plt.Y.Min, c.Max.Y - c.Min.Y, c.Min.Y}
		return mx.at, my.at
	}
	return plt.Transforms(c)
}

func isLinear(n gplot.Normalizer) bool {
	switch n.(type) {
	case gplot.LinearScale, *gplot.LinearScale:
		return true
	}
	return false
}

// reducedLine is a plotter.Line drawn from its device points reduced per
// device column (m4) when it has more than reduceAbove points; its steps
// (PostStep) are made explicit first. It draws no fill.
type reducedLine struct {
	*plotter.Line
	boxes    []gplot.GlyphBox // as xyLine's
	boxesFor [4]float64
	ext      *extremes
}

// Plot implements gplot.Plotter.
func (l *reducedLine) Plot(c draw.Canvas, plt *gplot.Plot) {
	if len(l.XYs) <= reduceAbove || l.FillColor != nil || (l.StepStyle != plotter.NoStep && l.StepStyle != plotter.PostStep) {
		l.Line.Plot(c, plt)
		return
	}
	trX, trY := transforms(&c, plt)
	m := m4Stream{w: columnWidth(c)}
	var prev vg.Length
	for i, p := range l.XYs {
		x, y := trX(p.X), trY(p.Y)
		if i > 0 && l.StepStyle == plotter.PostStep {
			m.add(vg.Point{X: x, Y: prev})
		}
		m.add(vg.Point{X: x, Y: y})
		prev = y
	}
	m.flush()
	if l.LineStyle.Width == 0 {
		return
	}
	strokeClipped(c, l.LineStyle, m.out)
}

// lineOf is plotter.NewLine without its copy of the points (two 400 k-point
// lines of a bulk seq figure: 13 MB and 0.02 s): the line holds xys, which
// the caller leaves as they are. Errors: plotter.CheckFloats' for a NaN or
// infinite point, as NewLine's.
func lineOf(xys plotter.XYs) (*plotter.Line, error) {
	for _, p := range xys {
		if err := plotter.CheckFloats(p.X, p.Y); err != nil {
			return nil, err
		}
	}
	return &plotter.Line{XYs: xys, LineStyle: plotter.DefaultLineStyle}, nil
}

// DataRange implements gplot.DataRanger: plotter.Line's, from the
// extremes GlyphBoxes uses too (one pass over the points for both,
// without math.Min's NaN checks: the points are finite, lineOf).
func (l *reducedLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	if l.ext == nil {
		l.ext = extremesOf(len(l.XYs), l.XYs.XY)
	}
	return l.ext.lo[0], l.ext.hi[0], l.ext.lo[1], l.ext.hi[1]
}

// GlyphBoxes implements gplot.GlyphBoxer: of the boxes plotter.Line
// gives (one per point, all of one size), the ones that can decide the
// plot's padding — within the axes, the leftmost, rightmost, lowest and
// highest — instead of a million.
func (l *reducedLine) GlyphBoxes(plt *gplot.Plot) []gplot.GlyphBox {
	axes := [4]float64{plt.X.Min, plt.X.Max, plt.Y.Min, plt.Y.Max}
	if l.boxes == nil || axes != l.boxesFor {
		if l.ext == nil {
			l.ext = extremesOf(len(l.XYs), l.XYs.XY)
		}
		if l.boxes = extremeBoxes(plt, l.LineStyle.Width, len(l.XYs), l.XYs.XY, l.ext); l.boxes == nil {
			l.boxes = []gplot.GlyphBox{}
		}
		l.boxesFor = axes
	}
	return l.boxes
}

// extremes are a line's data range (lo and hi of x, then of y) and the
// first points that reach it (at: min x, max x, min y, max y), without
// NaN. n == 0: lo +Inf, hi −Inf, at −1.
type extremes struct {
	lo, hi [2]float64
	at     [4]int
}

// extremesOf computes the extremes of n points (xy gives them).
func extremesOf(n int, xy func(int) (float64, float64)) *extremes {
	e := &extremes{lo: [2]float64{math.Inf(1), math.Inf(1)}, hi: [2]float64{math.Inf(-1), math.Inf(-1)}, at: [4]int{-1, -1, -1, -1}}
	for i := 0; i < n; i++ {
		x, y := xy(i)
		if x < e.lo[0] || e.at[0] < 0 && x == e.lo[0] {
			e.lo[0], e.at[0] = x, i
		}
		if x > e.hi[0] || e.at[1] < 0 && x == e.hi[0] {
			e.hi[0], e.at[1] = x, i
		}
		if y < e.lo[1] || e.at[2] < 0 && y == e.lo[1] {
			e.lo[1], e.at[2] = y, i
		}
		if y > e.hi[1] || e.at[3] < 0 && y == e.hi[1] {
			e.hi[1], e.at[3] = y, i
		}
	}
	return e
}

// extremeBoxes are the glyph boxes of a line's n points (xy gives them),
// of the size plotter.Line gives each, that can decide the padding:
// within the axes, the leftmost, rightmost, lowest and highest. When the
// axes hold every point (e, the line's extremes, say so) these are the
// boxes of the four extreme points, found without visiting the others.
func extremeBoxes(plt *gplot.Plot, width vg.Length, n int, xy func(int) (float64, float64), e *extremes) []gplot.GlyphBox {
	r := 0.5 * width
	rect := vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}
	var ext [4]gplot.GlyphBox // min x, max x, min y, max y
	found := false
	if e != nil && e.at[0] >= 0 && isLinear(plt.X.Scale) && isLinear(plt.Y.Scale) &&
		e.lo[0] >= plt.X.Min && e.hi[0] <= plt.X.Max && e.lo[1] >= plt.Y.Min && e.hi[1] <= plt.Y.Max {
		for k, i := range e.at {
			x, y := xy(i)
			ext[k] = gplot.GlyphBox{X: plt.X.Norm(x), Y: plt.Y.Norm(y), Rectangle: rect}
		}
		return ext[:]
	}
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
	ext      *extremes
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
	trX, trY := transforms(&c, plt)
	// m4 over the device vertices, one column at a time: the first, lowest,
	// highest and last vertex of each run in one column, in their order.
	m := m4Stream{w: columnWidth(c)}
	var prev vg.Length
	for i := range l.x {
		x, y := trX(l.x[i]), trY(l.y[i])
		if l.step && i > 0 {
			m.add(vg.Point{X: x, Y: prev})
		}
		m.add(vg.Point{X: x, Y: y})
		prev = y
	}
	m.flush()
	if l.style.Width == 0 {
		return
	}
	strokeClipped(c, l.style, m.out)
}

// reduceScatterAbove is the number of points up to which a scatter is
// drawn point by point (and reduceAbove, when larger: tests). Glyphs cost
// about 7 µs each, so below it reducing saves little, and a figure of
// a few thousand samples stays the one drawn before.
var reduceScatterAbove = 1 << 16

// reducedScatter is a plotter.Scatter of one glyph style. Above
// reduceScatterAbove points it draws, per cell of a quarter device column
// square, the glyph of the first point whose centre falls in it, at that
// point's own position, in the points' order: a glyph drawn a hundred
// times within a quarter pixel of itself looks the same drawn once (the
// rest only darken its anti-aliased edge, as with lines). RTT samples of
// a million-segment connection: 6.7 s and 192 MB drawn point by point.
// Its glyph boxes are those of the extreme points (extremeBoxes).
type reducedScatter struct {
	*plotter.Scatter
	boxes    []gplot.GlyphBox
	boxesFor [4]float64
	ext      *extremes
}

// Plot implements gplot.Plotter.
func (s *reducedScatter) Plot(c draw.Canvas, plt *gplot.Plot) {
	if len(s.XYs) <= max(reduceAbove, reduceScatterAbove) || s.GlyphStyleFunc != nil {
		s.Scatter.Plot(c, plt)
		return
	}
	trX, trY := transforms(&c, plt)
	q := float64(columnWidth(c) / 4)
	seen := make(map[[2]int64]struct{}, 1<<12)
	for _, p := range s.XYs {
		pt := vg.Point{X: trX(p.X), Y: trY(p.Y)}
		if !c.Contains(pt) {
			continue // DrawGlyph would not draw it
		}
		k := [2]int64{int64(math.Floor(float64(pt.X) / q)), int64(math.Floor(float64(pt.Y) / q))}
		if _, ok := seen[k]; ok {
			continue
		}
		seen[k] = struct{}{}
		c.DrawGlyph(s.GlyphStyle, pt)
	}
}

// GlyphBoxes implements gplot.GlyphBoxer as reducedLine's: every glyph
// has the same box, so the extreme points' decide the padding.
func (s *reducedScatter) GlyphBoxes(plt *gplot.Plot) []gplot.GlyphBox {
	if s.GlyphStyleFunc != nil {
		return s.Scatter.GlyphBoxes(plt)
	}
	axes := [4]float64{plt.X.Min, plt.X.Max, plt.Y.Min, plt.Y.Max}
	if s.boxes == nil || axes != s.boxesFor {
		if s.ext == nil {
			s.ext = extremesOf(len(s.XYs), s.XYs.XY)
		}
		if s.boxes = extremeBoxes(plt, 2*s.GlyphStyle.Radius, len(s.XYs), s.XYs.XY, s.ext); s.boxes == nil {
			s.boxes = []gplot.GlyphBox{}
		}
		s.boxesFor = axes
	}
	return s.boxes
}

// DataRange implements gplot.DataRanger.
func (s *reducedScatter) DataRange() (xmin, xmax, ymin, ymax float64) {
	if s.ext == nil {
		s.ext = extremesOf(len(s.XYs), s.XYs.XY)
	}
	return s.ext.lo[0], s.ext.hi[0], s.ext.lo[1], s.ext.hi[1]
}

// strokeClipped draws the polyline ps with style st, clipped to the canvas.
func strokeClipped(c draw.Canvas, st draw.LineStyle, ps []vg.Point) {
	c.SetLineStyle(st)
	fast := pngUnder(c)
	for _, ln := range c.ClipLinesXY(ps) {
		if len(ln) == 0 || fast != nil && fast.strokeLine(st, ln) {
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
	e := l.extremes()
	return e.lo[0], e.hi[0], e.lo[1], e.hi[1]
}

// extremes returns (computing them once) the line's data range and where
// it is reached.
func (l *xyLine) extremes() *extremes {
	if l.ext == nil {
		l.ext = extremesOf(len(l.x), func(i int) (float64, float64) { return l.x[i], l.y[i] })
	}
	return l.ext
}

// GlyphBoxes implements gplot.GlyphBoxer, as reducedLine's.
func (l *xyLine) GlyphBoxes(plt *gplot.Plot) []gplot.GlyphBox {
	axes := [4]float64{plt.X.Min, plt.X.Max, plt.Y.Min, plt.Y.Max}
	if l.boxes == nil || axes != l.boxesFor {
		l.boxes = extremeBoxes(plt, l.style.Width, len(l.x), func(i int) (float64, float64) { return l.x[i], l.y[i] }, l.extremes())
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
