// Package figures builds the figures of tcpviz from query views: per metric
// the titles, the panels per direction, the axes and their units, the marks
// and the --from/--to window, so that every verb, compare and the demo draw
// a connection the same way. It describes figures with package plot's specs
// (plot.XYSpec, plot.TimeSeqOptions) and never imports gonum/plot itself.
//
// Every figure's x axis is seconds since the view's reference point
// (query.View.Ref, docs/metrics.md#reference-point), except the
// time-sequence graph's, which counts from the connection's first packet
// as tcptrace does.
package figures

import (
	"math"

	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// XAxis is the x axis of a single-connection figure: seconds since the
// reference point v.RefUsed.
func XAxis(v *query.View) plot.Axis {
	return plot.Axis{Label: "time since " + v.RefUsed.Describe(), Unit: plot.UnitSeconds}
}

// InWindow fixes a single-connection figure's x range to the selection's
// --from/--to window (seconds since the reference point), as compare does:
// [From, To] when sel.To is set; with --from alone, from From to the
// largest x of the data, or to From + 1 s when no x lies past From.
// Otherwise spec is returned unchanged and the data's range is drawn.
func InWindow(spec plot.XYSpec, sel query.Selection) plot.XYSpec {
	switch {
	case sel.To > 0:
		spec.XFrom, spec.XTo = sel.From.Seconds(), sel.To.Seconds()
	case sel.From > 0:
		top := math.Inf(-1)
		for _, se := range spec.Series {
			for _, x := range se.X {
				top = max(top, x)
			}
		}
		if from := sel.From.Seconds(); top > from {
			spec.XFrom, spec.XTo = from, top
		} else {
			// Nothing after --from (past the connection's end): the
			// axis still starts there, a second long, not at the
			// data's range before it (the verb warns that the figure
			// draws nothing).
			spec.XFrom, spec.XTo = from, from+1
		}
	}
	return spec
}

// AxisOf is the y axis of metric m: its label (query.Metric.Label) and the
// plot unit of its query.Unit (bytes, ms, s, kbit/s).
func AxisOf(m query.Metric) plot.Axis {
	u := map[query.Unit]plot.Unit{query.Bytes: plot.UnitBytes, query.Milliseconds: plot.UnitMillis, query.Seconds: plot.UnitSeconds, query.Kbps: plot.UnitKbps}[m.Unit()]
	return plot.Axis{Label: m.Label(), Unit: u}
}
