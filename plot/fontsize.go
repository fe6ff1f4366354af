package plot

import "gonum.org/v1/plot/vg"

// WithFontSize returns s with its axis-label font size set to pt points,
// so that callers need not import gonum's vg package (dag_test.go keeps
// gonum/plot inside package plot).
func (s Style) WithFontSize(pt float64) Style {
	s.FontSize = vg.Points(pt)
	return s
}
