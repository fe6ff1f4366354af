package plot

import (
	"fmt"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Style is how a figure is rendered: its size on paper, the base font
// size (tick labels and the legend are 90 % of it, the title 110 %) and,
// for PNG, the resolution. Vector formats (SVG, PDF) ignore DPI.
type Style struct {
	W, H     vg.Length // figure size, e.g. 8.5 cm × 6 cm for one column
	FontSize vg.Length // axis labels; 0 means 9 pt
	DPI      int       // PNG pixels per inch; 0 means 150
	// OmitTitle leaves the title out (a paper's caption names the run).
	OmitTitle bool
}

// DefaultStyle is the style of a figure when no --size, --font-size or
// --dpi was given: 16 cm × 10 cm, 10 pt, 150 dpi (a 945 × 591 px PNG).
var DefaultStyle = Style{W: 16 * vg.Centimeter, H: 10 * vg.Centimeter, FontSize: vg.Points(10), DPI: 150}

// withDefaults fills the zero fields of s from DefaultStyle.
func (s Style) withDefaults() Style {
	if s.W <= 0 || s.H <= 0 {
		s.W, s.H = DefaultStyle.W, DefaultStyle.H
	}
	if s.FontSize <= 0 {
		s.FontSize = DefaultStyle.FontSize
	}
	if s.DPI <= 0 {
		s.DPI = DefaultStyle.DPI
	}
	return s
}

// ParseSize parses a figure size "WxH[unit]" with unit cm (the default),
// mm, in or pt, e.g. "8.5x6cm" or "3.5x2.5in". Both sides must be between
// 2 cm and 100 cm.
func ParseSize(s string) (w, h vg.Length, err error) {
	t := strings.ToLower(strings.TrimSpace(s))
	unit := vg.Centimeter
	for _, u := range []struct {
		suffix string
		l      vg.Length
	}{{"cm", vg.Centimeter}, {"mm", vg.Millimeter}, {"in", vg.Inch}, {"pt", vg.Points(1)}} {
		if strings.HasSuffix(t, u.suffix) {
			t, unit = strings.TrimSuffix(t, u.suffix), u.l
			break
		}
	}
	a, b, ok := strings.Cut(t, "x")
	if !ok {
		a, b, ok = strings.Cut(t, "×")
	}
	if !ok {
		return 0, 0, fmt.Errorf("size %q: want WIDTHxHEIGHT with cm, mm, in or pt, e.g. 8.5x6cm", s)
	}
	fw, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	fh, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("size %q: want WIDTHxHEIGHT with cm, mm, in or pt, e.g. 8.5x6cm", s)
	}
	w, h = vg.Length(fw)*unit, vg.Length(fh)*unit
	if !sideOK(w) || !sideOK(h) {
		return 0, 0, fmt.Errorf("size %q: each side must be between 2 cm and 100 cm", s)
	}
	return w, h, nil
}

// sideOK reports whether a figure side is within 2 cm to 100 cm; NaN is
// not (every comparison with NaN is false, so the test is written so that
// it must hold rather than must fail).
func sideOK(l vg.Length) bool { return l >= 2*vg.Centimeter && l <= 100*vg.Centimeter }

// Check reports a style no canvas can be made of: a side outside 2 to
// 100 cm (NaN included), a font size outside 4 to 40 pt, a PNG resolution
// outside 30 to 2400 dpi. Zero fields mean the default and pass.
func (s Style) Check() error {
	switch {
	case (s.W != 0 || s.H != 0) && (!sideOK(s.W) || !sideOK(s.H)):
		return fmt.Errorf("figure size %g × %g cm: each side must be between 2 cm and 100 cm", s.W/vg.Centimeter, s.H/vg.Centimeter)
	case s.FontSize != 0 && !(s.FontSize >= 4 && s.FontSize <= 40):
		return fmt.Errorf("font size %g pt: want 4 to 40 points", float64(s.FontSize))
	case s.DPI != 0 && !(s.DPI >= 30 && s.DPI <= 2400):
		return fmt.Errorf("resolution %d dpi: want 30 to 2400", s.DPI)
	}
	return nil
}

// applyFonts sets the font sizes of p from st: axis labels at FontSize,
// tick labels at 90 %, the (panel) title at 90 %. Line widths of axes and
// ticks follow the font so a small figure does not look heavy. A panel's
// title is a subtitle under the figure's: 90 %.
func applyFonts(p *gplot.Plot, st Style) {
	fs := st.FontSize
	p.Title.TextStyle.Font.Size = fs * 0.9
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = fs
		a.Tick.Label.Font.Size = fs * 0.9
		a.Tick.Length = fs * 0.35
		a.LineStyle.Width = vg.Points(0.6)
		a.Tick.LineStyle.Width = vg.Points(0.6)
		a.Padding = fs * 0.25
		a.Label.Padding = fs * 0.2
	}
	p.Title.Padding = fs * 0.4
}
