package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// formatS prints seconds with 6 decimals (µs), as export.FormatS.
func formatS(s float64) string { return strconv.FormatFloat(s, 'f', 6, 64) }

// FigureSeries is what the compare figure draws for metric m: per run
// its series, continued to the end of the connection, and for a pair run
// the delivered series. Every series of run i has colour plot.Colour(i);
// the delivered ones are dashed, so sent and delivered stay apart in
// print (and in grayscale).
func FigureSeries(runs []Run, views []*query.View, m query.Metric, sel query.Selection) []plot.Named {
	var series []plot.Named
	for i, v := range views {
		if runs[i].OverheardOnly() {
			continue // nothing of the connection's (query.OverheardNote)
		}
		s := v.Series(m)
		if m == query.MetricRTTHandshake {
			// The handshake's RTT is the connection's when no window is
			// given (query.HandshakeIn), drawn before a data or bulk
			// reference point, as rtt's figure draws it: with the
			// window's rule the default --ref bulk drew nothing.
			s = v.HandshakeOf(v.Conn, v.Dir)
		}
		col := plot.Colour(i)
		// Step series run to the end of the connection, so stalls show.
		name := runs[i].Label + GoodputSuffix(runs[i], m)
		x, y := s.X(v.Ref), s.Y()
		if m == query.MetricRetrans {
			x, y = countFromStart(runs[i], x, y, sel.From)
		}
		// From the window's start (the reference point without --from):
		// unzoomed and zoomed to 0 alike.
		held, goesOn := v.HeldOf(v.Conn, v.Dir, m)
		x, y = holdFromStart(runs[i], sel.From, held, goesOn, x, y)
		series = append(series, extendToEnd(plot.Named{Name: name, Step: !m.Samples(), Scatter: m.Samples(), Mark: plot.MarkOf(i), X: x, Y: y, Color: col}, runs[i], sel.To))
		if d, ok := deliveredSeries(runs[i], m.String(), sel); ok {
			d.Color, d.Dashed = col, true
			series = append(series, d)
		}
		if d, ok := deliveredRate(runs[i], v, legacyMetric(m)); ok {
			d = extendToEnd(d, runs[i], sel.To)
			d.Color, d.Dashed = col, true
			series = append(series, d)
		}
	}
	return series
}

// holdFromStart starts a step line of run r (x in seconds since r.Ref) at
// a zoom's left edge, from seconds, with held, the value in force there
// (query.View.HeldOf), as the window figure does:
// without it a zoom between two points drew nothing, and one inside a
// stall began at its first point. goesOn reports a point after the zoom.
// A line whose run ended before the zoom (no point in it or after it, and
// the connection over: End) stays empty; extendToEnd then carries it to
// the connection's end or the zoom's.
func holdFromStart(r Run, from time.Duration, held query.Held, goesOn bool, x, y []float64) ([]float64, []float64) {
	if !held.OK || (len(x) > 0 && x[0] <= from.Seconds()) || (len(x) == 0 && !goesOn && End(r).Sub(r.Ref) <= from) {
		return x, y
	}
	return append([]float64{from.Seconds()}, x...), append([]float64{held.V}, y...)
}

// countFromStart starts the cumulative retransmission count (x, y: seconds
// since r.Ref, count so far) where the drawn range starts — --from after
// the reference point, or the connection's first packet when the series
// holds earlier points — at its value there: 0 at the connection's start,
// else the retransmissions before. So every cumulative line starts at its
// true value and a run without retransmissions is a line at 0, with its
// legend entry, rather than missing (trial13 B10).
func countFromStart(r Run, x, y []float64, from time.Duration) ([]float64, []float64) {
	x0 := from
	if len(x) > 0 && x[0] < from.Seconds() {
		x0 = r.Result.Conn.First.Sub(r.Ref)
	}
	n := 0
	for _, ev := range r.Result.Events {
		if ev.Dir == r.Dir && ev.Class.IsRetransmission() && ev.Time.Sub(r.Ref) < x0 {
			n++
		}
	}
	if len(x) > 0 && x[0] <= x0.Seconds() {
		return x, y
	}
	return append([]float64{x0.Seconds()}, x...), append([]float64{float64(n)}, y...)
}

