package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Named is one series of an XY figure: X and Y of equal length, in the
// units of the figure's axes. Points with NaN in Y are gaps (the series is
// split there).
type Named struct {
	Name    string
	X, Y    []float64
	Scatter bool // draw points instead of a line
	Mark    Mark // the points' glyph when Scatter
	Step    bool // draw a step line (value holds until the next point)
	// Dashed draws the line dashed, in the legend too: give several
	// kinds of one run (sent, delivered) the run's Color and tell the
	// kinds apart by Dashed.
	Dashed bool
	// Wide draws the line about twice as wide (in the legend
	// too): given to a series drawn before another that may lie on it
	// (the receive window under the bytes in flight at a zero window),
	// it shows as a band on both sides of the other.
	Wide bool
	// Color overrides the palette colour the series' position would give,
	// so a label keeps its colour across panels; nil uses the palette.
	Color color.Color
}

// Mark is the glyph of a scatter series; give series that may overlap
// different marks, so each stays visible where another covers it.
type Mark int

// Marks: filled circle (the default), then shapes that stay apart when
// drawn on top of each other.
const (
	MarkDot Mark = iota
	MarkRing
	MarkTriangle
	MarkSquare
	MarkCross
	MarkPlus
	MarkBox
)

// MarkOf returns the i-th of the marks, for series in a row.
func MarkOf(i int) Mark { return Mark(i % 7) }

func (m Mark) glyph() draw.GlyphDrawer {
	switch m {
	case MarkRing:
		return draw.RingGlyph{}
	case MarkTriangle:
		return draw.TriangleGlyph{}
	case MarkSquare:
		return draw.SquareGlyph{}
	case MarkCross:
		return draw.CrossGlyph{}
	case MarkPlus:
		return draw.PlusGlyph{}
	case MarkBox:
		return draw.BoxGlyph{}
	}
	return draw.CircleGlyph{}
}

// filled reports whether the mark is a filled shape (dot, box): those are
// drawn after the hollow ones and smaller (radius), so that where two
// series have a sample at one place — an ACK and a TSval RTT sample of one
// segment — the filled mark shows inside the hollow one instead of under
// it (trial13 B15).
func (m Mark) filled() bool { return m == MarkDot || m == MarkBox }

// radius is the mark's size in a scatter and its legend entry.
func (m Mark) radius() vg.Length {
	if m.filled() {
		return vg.Points(1.3)
	}
	return vg.Points(2)
}

// palette is a colour-blind-safe cycle (Okabe–Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255}, color.RGBA{213, 94, 0, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255}, color.RGBA{240, 228, 66, 255},
}

// Colour returns the i-th colour of the palette tcpviz uses for series and
// labels, so that a label keeps its colour across figures.
func Colour(i int) color.Color { return palette[i%len(palette)] }

// Colours of the series the window, rate and RTT figures draw, one per
// quantity wherever it is drawn: the interactive report (package report)
// draws the same series in the same colours, as it does the
// time-sequence graph's (ColData…) and, for event class i of
// tcpanalysis.Classes and compare's run i, Colour(i).
var (
	ColRwnd         = palette[0] // receive window
	ColInFlight     = palette[1] // bytes in flight, tshark's definition
	ColInFlightSACK = palette[2] // bytes in flight, SACK-aware
	ColThroughput   = palette[0] // throughput, retransmissions included
	ColGoodput      = palette[1] // goodput, or the bytes a PEP accepted
	ColRTTACK       = palette[0] // ACK-based RTT (Karn)
	ColRTTTS        = palette[1] // TSval/TSecr RTT
	ColRTTHandshake = palette[2] // handshake RTT
)

// Axis is one axis of an XY figure: its label without the unit, and the
// unit of the data; the figure adds the display unit chosen from the data
// ("RTT" + UnitMillis → "RTT (ms)" or "RTT (s)").
type Axis struct {
	Label string
	Unit  Unit
}

