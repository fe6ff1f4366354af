package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Group is one group of a study figure (e.g. a routing protocol): the
// per-run values (e.g. goodput per seed) and their mean with a confidence
// interval; Lo and Hi are NaN when the interval is undefined (one run).
type Group struct {
	Label        string
	Mean, Lo, Hi float64
	Points       []float64
}

// Diff is one paired comparison of a study figure: the per-key differences
// (first − second), their mean with a confidence interval (NaN bounds when
// undefined) and a note printed under the label, e.g. "Wilcoxon p = 1.9 ×
// 10⁻⁶, 20/20 > 0" (superscripts are typeset raised, as the figure fonts
// have no superscript minus).
type Diff struct {
	Label        string
	Mean, Lo, Hi float64
	Points       []float64
	Note         string
}

// StudyOptions label the study figures.
type StudyOptions struct {
	Title  string // names the campaign and what was averaged
	Group  string // the grouping label, e.g. "protocol" (x axis of GroupMeans)
	Metric string // e.g. "goodput per run"
	// Unit is the unit of the values, e.g. UnitKbps. Study figures show
	// the values in it as given, never rescaled (the tables print the
	// same numbers): UnitKbps is named "kbps" as in the study's tables.
	Unit  Unit
	Level float64
	Key   string // what one point is, e.g. "seed"
}

// studyScale is the display unit of study figures: the values' own unit,
// named as the study's tables name it.
func studyScale(u Unit) scale {
	switch u {
	case UnitKbps:
		return scale{1, "kbps"}
	case UnitNone:
		return scale{1, ""}
	}
	return scaleFor(u, 0)
}

