package figures

import (
	"fmt"
	"image/color"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// rttNames are the legend names of the RTT methods (docs/metrics.md#rtt).
var rttNames = map[query.Metric]string{query.MetricRTT: "ACK-based (Karn)", query.MetricRTTTS: "TSval/TSecr", query.MetricRTTHandshake: "handshake"}

// rttColours are the colours of the RTT methods, in the RTT figure's
// order (ack, ts, handshake).
var rttColours = [...]color.Color{plot.ColRTTACK, plot.ColRTTTS, plot.ColRTTHandshake}

// RTT is the RTT figure of v's connection (docs/metrics.md#rtt): one panel
// per direction (only v.Sel.Dir's when it is set), each with its own y
// range in ms, since the reverse direction's samples (often app-limited,
// seconds) would squash the data direction's onto zero. Each panel holds
// the methods in want (query.MetricRTT, MetricRTTTS, MetricRTTHandshake;
// the handshake sample is the connection's, whatever the window) that have
// samples, as scatter marks. A panel whose samples miss part of the path
// says so in its title (tcpanalysis.OtherLeg, the rule of query.LegNote). run
// names the run in the title. Errors: those of plot.Stack.
func RTT(v *query.View, run string, want map[query.Metric]bool) (plot.Figure, error) {
	sel := v.Sel
	var specs []plot.XYSpec
	var empty *plot.XYSpec // the first panel, kept for its axes when no panel has a sample
	for _, d := range []flows.Direction{v.Dir, v.Dir.Reverse()} {
		if sel.Dir != query.Auto && sel.Dir.Of(v.Conn) != d {
			continue
		}
		title := "reverse direction " + plot.Endpoints(v.Conn.Conn, d)
		if d == v.Dir {
			title = "data " + plot.Endpoints(v.Conn.Conn, d)
			for _, t := range v.Caveats(query.OutRTT).Titles {
				title += " — " + t
			}
		}
		sp := plot.XYSpec{Title: title, Robust: true, X: XAxis(v), Y: plot.Axis{Label: "RTT", Unit: plot.UnitMillis}}
		for i, m := range []query.Metric{query.MetricRTT, query.MetricRTTTS, query.MetricRTTHandshake} {
			if !want[m] {
				continue
			}
			s := v.SeriesOf(v.Conn, d, m)
			if m == query.MetricRTTHandshake {
				s = v.HandshakeOf(v.Conn, d)
			}
			if len(s.Points) > 0 {
				sp.Series = append(sp.Series, plot.Named{Name: rttNames[m], Scatter: true, Color: rttColours[i],
					Mark: []plot.Mark{plot.MarkDot, plot.MarkRing, plot.MarkTriangle}[i], X: s.X(v.Ref), Y: s.Y()})
			}
		}
		if len(sp.Series) > 0 {
			specs = append(specs, InWindow(sp, sel))
		} else if empty == nil {
			e := InWindow(sp, sel)
			empty = &e
		}
	}
	if len(specs) == 0 && empty != nil {
		// No sample at all: the figure keeps its axes, as an empty seq
		// or tput figure does, not a blank page under the title (the
		// verb warns that it draws nothing).
		specs = append(specs, *empty)
	}
	return plot.Stack(fmt.Sprintf("%s — conn %d: RTT at the capture point", run, v.Conn.Conn.Index), specs)
}

// Events is the figure of the classified events of v's connection in its
// data direction (docs/metrics.md#events): one scatter series per class
// (tcpanalysis.Classes, in that order, with its own mark), y the relative
// sequence number. run names the run in the title. Errors: those of
// plot.XY.
func Events(v *query.View, run string) (plot.Figure, error) {
	var series []plot.Named
	evs := export.Events(v, v.Conn, v.Dir)
	for i, c := range tcpanalysis.Classes() {
		s := plot.Named{Name: c.String(), Scatter: true, Color: plot.Colour(i), Mark: plot.MarkOf(i)}
		for _, ev := range evs {
			if ev.Class == c {
				s.X, s.Y = append(s.X, v.RefS(ev.Time)), append(s.Y, float64(ev.Seq))
			}
		}
		if len(s.X) > 0 {
			series = append(series, s)
		}
	}
	title := fmt.Sprintf("%s — conn %d: events, data %s", run, v.Conn.Conn.Index, plot.Endpoints(v.Conn.Conn, v.Dir))
	for _, t := range v.Caveats(query.OutEvents).Titles {
		title += "\n" + t
	}
	return plot.XY(InWindow(plot.XYSpec{Title: title,
		X: XAxis(v), Y: plot.Axis{Label: "relative sequence number", Unit: plot.UnitBytes}, Series: series}, v.Sel))
}

// windowNames are the legend names of the window figure's series
// (docs/metrics.md#bytes-in-flight).
var windowNames = map[query.Metric]string{query.MetricWindow: "receive window (rwnd)", query.MetricInFlight: "in flight (tshark)", query.MetricInFlightSACK: "in flight (SACK-aware)"}

// windowColours are the colours of the window figure's series.
var windowColours = map[query.Metric]color.Color{query.MetricWindow: plot.ColRwnd, query.MetricInFlight: plot.ColInFlight, query.MetricInFlightSACK: plot.ColInFlightSACK}

// Window is the figure of the advertised receive window and the bytes in
// flight (tshark's and SACK-aware) of v's connection in its data
// direction, as steps in bytes; its title says when the window scale is
// unknown (rwnd is then not drawn). To keep the peak memory of a large
// capture down it collects the analysis' garbage first and drops the
// connection's window points from v once the figure holds its own: v's
// window series is empty afterwards. run names the run in the title.
// Errors: those of plot.XY.
func Window(v *query.View, run string) (plot.Figure, error) {
	r, d := v.Conn, v.Dir
	runtime.GC()
	var ss []plot.Named
	// The vantage lines read the window points again (Caveats): on
	// another goroutine while the steps are made, before the points are
	// dropped (0.03 s of a 1.25 M-point figure, docs/performance.md).
	var vantage []string
	read := make(chan struct{})
	go func() {
		defer close(read)
		vantage = v.Caveats(query.OutWindow).Titles
	}()
	xs, ys := windowSteps(v)
	<-read
	for i, m := range query.WindowMetrics {
		if len(xs[i]) > 0 {
			// Each metric keeps its colour when another is not drawn
			// (rwnd with the window scale unknown).
			// rwnd wide, under the flights: where they meet (a zero
			// window with nothing in flight, a sender at the window's
			// limit) it shows on both sides of them (fresh-eyes trial,
			// session 16: the closed window was hidden).
			ss = append(ss, plot.Named{Name: windowNames[m], Step: true, X: xs[i], Y: ys[i], Color: windowColours[m], Wide: m == query.MetricWindow})
		}
	}
	r.Series.Window[d] = nil
	title := fmt.Sprintf("%s — conn %d: window, data %s", run, r.Conn.Index, plot.Endpoints(r.Conn, d))
	switch h := r.Conn.Half[d.Reverse()]; {
	case h.WScale < 0:
		title += "\nwindow scale unknown: rwnd not drawn"
	case h.WScaleFrom == flows.WScaleOverride:
		// An assumed scale must not read as a measured one.
		title += fmt.Sprintf("\nrwnd with window scale %d assumed (--wscale): the handshake was not captured", h.WScale)
	}
	for _, t := range vantage {
		// Vantage (docs/metrics.md#bytes-in-flight): in flight over
		// twice the window, a receiver-side capture's in flight is not
		// the sender's.
		title += "\n" + t
	}
	return plot.XY(InWindow(plot.XYSpec{Title: title, Series: ss, X: XAxis(v), Y: plot.Axis{Label: "bytes", Unit: plot.UnitBytes}}, v.Sel))
}

// Rate is the throughput and goodput figure of v's connection in its data
// direction per v.Interval (docs/metrics.md#throughput-over-time), as steps
// in kbit/s, the last interval's step drawn to its end. The goodput line
// is named as the PEP's accepted bytes when a split-TCP PEP acknowledged
// the data, or as either when one may have (pep.AckLegend of PEPVerdict). When no interval has a rate above zero the
// figure draws no line (and lists none). run names the run in the title.
// Errors: those of plot.XY.
func Rate(v *query.View, run string) (plot.Figure, error) {
	r, d := v.Conn, v.Dir
	var ss []plot.Named
	rate := false // a rate above zero: the lines draw something
	for _, m := range []query.Metric{query.MetricThroughput, query.MetricGoodput} {
		s := v.Series(m)
		name := "throughput (sent, incl. retransmissions)"
		if m == query.MetricGoodput {
			name = pep.AckLegend(PEPVerdict(v))
		}
		x, y := s.X(v.Ref), s.Y()
		if iv, _ := v.Intervals(r, d); len(iv) > 0 && len(x) > 0 {
			last := iv[len(iv)-1]
			x, y = append(x, v.RefS(last.Start)+last.Width.Seconds()), append(y, y[len(y)-1])
		}
		rate = rate || slices.ContainsFunc(y, func(f float64) bool { return f > 0 })
		col := plot.ColThroughput
		if m == query.MetricGoodput {
			col = plot.ColGoodput
		}
		ss = append(ss, plot.Named{Name: name, Step: true, X: x, Y: y, Color: col})
	}
	if !rate {
		// No byte sent or acknowledged in the window (a handshake-only
		// or RST-only connection, an idle window): no line, no legend
		// entry, and the verb warns that the figure draws nothing.
		ss = nil
	}
	title := fmt.Sprintf("%s — conn %d: data %s, %s intervals", run, r.Conn.Index, plot.Endpoints(r.Conn, d), IntervalLabel(v.Interval))
	for _, t := range v.Caveats(query.OutRate).Titles {
		title += "\n" + t
	}
	spec := plot.XYSpec{Title: title,
		X: XAxis(v), Y: plot.Axis{Label: "rate", Unit: plot.UnitKbps}, Series: ss}
	if !rate {
		// No line: the axis still spans the window, as the title's
		// intervals do, not 0–1 s (fresh-eyes trial, session 16).
		if lo, hi, _ := v.Span(r, d); hi > lo {
			spec.XFrom, spec.XTo = v.RefS(lo), v.RefS(hi)
		}
	}
	return plot.XY(InWindow(spec, v.Sel))
}

// IntervalLabel names an interval width for a title: plot.DurationLabel
// without trailing zeros, as the 1-2-5 widths are exact ("100 ms", "1 s",
// "2.5 s", "250 µs").
func IntervalLabel(w time.Duration) string {
	l := plot.DurationLabel(w)
	num, unit, _ := strings.Cut(l, " ")
	if strings.Contains(num, ".") {
		num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
	}
	return num + " " + unit
}

// windowSteps is what the window figure draws of each of
// query.WindowMetrics (x in seconds since v.Ref, y in bytes): the points
// of the selection, with the value in force at its start and the last one
// held to the connection's end or the selection's, whichever is first,
// built in the series' own arrays (query.View.WindowXYHeld: no copy of a
// million-point series).
func windowSteps(v *query.View) (xs, ys [3][]float64) {
	// The axes span the window (from the reference point without --from,
	// as with --from 0): a step line starts at its left edge with the
	// value in force there and holds its last value to the connection's
	// last packet or the window's end, whichever is first, as seq's and
	// compare's lines do (a window between two points, or inside a stall,
	// draws the value held across it).
	from := v.Sel.From.Seconds()
	end := v.Conn.Conn.Last.Sub(v.Ref).Seconds()
	if v.Sel.To > 0 {
		end = min(end, v.Sel.To.Seconds())
	}
	held := v.WindowHeld()
	xs, ys = v.WindowXYHeld(v.Ref, from, held)
	for i := range xs {
		x, y := xs[i], ys[i]
		switch {
		case !held[i].OK:
		case end <= from:
			// The connection ended before the window: nothing holds.
			x, y = x[:0], y[:0]
		case len(x) > 1 && x[1] <= from:
			// A point at the window's start: the held value is not seen.
			x, y = x[1:], y[1:]
		}
		if len(x) > 0 && x[len(x)-1] < end {
			// Within the room WindowXYHeld left: series that share x
			// write the same value at the same place.
			x, y = append(x, end), append(y, y[len(y)-1])
		}
		xs[i], ys[i] = x, y
	}
	return xs, ys
}