// XYSpec describes an XY figure.
type XYSpec struct {
	Title  string // names the run: label or file, connection, direction
	X, Y   Axis
	Series []Named
	// XFrom and XTo fix the x range (data units) when XTo > XFrom;
	// otherwise it runs from 0 (or the smallest x, if negative) to the
	// largest x.
	XFrom, XTo float64
	// Robust caps the y axis for long-tailed samples (RTTs): when the
	// largest value is more than 3 × the highest of the series' 98th
	// percentiles, the axis ends just above that and the points beyond it
	// are drawn as triangles on the top edge, counted in the legend.
	Robust bool
}

// XY draws the series of s on one set of axes, units and nice ticks
// (including 0) chosen from the data, the legend above the data listing
// what was drawn. It returns an error when a series has X and Y of
// different lengths.
func XY(s XYSpec) (Figure, error) {
	p, es, ab, err := panel(s, 0, nil)
	if err != nil {
		return Figure{}, err
	}
	if ab != nil {
		es = append(es, Entry{Name: ab.String(), Thumbs: []gplot.Thumbnailer{ab.thumb}})
	}
	return Figure{Title: s.Title, Panels: []*gplot.Plot{p}, Legend: es}, nil
}

// Grid draws each series of s in its own panel (small multiples), cols per
// row, all on the same x and y ranges; panel titles are the series names,
// so there is no legend; the axis labels are drawn once for all panels.
func Grid(s XYSpec, cols int) (Figure, error) {
	f := Figure{Title: s.Title, Cols: max(cols, 1)}
	lim := &limits{}
	*lim = dataLimitsIn(s.Series, s.XFrom, s.XTo)
	if s.Robust {
		lim.cap = robustCap(s.Series)
	}
	for i, se := range s.Series {
		one := s
		if se.Color == nil {
			se.Color = Colour(i)
		}
		se.Name = ""
		one.Series = []Named{se}
		p, _, ab, err := panel(one, 0, lim)
		if err != nil {
			return Figure{}, err
		}
		p.Title.Text = s.Series[i].Name
		// The axis labels are shared, drawn once (Figure.XLabel, YLabel).
		f.XLabel, f.YLabel = p.X.Label.Text, p.Y.Label.Text
		p.X.Label.Text, p.Y.Label.Text = "", ""
		if ab != nil {
			f.Legend = append(f.Legend, Entry{Name: s.Series[i].Name + ": " + ab.String(), Thumbs: []gplot.Thumbnailer{ab.thumb}})
		}
		f.Panels = append(f.Panels, p)
		// A panel draws something when a value is not 0 (tput's rule: a
		// connection that carried nothing draws a line at 0 at most).
		f.Drawn = f.Drawn || slices.ContainsFunc(se.Y, func(y float64) bool { return y != 0 && y-y == 0 })
	}
	return f, nil
}

// limits is the data range of a figure's series; cap, if positive, is
// where a robust y axis ends (XYSpec.Robust).
// hideTol is the fraction of a panel's y span (from 0) within which a
// line lies under an earlier one: half a line's width at the default size
// (the line covers all but a sliver of under a pixel of the other). A
// quarter (0.1 %) left bulk's tput throughput listed but unseen, 0.13 %
// off goodput (fresh-eyes trial, session 16).
const hideTol = 2e-3

type limits struct{ xlo, xhi, ylo, yhi, cap float64 }

func dataLimits(ss []Named) limits { return dataLimitsIn(ss, 0, 0) }