// GroupMeans draws, per group, the per-run values as small rings (spread
// sideways so that equal values stay apart) and beside them the mean as a
// black bar with its confidence interval as a whisker; the value axis
// starts at 0. When every value and mean is ≥ 0 (goodput), a whisker whose
// t-interval reaches below 0 (few runs, large spread: correct, but no
// goodput is negative) is cut at 0 and ends in a downward arrow there,
// listed in the legend; the table gives the bound.
func GroupMeans(o StudyOptions, gs []Group) (Figure, error) {
	if len(gs) == 0 {
		return Figure{}, fmt.Errorf("no group to draw")
	}
	p := gplot.New()
	p.Add(&grid{})
	c := &cats{n: len(gs)}
	nonneg := true
	for _, g := range gs {
		nonneg = nonneg && !(g.Mean < 0)
		for _, v := range g.Points {
			nonneg = nonneg && !(v < 0)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var ticks []gplot.Tick
	for i, g := range gs {
		it := catItem{pos: float64(i), mean: g.Mean, lo: g.Lo, hi: g.Hi, pts: g.Points, col: Colour(0)}
		if nonneg && it.lo < 0 {
			it.lo, it.cut = 0, true
			c.cut = true
		}
		c.items = append(c.items, it)
		for _, v := range append([]float64{it.mean, it.lo, it.hi}, g.Points...) {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		ticks = append(ticks, gplot.Tick{Value: float64(i), Label: g.Label})
	}
	p.Add(c)
	setAxisScale(&p.Y, o.Metric, o.Unit, studyScale(o.Unit), lo, hi, true, true, 6)
	p.X.Min, p.X.Max = -0.6, float64(len(gs))-0.4
	p.X.Label.Text = o.Group
	p.X.Tick.Marker = gplot.ConstantTicks(ticks)
	return Figure{Title: o.Title, Panels: []*gplot.Plot{p}, Legend: c.legend(o)}, nil
}

// PairedDiffs draws, per comparison (top to bottom in the order given),
// the per-key differences as small rings, their mean as a black bar and
// its confidence interval as a whisker, with a dashed line at 0; the note
// of each comparison is printed under its label.
func PairedDiffs(o StudyOptions, ds []Diff) (Figure, error) {
	if len(ds) == 0 {
		return Figure{}, fmt.Errorf("no comparison to draw")
	}
	p := gplot.New()
	p.Add(&grid{})
	c := &cats{n: len(ds), horizontal: true}
	lo, hi := 0.0, 0.0
	var ticks []gplot.Tick
	for i, d := range ds {
		pos := float64(len(ds) - 1 - i)
		c.items = append(c.items, catItem{pos: pos, mean: d.Mean, lo: d.Lo, hi: d.Hi, pts: d.Points, col: Colour(0)})
		for _, v := range append([]float64{d.Mean, d.Lo, d.Hi}, d.Points...) {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		label := d.Label
		if d.Note != "" {
			label += "\n" + d.Note
		}
		ticks = append(ticks, gplot.Tick{Value: pos + ciAt, Label: label})
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -0.6}, {X: 0, Y: float64(len(ds)) - 0.4}})
	if err != nil {
		return Figure{}, err
	}
	zero.LineStyle = draw.LineStyle{Color: color.Gray{110}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
	p.Add(zero, c)
	setAxisScale(&p.X, "difference in "+o.Metric, o.Unit, studyScale(o.Unit), lo, hi, true, true, 6)
	p.Y.Min, p.Y.Max = -0.6, float64(len(ds))-0.4
	p.Y.Tick.Marker = gplot.ConstantTicks(ticks)
	p.Y.Tick.Label.XAlign = draw.XRight
	p.Y.Tick.Label.Handler = supText{text.Plain{Fonts: font.DefaultCache}}
	return Figure{Title: o.Title, Panels: []*gplot.Plot{p}, Legend: c.legend(o)}, nil
}

// catItem is one category: its position on the category axis, the mean,
// the CI and the points.
type catItem struct {
	pos          float64
	mean, lo, hi float64
	pts          []float64
	col          color.Color
	cut          bool // the CI's lower bound is below 0 and drawn cut at 0
}

// cats draws categories with points, mean bar and CI whisker; horizontal
// puts the categories on the y axis.
type cats struct {
	items      []catItem
	n          int
	horizontal bool
	cut        bool // some whisker is cut at 0
}

const (
	spread  = 0.26  // sideways spread of the points, in category widths
	ptsAt   = -0.17 // centre of the points, beside the whisker
	ciAt    = 0.14  // position of the mean and whisker
	meanW   = 0.24  // width of the mean bar
	capW    = 0.12  // width of the whisker caps
	ptR     = 2.0   // point radius, pt
	ciWidth = 1.1   // whisker line width, pt
)

var (
	meanStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(2)}
	ciStyle   = draw.LineStyle{Color: color.Black, Width: vg.Points(ciWidth)}
)

func (c *cats) Plot(dc draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&dc)
	pt := func(cat, v float64) vg.Point {
		if c.horizontal {
			return vg.Point{X: trX(v), Y: trY(cat)}
		}
		return vg.Point{X: trX(cat), Y: trY(v)}
	}
	seg := func(st draw.LineStyle, a, b vg.Point) { dc.StrokeLine2(st, a.X, a.Y, b.X, b.Y) }
	for _, it := range c.items {
		// Points, spread by a low-discrepancy sequence: deterministic,
		// and equal values do not hide each other.
		gs := draw.GlyphStyle{Color: it.col, Radius: vg.Points(ptR), Shape: draw.RingGlyph{}}
		for k, v := range it.pts {
			off := (math.Mod(float64(k)*0.6180339887, 1) - 0.5) * spread
			if len(it.pts) == 1 {
				off = 0
			}
			dc.DrawGlyph(gs, pt(it.pos+ptsAt+off, v))
		}
		c := it.pos + ciAt
		if !math.IsNaN(it.lo) && !math.IsNaN(it.hi) {
			seg(ciStyle, pt(c, it.lo), pt(c, it.hi))
			if it.cut {
				cutArrow(&dc, pt(c, it.lo))
			} else {
				seg(ciStyle, pt(c-capW/2, it.lo), pt(c+capW/2, it.lo))
			}
			seg(ciStyle, pt(c-capW/2, it.hi), pt(c+capW/2, it.hi))
		}
		seg(meanStyle, pt(c-meanW/2, it.mean), pt(c+meanW/2, it.mean))
	}
}

// cutArrow ends a whisker cut at 0 (at), no cap: a filled arrowhead
// pointing down, its tip on the axis.
func cutArrow(c *draw.Canvas, at vg.Point) {
	w := vg.Points(3)
	var p vg.Path
	p.Move(at)
	p.Line(vg.Point{X: at.X - w, Y: at.Y + 1.6*w})
	p.Line(vg.Point{X: at.X + w, Y: at.Y + 1.6*w})
	p.Close()
	c.SetColor(color.Black)
	c.Fill(p)
}

// legend lists the marks drawn, each as drawn: the mean is a bar across
// the category axis (horizontal in GroupMeans, vertical in PairedDiffs).
func (c *cats) legend(o StudyOptions) []Entry {
	key := o.Key
	if key == "" {
		key = "run"
	}
	col := Colour(0)
	es := []Entry{{Name: "mean", Thumbs: []gplot.Thumbnailer{thumb(func(tc *draw.Canvas) {
		if c.horizontal {
			x := (tc.Min.X + tc.Max.X) / 2
			tc.StrokeLine2(meanStyle, x, tc.Min.Y, x, tc.Max.Y)
			return
		}
		y := (tc.Min.Y + tc.Max.Y) / 2
		tc.StrokeLine2(meanStyle, tc.Min.X, y, tc.Max.X, y)
	})}}}
	anyCI := false
	for _, it := range c.items {
		anyCI = anyCI || (!math.IsNaN(it.lo) && !math.IsNaN(it.hi))
	}
	if anyCI {
		es = append(es, Entry{Name: fmt.Sprintf("%g %% t-CI", o.Level*100), Thumbs: []gplot.Thumbnailer{thumb(func(tc *draw.Canvas) {
			x := (tc.Min.X + tc.Max.X) / 2
			w := (tc.Max.X - tc.Min.X) / 4
			if c.horizontal {
				y := (tc.Min.Y + tc.Max.Y) / 2
				tc.StrokeLine2(ciStyle, tc.Min.X, y, tc.Max.X, y)
				tc.StrokeLine2(ciStyle, tc.Min.X, tc.Min.Y, tc.Min.X, tc.Max.Y)
				tc.StrokeLine2(ciStyle, tc.Max.X, tc.Min.Y, tc.Max.X, tc.Max.Y)
				return
			}
			tc.StrokeLine2(ciStyle, x, tc.Min.Y, x, tc.Max.Y)
			tc.StrokeLine2(ciStyle, x-w, tc.Min.Y, x+w, tc.Min.Y)
			tc.StrokeLine2(ciStyle, x-w, tc.Max.Y, x+w, tc.Max.Y)
		})}})
	}
	if c.cut {
		es = append(es, Entry{Name: "CI below 0, cut at 0 (bound in the table)", Thumbs: []gplot.Thumbnailer{thumb(func(tc *draw.Canvas) {
			x := (tc.Min.X + tc.Max.X) / 2
			tc.StrokeLine2(ciStyle, x, tc.Min.Y, x, tc.Max.Y)
			cutArrow(tc, vg.Point{X: x, Y: tc.Min.Y})
		})}})
	}
	es = append(es, Entry{Name: "one " + key, Thumbs: []gplot.Thumbnailer{thumb(func(tc *draw.Canvas) {
		tc.DrawGlyph(draw.GlyphStyle{Color: col, Radius: vg.Points(ptR), Shape: draw.RingGlyph{}}, tc.Center())
	})}})
	return es
}

// thumb is a legend thumbnail drawn by a function.
type thumb func(c *draw.Canvas)

func (t thumb) Thumbnail(c *draw.Canvas) { t(c) }