// extendToEnd continues a step series with its last value to the end of the
// run's connection (the later of both halves for a pair; at most to, when
// to > 0), so a stall after the last change shows; scatter series are left
// alone.
func extendToEnd(s plot.Named, r Run, to time.Duration) plot.Named {
	if !s.Step || len(s.X) == 0 {
		return s
	}
	end := End(r).Sub(r.Ref)
	if to > 0 {
		end = min(end, to)
	}
	if e := end.Seconds(); e > s.X[len(s.X)-1] {
		s.X, s.Y = append(s.X, e), append(s.Y, s.Y[len(s.Y)-1])
	}
	return s
}

// deliveredSeries is, for --metric seq on a pair run, the bytes the final
// receiver acknowledged over time (from the server-side capture), to the
// end of the connection.
func deliveredSeries(r Run, metric string, sel query.Selection) (plot.Named, bool) {
	if metric != "seq" || !r.IsPair() {
		return plot.Named{}, false
	}
	ts, bytes, ok := Delivered(r)
	if !ok {
		return plot.Named{}, false
	}
	s := plot.Named{Name: r.Label + " delivered", Step: true}
	var held query.Held
	goesOn := false
	for i, t := range ts {
		switch {
		case sel.Within(t):
			s.X, s.Y = append(s.X, t.Seconds()), append(s.Y, float64(bytes[i]))
		case t < sel.From:
			held.See(r.Ref+capture.Timestamp(t), float64(bytes[i]))
		default:
			goesOn = true
		}
	}
	s.X, s.Y = holdFromStart(r, sel.From, held, goesOn, s.X, s.Y)
	return extendToEnd(s, r, sel.To), true
}

// deliveredRate is, for --metric tput on a pair run whose sender a PEP
// acknowledged, the end-to-end goodput over time: the bytes the final
// receiver acknowledged (server-side capture) per interval, kbit/s, on the
// client side's interval grid (query.View.IntervalsAt: laid from the run's
// reference point, limited to the selected window, so the run's series
// and this one share one grid); one point per interval (FigureSeries
// continues it to the end of the connection).
func deliveredRate(r Run, v *query.View, metric string) (plot.Named, bool) {
	if metric != "tput" || !r.IsPair() || !r.ProxyAcked() || v.Interval <= 0 {
		return plot.Named{}, false
	}
	rc, ok := r.receiver()
	if !ok {
		return plot.Named{}, false
	}
	iv, err := v.IntervalsAt(rc, r.Dir, r.Ref, End(r))
	if err != nil || len(iv) == 0 {
		return plot.Named{}, false
	}
	s := plot.Named{Name: r.Label + " delivered (end to end)", Step: true}
	for _, b := range iv {
		s.X, s.Y = append(s.X, b.Start.Sub(r.Ref).Seconds()), append(s.Y, b.Kbps(b.Acked))
	}
	return s, true
}

// RefLabel names the reference point the runs are aligned at: the one
// they all used, else each run's own, named per run (some fell back,
// query.Ref.Resolve): "each run's reference point (x: the first data
// segment; y: the first bulk segment)".
func RefLabel(runs []Run) string {
	for _, r := range runs[1:] {
		if r.RefUsed != runs[0].RefUsed {
			var each []string
			for _, r := range runs {
				each = append(each, r.Label+": "+r.RefUsed.Describe())
			}
			return "each run's reference point (" + strings.Join(each, "; ") + ")"
		}
	}
	return runs[0].RefUsed.Describe()
}

// PairYLabel names the seq axis when pair runs add their delivered
// series; "" otherwise.
func PairYLabel(runs []Run, m query.Metric) string {
	for _, r := range runs {
		if m == query.MetricSeq && r.IsPair() {
			return "sequence sent / delivered"
		}
	}
	return ""
}

