package figures

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// Layout is how the compare figure places its runs.
type Layout uint8

const (
	// Overlay draws every run on one set of axes.
	Overlay Layout = iota
	// Grid draws each series in its own panel (small multiples, two per
	// row), all on shared axes.
	Grid
)

// String is the layout's name: "overlay" or "grid".
func (l Layout) String() string {
	if l == Grid {
		return "grid"
	}
	return "overlay"
}

// ErrLayout is wrapped by ParseLayout's error.
var ErrLayout = errors.New("want overlay or grid")

// ParseLayout reads a layout name, "overlay" or "grid". Errors: ErrLayout,
// wrapped with the name given.
func ParseLayout(s string) (Layout, error) {
	switch s {
	case "overlay":
		return Overlay, nil
	case "grid":
		return Grid, nil
	}
	return 0, fmt.Errorf("%q: %w", s, ErrLayout)
}

// Compare is the compare figure of metric m (docs/metrics.md#compare): the
// series of every run (compare.FigureSeries: run i in plot.Colour(i), the
// delivered series of a client/server pair dashed) on axes aligned at each
// run's reference point, limited to sel's --from/--to window when sel.To
// is set, laid out as l. The y axis is m's (AxisOf), renamed when a pair
// adds its delivered series (compare.PairYLabel) or a PEP acknowledged
// some run (compare.TputYLabel). name names the runs in the title; empty:
// their labels joined (compare.JoinLabels). runs and views are
// compare.Load's, one view per run. Errors: those of plot.XY and
// plot.Grid.
func Compare(runs []compare.Run, views []*query.View, m query.Metric, sel query.Selection, l Layout, name string) (plot.Figure, error) {
	series := compare.FigureSeries(runs, views, m, sel)
	ya := AxisOf(m)
	if lb := compare.PairYLabel(runs, m); lb != "" {
		ya.Label = lb
	}
	if lb := compare.TputYLabel(runs, m); lb != "" {
		ya.Label = lb
	}
	if name == "" {
		name = compare.JoinLabels(runs)
	}
	title := fmt.Sprintf("%s: %s", name, ya.Label)
	var heard, relays []string
	for _, r := range runs {
		switch {
		case r.OverheardOnly():
			heard = append(heard, r.Label)
		case r.Relay():
			relays = append(relays, r.Label)
		}
	}
	if len(heard) > 0 {
		// Its node only overheard the connection: nothing of it is drawn
		// (compare.FigureSeries), and the title says why.
		title += "\nnot drawn: " + strings.Join(heard, ", ") + " (the capturing node only overheard the connection)"
	}
	if len(relays) > 0 {
		title += "\nat a relay: " + strings.Join(relays, ", ") + " (only the frames routed through it)"
	}
	// The other vantage lines of the verbs' own figures (the series is
	// the capture point's: data as it arrived there at a sink, in flight
	// and RTT on the sender's radio without its queues), one line per
	// wording with the runs it applies to.
	var lines []string
	byLine := map[string][]string{}
	for _, r := range runs {
		if r.OverheardOnly() || r.Relay() || r.Server != nil {
			continue
		}
		if t := vantageLine(r, m); t != "" {
			if byLine[t] == nil {
				lines = append(lines, t)
			}
			byLine[t] = append(byLine[t], r.Label)
		}
	}
	for _, t := range lines {
		title += "\n" + strings.Join(byLine[t], ", ") + ": " + t
	}
	spec := plot.XYSpec{Title: title, Series: series, Y: ya,
		X: plot.Axis{Label: "time since " + compare.RefLabel(runs), Unit: plot.UnitSeconds}, Robust: m.Samples()}
	if sel.To > 0 {
		spec.XFrom, spec.XTo = sel.From.Seconds(), sel.To.Seconds()
	}
	if l == Overlay {
		return plot.XY(spec)
	}
	return plot.Grid(spec, min(len(series), 2))
}

// vantageLine is the title line of run r's vantage for metric m, as the
// verb drawing m alone words it: query.RTTTitle for RTT samples,
// query.InFlightTitle for bytes in flight, query.VantageTitle for the
// others (the time-sequence graph, ACKs, throughput, retransmissions); ""
// when the capture point changes nothing.
func vantageLine(r compare.Run, m query.Metric) string {
	switch m {
	case query.MetricRTT, query.MetricRTTTS, query.MetricRTTHandshake:
		return query.RTTTitle(r.Result, r.Dir)
	case query.MetricInFlight, query.MetricInFlightSACK:
		return query.InFlightTitle(r.Result, r.Dir)
	case query.MetricWindow:
		return ""
	}
	return query.VantageTitle(r.Result, r.Dir)
}
