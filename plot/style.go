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

// The ranges Check admits: font sizes in points, PNG resolutions in dots
// per inch (sides: 2 to 100 cm, ParseSize).
const (
	MinFontSize, MaxFontSize = 4, 40
	MinDPI, MaxDPI           = 30, 2400
)

// StyleField names the field of a Style a StyleError is about.
type StyleField uint8

// The fields Check checks.
const (
	FieldSize     StyleField = iota // W and H
	FieldFontSize                   // FontSize
	FieldDPI                        // DPI
)

// A StyleError is Check's error: Field is out of its range; the message
// gives the value and the range.
type StyleError struct {
	Field StyleField
	msg   string
}

// Error gives the value and the range.
func (e *StyleError) Error() string { return e.msg }

// Check reports a style no canvas can be made of: a side outside 2 to
// 100 cm (NaN included), a font size outside MinFontSize to MaxFontSize
// points, a PNG resolution outside MinDPI to MaxDPI. Zero fields mean the
// default and pass. Errors: a *StyleError.
func (s Style) Check() error {
	switch {
	case (s.W != 0 || s.H != 0) && (!sideOK(s.W) || !sideOK(s.H)):
		return &StyleError{FieldSize, fmt.Sprintf("figure size %g × %g cm: each side must be between 2 cm and 100 cm", s.W/vg.Centimeter, s.H/vg.Centimeter)}
	case s.FontSize != 0 && !(s.FontSize >= MinFontSize && s.FontSize <= MaxFontSize):
		return &StyleError{FieldFontSize, fmt.Sprintf("font size %g pt: want %d to %d points", float64(s.FontSize), MinFontSize, MaxFontSize)}
	case s.DPI != 0 && !(s.DPI >= MinDPI && s.DPI <= MaxDPI):
		return &StyleError{FieldDPI, fmt.Sprintf("resolution %d dpi: want %d to %d", s.DPI, MinDPI, MaxDPI)}
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