// dataLimitsIn is dataLimits of the points with x in [from, to] when
// to > from (a zoomed figure: y fits what is in view), of all otherwise.
func dataLimitsIn(ss []Named, from, to float64) limits {
	l := limits{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1), 0}
	ranged := to > from
	nanX := false
	for _, s := range ss {
		ys := s.Y[:len(s.X)]
		for i, x := range s.X {
			y := ys[i]
			if y-y != 0 { // NaN or ±Inf (Inf − Inf is NaN)
				continue
			}
			if ranged && (x < from || x > to) {
				continue
			}
			// math.Min and math.Max, point by point, without their calls:
			// a NaN x is settled after the loop, a zero's sign where it
			// meets an equal limit (TestDataLimitsInMatchesMinMax).
			if x != x {
				nanX = true
			}
			if x < l.xlo || x == l.xlo && math.Signbit(x) {
				l.xlo = x
			}
			if x > l.xhi || x == l.xhi && !math.Signbit(x) {
				l.xhi = x
			}
			if y < l.ylo || y == l.ylo && math.Signbit(y) {
				l.ylo = y
			}
			if y > l.yhi || y == l.yhi && !math.Signbit(y) {
				l.yhi = y
			}
		}
	}
	if nanX {
		// math.Min and math.Max return NaN for a NaN, except that an
		// infinity of their own direction wins.
		if !math.IsInf(l.xlo, -1) {
			l.xlo = math.NaN()
		}
		if !math.IsInf(l.xhi, 1) {
			l.xhi = math.NaN()
		}
	}
	if math.IsInf(l.xlo, 0) {
		l = limits{0, 1, 0, 1, 0}
	}
	return l
}