// TputYLabel names the tput axis when a PEP acknowledged some run (its
// series are bytes the PEP accepted, never goodput) or may have
// (ProxyPossible: goodput or accepted); "" otherwise.
func TputYLabel(runs []Run, m query.Metric) string {
	if m != query.MetricGoodput {
		return ""
	}
	proxied, maybe, goodput := false, false, false
	for _, r := range runs {
		switch {
		case r.ProxyAcked():
			proxied = true
			goodput = goodput || r.IsPair() // its delivered series
		case r.ProxyPossible():
			maybe = true
		default:
			goodput = true
		}
	}
	switch {
	case maybe:
		return "goodput, or accepted by PEP (PEP? unknown: see note)"
	case !proxied:
		return ""
	case goodput:
		return "goodput delivered end to end / accepted by PEP"
	}
	return "accepted by PEP (not end-to-end goodput)"
}

// GoodputSuffix is what a run's goodput series adds to its label: "
// accepted by PEP" when a PEP acknowledged it (its ACKs: bytes the PEP
// accepted, not goodput), " acked (receiver or PEP?)" when one may have
// (ProxyPossible), "" otherwise and for other metrics.
func GoodputSuffix(r Run, m query.Metric) string {
	switch {
	case m != query.MetricGoodput:
		return ""
	case r.ProxyAcked():
		return " accepted by PEP"
	case r.ProxyPossible():
		return " acked (receiver or PEP?)"
	}
	return ""
}

// legacyMetric is the name deliveredSeries and deliveredRate know a
// metric by ("tput" for goodput).
func legacyMetric(m query.Metric) string {
	if m == query.MetricGoodput {
		return "tput"
	}
	return m.String()
}

// JoinLabels names the runs in a title: "nopep vs pep".
func JoinLabels(runs []Run) string {
	var l []string
	for _, r := range runs {
		l = append(l, r.Label)
	}
	return strings.Join(l, " vs ")
}

// WriteCSV writes metric m of every run (schema tcpviz.compare/2,
// docs/schema.md#compare).
func WriteCSV(w io.Writer, runs []Run, views []*query.View, m query.Metric) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"label", "metric", "t_s", "ref_t_s", "value"})
	for i, v := range views {
		label := runs[i].Label + GoodputSuffix(runs[i], m)
		for _, p := range v.Series(m).Points {
			cw.Write([]string{label, m.String(), formatS(v.CaptureS(p.Time)), formatS(v.RefS(p.Time)), strconv.FormatFloat(p.V, 'f', 3, 64)})
		}
		// The end-to-end goodput of a pair whose sender a PEP acknowledged.
		if d, ok := deliveredRate(runs[i], v, legacyMetric(m)); ok {
			off := v.CaptureS(v.Ref)
			for j := range d.X {
				cw.Write([]string{d.Name, m.String(), formatS(off + d.X[j]), formatS(d.X[j]), strconv.FormatFloat(d.Y[j], 'f', 3, 64)})
			}
		}
		// The bytes the final receiver acknowledged, of a pair (its
		// server side), as the figure draws them (docs/schema.md#compare);
		// one capture's are its own ACK series.
		if ts, bytes, ok := Delivered(runs[i]); ok && m == query.MetricSeq && runs[i].IsPair() {
			for j, t := range ts {
				if at := v.Ref + capture.Timestamp(t); v.Sel.InRange(at, v.Ref) {
					cw.Write([]string{runs[i].Label + " delivered", m.String(), formatS(v.CaptureS(at)), formatS(t.Seconds()), strconv.FormatFloat(float64(bytes[j]), 'f', 3, 64)})
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteNotes says per run who acknowledged the data.
func WriteNotes(w io.Writer, runs []Run) {
	for _, r := range runs {
		if r.Swapped {
			fmt.Fprintf(w, "note: %s: the pair was given server side first; analysed as %s+%s (client side first: the capture where the data connection starts first and that carries more data)\n", r.Label, shown(r.File), shown(r.ServerFile))
		}
		if r.IsPair() {
			fmt.Fprintf(w, "%s: server side %s conn %d\n", r.Label, shown(r.ServerFile), r.Server.Conn.Index)
		}
	}
	for _, r := range runs {
		for _, n := range []string{r.Annotation(), r.SetupNote(), r.EndNote(), r.AwayNote()} {
			if n != "" {
				fmt.Fprintln(w, "note:", n)
			}
		}
	}
}
