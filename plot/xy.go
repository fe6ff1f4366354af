package plot

import (
	"fmt"
	"image/color"
	"io"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Named is one series of an XY figure: X and Y of equal length, in the
// figure's units. Points with NaN in Y are gaps (the series is split there).
type Named struct {
	Name    string
	X, Y    []float64
	Scatter bool // draw points instead of a line
	Step    bool // draw a step line (value holds until the next point)
	// Color overrides the palette colour the series' position would give,
	// so a label keeps its colour across panels; nil uses the palette.
	Color color.Color
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

// XY draws series on one set of axes. It returns an error when a series has
// X and Y of different lengths.
func XY(title, xlabel, ylabel string, series []Named) (*gplot.Plot, error) {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.X.Tick.Marker, p.Y.Tick.Marker = cleanTicks{}, cleanTicks{}
	p.Legend.Top = true
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("series %q: %d x values, %d y values", s.Name, len(s.X), len(s.Y))
		}
		col := Colour(i)
		if s.Color != nil {
			col = s.Color
		}
		var first gplot.Thumbnailer
		for _, part := range splitGaps(s.X, s.Y) {
			if s.Scatter {
				sc, err := plotter.NewScatter(part)
				if err != nil {
					return nil, err
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}
				p.Add(sc)
				if first == nil {
					first = sc
				}
				continue
			}
			l, err := plotter.NewLine(part)
			if err != nil {
				return nil, err
			}
			l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.2)}
			if s.Step {
				l.StepStyle = plotter.PostStep
			}
			p.Add(l)
			if first == nil {
				first = l
			}
		}
		if first != nil && s.Name != "" {
			p.Legend.Add(s.Name, first)
		}
	}
	// Headroom for the legend (top right) and a margin below, so no data
	// lies under the legend or on the frame.
	if r := p.Y.Max - p.Y.Min; r > 0 {
		p.Y.Max += 0.08*r + 0.07*r*float64(len(series))
		p.Y.Min -= 0.03 * r
	}
	if r := p.X.Max - p.X.Min; r > 0 {
		p.X.Min -= 0.02 * r
		p.X.Max += 0.02 * r
	}
	return p, nil
}

// splitGaps cuts a series at NaN values of y (gonum/plot rejects NaN).
func splitGaps(x, y []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range x {
		if y[i] != y[i] { // NaN
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: x[i], Y: y[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Figure is a drawn figure ready to be written in any of Formats.
type Figure struct{ P *gplot.Plot }

// Save renders the figure in format ("png", "svg" or "pdf").
func (f Figure) Save(w io.Writer, format string) error { return Write(w, f.P, format) }

// GridFigure lays out figures as small multiples, cols per row, sharing the
// x and y ranges given (set the same Min/Max on every plot before).
type GridFigure struct {
	Plots []*gplot.Plot
	Cols  int
}

// Save renders the grid in format ("png", "svg" or "pdf").
func (g GridFigure) Save(w io.Writer, format string) error {
	cols := max(g.Cols, 1)
	rows := (len(g.Plots) + cols - 1) / cols
	width, height := Size.W, Size.H*vg.Length(rows)/2+Size.H/2
	c, err := newCanvas(format, width, height)
	if err != nil {
		return err
	}
	grid := make([][]*gplot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*gplot.Plot, cols)
		for j := range grid[i] {
			if k := i*cols + j; k < len(g.Plots) {
				grid[i][j] = g.Plots[k]
			}
		}
	}
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter, PadY: vg.Millimeter, PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(2)}
	dc := draw.New(c)
	canvases := gplot.Align(grid, t, dc)
	for i := range grid {
		for j := range grid[i] {
			if grid[i][j] != nil {
				grid[i][j].Draw(canvases[i][j])
			}
		}
	}
	_, err = c.WriteTo(w)
	return err
}

// cleanTicks is gonum's default tick placement with labels printed in the
// shortest form ("1250000", not "1250000.00"); with floor set, no tick is
// placed below it (the band left free for the legend).
type cleanTicks struct {
	floor    float64
	hasFloor bool
}

func (c cleanTicks) Ticks(min, max float64) []gplot.Tick {
	var out []gplot.Tick
	for _, t := range (gplot.DefaultTicks{}).Ticks(min, max) {
		if c.hasFloor && t.Value < c.floor {
			continue
		}
		if t.Label != "" {
			t.Label = strconv.FormatFloat(t.Value, 'g', 10, 64)
		}
		out = append(out, t)
	}
	return out
}