// panel draws one set of axes; first is the palette index of the first
// series; lim, if not nil, fixes the data range (shared axes).
func panel(s XYSpec, first int, lim *limits) (p *gplot.Plot, es []Entry, ab *aboveNote, err error) {
	p = gplot.New()
	p.Add(&grid{})
	for _, se := range s.Series {
		if len(se.X) != len(se.Y) {
			return nil, nil, nil, fmt.Errorf("series %q: %d x values, %d y values", se.Name, len(se.X), len(se.Y))
		}
	}
	l := dataLimitsIn(s.Series, s.XFrom, s.XTo)
	if lim != nil {
		l = *lim
	}
	// A series drawn over an earlier one would be listed but never
	// seen: it is not drawn, and the earlier entry names both, "a = b"
	// when equal, "a ≈ b" when a line differs from it by less than
	// hideTol of the y span only (tput's throughput with a one-byte
	// window probe in it, 0.4 kbit/s off goodput on a 1.2 Mbit/s axis).
	hidden := make([]bool, len(s.Series))
	names := make([]string, len(s.Series))
	for i, se := range s.Series {
		names[i] = se.Name
	}
	tol := hideTol * (max(l.yhi, 0) - min(l.ylo, 0))
	for j := range s.Series {
		for i := 0; i < j; i++ {
			a, b := s.Series[i], s.Series[j]
			if hidden[i] || a.Scatter != b.Scatter || len(b.X) == 0 || !slices.Equal(a.X, b.X) {
				continue
			}
			if slices.Equal(a.Y, b.Y) {
				hidden[j] = true
				names[i] += " = " + b.Name
				break
			}
			if !a.Scatter && a.Step == b.Step && tol > 0 && slices.EqualFunc(a.Y, b.Y, func(p, q float64) bool { return math.Abs(p-q) < tol }) {
				hidden[j] = true
				names[i] += " ≈ " + b.Name
				break
			}
		}
	}
	// The y range: robust for long tails.
	yhi := l.yhi
	var capped bool
	switch {
	case lim != nil && lim.cap > 0:
		yhi, capped = lim.cap, true
	case lim == nil && s.Robust:
		if c := robustCap(s.Series); c > 0 {
			yhi, capped = c, true
		}
	}
	// Adding a plotter widens the axes to its data: set them before (the
	// cap needs p.Y.Max) and again after the plotters are added.
	axes := func() {
		setAxis(&p.Y, s.Y.Label, s.Y.Unit, l.ylo, yhi, true, true)
		if s.XTo > s.XFrom {
			setAxis(&p.X, s.X.Label, s.X.Unit, s.XFrom, s.XTo, false, false)
		} else {
			setAxis(&p.X, s.X.Label, s.X.Unit, l.xlo, l.xhi, true, false)
		}
	}
	axes()
	var above plotter.XYs
	var aboveMax float64
	// Lines are drawn first, in order; then point series, hollow marks
	// before filled ones (Mark.filled), each the most numerous first, so a
	// rare class is never buried under a common one.
	type layer struct {
		ps          []gplot.Plotter
		n           int
		pts, filled bool
	}
	var layers []layer
	for i, se := range s.Series {
		if hidden[i] {
			continue
		}
		col := Colour(first + i)
		if se.Color != nil {
			col = se.Color
		}
		x, y := se.X, se.Y
		if capped {
			x, y = nil, nil
			for k := range se.X {
				if se.Y[k] > p.Y.Max {
					// Counted only inside the x range shown (a zoom).
					if s.XTo <= s.XFrom || (se.X[k] >= s.XFrom && se.X[k] <= s.XTo) {
						above = append(above, plotter.XY{X: se.X[k], Y: p.Y.Max})
						aboveMax = math.Max(aboveMax, se.Y[k])
					}
					continue
				}
				x, y = append(x, se.X[k]), append(y, se.Y[k])
			}
		}
		var thumb gplot.Thumbnailer
		ly := layer{n: len(x), pts: se.Scatter, filled: se.Mark.filled()}
		for _, part := range splitGaps(x, y) {
			px, py := x[part[0]:part[1]], y[part[0]:part[1]]
			if se.Scatter {
				sc, err := plotter.NewScatter(xys{px, py})
				if err != nil {
					return nil, nil, nil, err
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: se.Mark.radius(), Shape: se.Mark.glyph()}
				ly.ps = append(ly.ps, &reducedScatter{Scatter: sc}) // per quarter device column when many
				thumb = sc
				continue
			}
			ln := &xyLine{x: px, y: py, step: se.Step, style: draw.LineStyle{Color: col, Width: vg.Points(1.2)}}
			if se.Wide {
				ln.style.Width = vg.Points(2.6)
			}
			if se.Dashed {
				ln.style.Dashes = []vg.Length{vg.Points(4), vg.Points(2.5)}
			}
			ly.ps = append(ly.ps, ln) // per device column when long
			thumb = ln
		}
		layers = append(layers, ly)
		if s.XTo > s.XFrom && !inView(se, s.XFrom, s.XTo) {
			thumb = nil // drawn outside the view: not listed
		}
		if thumb != nil && names[i] != "" {
			es = append(es, Entry{Name: names[i], Thumbs: []gplot.Thumbnailer{thumb}})
		}
	}
	slices.SortStableFunc(layers, func(a, b layer) int {
		switch {
		case a.pts != b.pts:
			if a.pts {
				return 1
			}
			return -1
		case a.pts && a.filled != b.filled:
			if a.filled {
				return 1
			}
			return -1
		case a.pts:
			return b.n - a.n
		}
		return 0
	})
	for _, ly := range layers {
		p.Add(ly.ps...)
	}
	if len(above) > 0 {
		sc, err := plotter.NewScatter(above)
		if err != nil {
			return nil, nil, nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2), Shape: draw.TriangleGlyph{}}
		p.Add(&reducedScatter{Scatter: sc})
		sx := scaleFor(s.Y.Unit, aboveMax)
		ab = &aboveNote{n: len(above), max: strconv.FormatFloat(aboveMax/sx.Div, 'g', 3, 64) + " " + sx.Name, thumb: sc}
	}
	axes()
	return p, es, ab, nil
}

// inView reports whether se shows in the x range [from, to]: a point in
// it, or for a step line a value holding into it.
func inView(se Named, from, to float64) bool {
	for i, x := range se.X {
		if math.IsNaN(se.Y[i]) {
			continue
		}
		if x >= from && x <= to {
			return true
		}
		if se.Step && x < from && i+1 < len(se.X) && se.X[i+1] > from {
			return true
		}
	}
	return false
}

// aboveNote counts the points a robust axis left above its top, drawn as
// triangles on the edge (thumb).
type aboveNote struct {
	n     int
	max   string // the largest, with its unit
	thumb gplot.Thumbnailer
}

func (a *aboveNote) String() string { return fmt.Sprintf("%d above the axis (up to %s)", a.n, a.max) }

// robustCap returns where a robust y axis ends for ss: just above the
// highest of the series' 98th percentiles (of those with at least 20
// values) when the largest value is more than 3 × that, else 0 (no cap).
func robustCap(ss []Named) float64 {
	// Per series: the 98th percentile of one method's samples (a series
	// of fewer than 20 has none). The axis keeps every series' and is cut
	// only when the largest sample is over 3 × the highest of them: one
	// method's many small samples (416 000 ACK samples at 12 µs) must not
	// hide another's bulk (7 % of the TS samples of bulk conn 6 were
	// above an axis cut at the pooled percentile).
	var q, top float64
	for _, se := range ss {
		var ys []float64
		for _, y := range se.Y {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				ys = append(ys, y)
			}
		}
		if len(ys) == 0 {
			continue
		}
		slices.Sort(ys)
		top = max(top, ys[len(ys)-1])
		if len(ys) >= 20 {
			q = max(q, ys[int(0.98*float64(len(ys)-1))])
		}
	}
	if q > 0 && top > 3*q {
		return q * 1.15
	}
	return 0
}

// grid draws light grid lines at the major ticks, under the data.
type grid struct{}

func (grid) Plot(c draw.Canvas, p *gplot.Plot) {
	if t, ok := p.X.Tick.Marker.(niceTicks); ok && t.bare {
		// An upper panel of a stack keeps its grid lines: its ticks are
		// unlabelled, not minor.
		defer func(m gplot.Ticker) { p.X.Tick.Marker = m }(p.X.Tick.Marker)
		t.bare = false
		p.X.Tick.Marker = t
	}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{225}
	g.Horizontal.Color = color.Gray{225}
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.4), vg.Points(0.4)
	g.Plot(c, p)
}

// splitGaps cuts a series at NaN and infinite values of y (gonum/plot
// rejects them): the index ranges [from, to) of the parts between.
func splitGaps(x, y []float64) [][2]int {
	var out [][2]int
	start := -1
	for i := range x {
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(x)})
	}
	return out
}

// Stack draws one panel per spec, stacked in one column under one title
// (each spec's Title becomes its panel's title), each with its own y range
// but all on one x range (the first spec's XFrom–XTo when set, else the
// union of the specs' data), so a tick lies at the same place in every
// panel; and one legend for all: entries of the same name are listed once,
// so give a series the same Color wherever it appears.
func Stack(title string, specs []XYSpec) (Figure, error) {
	f := Figure{Title: title}
	seen := map[string]bool{}
	var all []Named
	for _, s := range specs {
		all = append(all, s.Series...)
	}
	xl := dataLimits(all)
	for _, s := range specs {
		if len(specs) > 0 && specs[0].XTo > specs[0].XFrom {
			s.XFrom, s.XTo = specs[0].XFrom, specs[0].XTo
		}
		p, es, ab, err := panel(s, 0, nil)
		if err != nil {
			return Figure{}, err
		}
		if s.XTo <= s.XFrom { // the shared range, as panel would set one
			setAxis(&p.X, s.X.Label, s.X.Unit, xl.xlo, xl.xhi, true, false)
		}
		p.Title.Text = s.Title
		if ab != nil { // the count in the panel's title, the mark in the legend
			// A no-break space keeps the value with its unit when wrapped.
			p.Title.Text += fmt.Sprintf(" — %d above the axis, up to %s", ab.n, strings.ReplaceAll(ab.max, " ", "\u00a0"))
			es = append(es, Entry{Name: "above the axis", Thumbs: []gplot.Thumbnailer{ab.thumb}})
		}
		if len(f.Panels) > 0 { // one x label and its tick labels, under the last panel
			up := f.Panels[len(f.Panels)-1]
			up.X.Label.Text = ""
			if t, ok := up.X.Tick.Marker.(niceTicks); ok {
				t.bare = true
				up.X.Tick.Marker = t
			}
		}
		f.Panels = append(f.Panels, p)
		for _, e := range es {
			if !seen[e.Name] {
				seen[e.Name] = true
				f.Legend = append(f.Legend, e)
			}
		}
	}
	return f, nil
}
