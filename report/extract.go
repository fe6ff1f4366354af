package report

// extract.go turns a connection's series, as package query gives them
// (query.View), into the level-0 series the report stores.

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// PEPAcceptedName is what the report calls the bytes newly acknowledged in
// a direction whose ACKs come from a split-TCP PEP (package pep's
// one-capture verdict, docs/metrics.md#pep): the CLI's wording. They are
// bytes the PEP accepted, never end-to-end goodput.
const PEPAcceptedName = "accepted, likely by a PEP (not end-to-end goodput)"

// PEPPossibleName is what the report calls them in a direction whose ACKs
// may come from a split-TCP PEP (pep.Verdict.Possible: one capture cannot
// tell the receiver on the sender's link from a PEP there): the CLI's
// wording (pep.AckLegend).
const PEPPossibleName = "newly acknowledged: goodput, or accepted by a PEP? (unknown: see 'tcpviz flows' note)"

// pepVerdict is the one-capture verdict on direction d of r, a connection
// of rep, by the rule the CLI's notes and marks use (pep.DetectIn, with
// the capture's link layer when it decides); as flows, only for the
// connection's data direction (pep.DataDir), none for the other.
func pepVerdict(rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, d flows.Direction, pathRTT time.Duration) pep.Verdict {
	if d != pep.DataDir(r) {
		// As flows marks it: the connection's data direction only (a
		// direction without data DetectIn judges none).
		return pep.Verdict{Dir: d}
	}
	return pep.DetectIn(rep, r, d, pep.Options{PathRTT: pathRTT})
}

// series is one drawn series of a view at full resolution.
type series struct {
	ID    string // stable name the page keys colours and styles on
	Panel string // seq, rtt, tput, win, ev
	Name  string // legend text
	Shape shape
	Keep  bool // never thinned
	L0    level
	// BinUS is the bin width in µs of a binned series (throughput); 0
	// otherwise.
	BinUS int64
	// Unit and YScale describe a series of the "more" panel: Y holds the
	// value / YScale (an integer), in Unit.
	Unit   query.Unit
	YScale float64
	// Colour, if not nil, is the series' colour (an event class's,
	// eventColour); else seriesColours' by ID.
	Colour color.Color
}

func us(d time.Duration) int64 { return int64(d / time.Microsecond) }

// extract returns the series of v's connection and direction (its series
// must be kept), every one drawn from package query — v's records
// (View.Segs, Acks, SACKs, Events, ZeroWindows), metrics (View.Points) and
// intervals (View.Intervals) — so that the report, the verbs and the
// figures share one definition of each series, one time base and one
// window rule: the Stevens graph (docs/metrics.md#segment-classes), RTT
// samples by method (#rtt), throughput and goodput
// (#throughput-over-time), the receive window and bytes in flight
// (#bytes-in-flight), the events (#events) and every other metric of
// query. Times are µs since v's reference point (for query.ConnView, the
// connection's first packet). Empty series are left out.
func extract(v *query.View) []series {
	r, d := v.Conn, v.Dir
	t0 := v.Ref
	at := func(t capture.Timestamp) int64 { return us(t.Sub(t0)) }
	var out []series
	add := func(s series) {
		if s.L0.len() > 0 {
			out = append(out, s)
		}
	}
	// line is metric m of direction dd as a line (or points) of integers
	// in the metric's unit: bytes, or µs for an RTT in ms.
	line := func(s series, dd flows.Direction, m query.Metric) series {
		scale := 1.0
		if m.Unit() == query.Milliseconds {
			scale = 1000
		}
		for p := range v.Points(r, dd, m) {
			s.L0.X, s.L0.Y, s.L0.F = append(s.L0.X, at(p.Time)), append(s.L0.Y, int64(math.Round(p.V*scale))), append(s.L0.F, p.Frame)
		}
		return s
	}

	// Stevens graph: one series per segment class.
	segs := map[string]*series{
		"seg":    {ID: "seg", Panel: "seq", Name: "data segments", Shape: shapeBars},
		"synfin": {ID: "synfin", Panel: "seq", Name: "SYN / FIN", Shape: shapeBars, Keep: true},
		"retx":   {ID: "retx", Panel: "seq", Name: "retransmitted", Shape: shapeBars, Keep: true},
		"ooo":    {ID: "ooo", Panel: "seq", Name: "out of order", Shape: shapeBars, Keep: true},
		"probe":  {ID: "probe", Panel: "seq", Name: "window probe / keep-alive", Shape: shapeBars, Keep: true},
	}
	for s := range v.Segs(r, d) {
		key := "seg"
		switch {
		case s.Kind == tcpanalysis.KindRetransmitted:
			key = "retx" // a bare SYN or FIN sent again too (red in the PNG)
		case s.Payload == 0:
			key = "synfin" // a bare SYN or FIN
		case s.Kind == tcpanalysis.KindOutOfOrder:
			key = "ooo"
		case s.Kind == tcpanalysis.KindProbe:
			key = "probe"
		}
		l := &segs[key].L0
		l.X = append(l.X, at(s.Time))
		l.Y = append(l.Y, s.End)
		l.Y2 = append(l.Y2, s.Start)
		l.F = append(l.F, s.Frame)
		if s.Payload == 0 && key != "synfin" {
			// A bare SYN or FIN sent again keeps its SYN/FIN mark besides
			// the retransmission's.
			l := &segs["synfin"].L0
			l.X, l.Y, l.Y2, l.F = append(l.X, at(s.Time)), append(l.Y, s.End), append(l.Y2, s.Start), append(l.F, s.Frame)
		}
		if s.Payload > 0 {
			// A SYN or FIN carried with payload gets the bare one's mark
			// too, at its own sequence number (first or last of the segment).
			l := &segs["synfin"].L0
			if s.Flags.Has(capture.SYN) {
				l.X, l.Y, l.Y2, l.F = append(l.X, at(s.Time)), append(l.Y, s.Start+1), append(l.Y2, s.Start), append(l.F, s.Frame)
			}
			if s.Flags.Has(capture.FIN) {
				l.X, l.Y, l.Y2, l.F = append(l.X, at(s.Time)), append(l.Y, s.End), append(l.Y2, s.End-1), append(l.F, s.Frame)
			}
		}
	}
	// The ACK line named as the seq figure's legend names it
	// (figures.SeqOptions): the PEP's, or either's, when one likely or
	// possibly acknowledged the data.
	ackName := "cumulative ACK"
	switch pv := pepVerdict(v.Report, r, d, v.PathRTT); {
	case pv.Likely:
		ackName = plot.PEPAckName
	case pv.Possible:
		ackName = plot.PEPAckNamePossible
	}
	ack := line(series{ID: "ack", Panel: "seq", Name: ackName, Shape: shapeLine}, d, query.MetricAck)
	edge := series{ID: "edge", Panel: "seq", Name: "receive window edge (ACK + rwnd)", Shape: shapeLine}
	for a := range v.Acks(r, d) {
		if a.WindowKnown {
			edge.L0.X, edge.L0.Y, edge.L0.F = append(edge.L0.X, at(a.Time)), append(edge.L0.Y, a.Ack+a.Window), append(edge.L0.F, a.Frame)
		}
	}
	sack := series{ID: "sack", Panel: "seq", Name: "SACK blocks", Shape: shapeBars}
	for s := range v.SACKs(r, d) {
		l := &sack.L0
		l.X, l.Y, l.Y2, l.F = append(l.X, at(s.Time)), append(l.Y, s.Right), append(l.Y2, s.Left), append(l.F, s.Frame)
	}
	add(*segs["seg"])
	add(*segs["synfin"])
	add(edge)
	add(ack)
	add(sack)
	add(*segs["probe"])
	add(*segs["ooo"])
	add(*segs["retx"])

	// RTT by method (µs): this direction's ACK and TS samples, the reverse
	// direction's TS samples (the other half of the path), the handshake
	// of both directions, in capture order.
	add(line(series{ID: "rtt_ack", Panel: "rtt", Name: "ACK RTT (Karn), data " + d.String(), Shape: shapePoints}, d, query.MetricRTT))
	add(line(series{ID: "rtt_ts", Panel: "rtt", Name: "TSval→TSecr, data " + d.String(), Shape: shapePoints}, d, query.MetricRTTTS))
	add(line(series{ID: "rtt_ts_rev", Panel: "rtt", Name: "TSval→TSecr, reverse " + d.Reverse().String(), Shape: shapePoints}, d.Reverse(), query.MetricRTTTS))
	hs := series{ID: "rtt_hs", Panel: "rtt", Name: "handshake", Shape: shapePoints, Keep: true}
	hs = line(line(hs, flows.AtoB, query.MetricRTTHandshake), flows.BtoA, query.MetricRTTHandshake)
	sort.Stable(byFrame(hs.L0))
	add(hs)

	// Throughput and goodput per interval (View.Intervals: the intervals
	// of 'tcpviz tput', laid from v's reference point); the width is
	// v.Interval.
	if bins, err := v.Intervals(r, d); err == nil && len(bins) > 0 {
		w := us(v.Interval)
		tp := series{ID: "tput", Panel: "tput", Name: "throughput (sent, incl. retransmissions)", Shape: shapeLine, BinUS: w}
		gp := series{ID: "goodput", Panel: "tput", Name: "goodput (newly acknowledged)", Shape: shapeLine, BinUS: w}
		switch pv := pepVerdict(v.Report, r, d, v.PathRTT); {
		case pv.Likely:
			gp.Name = PEPAcceptedName
		case pv.Possible:
			gp.Name = PEPPossibleName
		}
		for _, b := range bins {
			x := at(b.Start)
			tp.L0.X, tp.L0.Y, tp.L0.F = append(tp.L0.X, x), append(tp.L0.Y, b.Bytes), append(tp.L0.F, 0)
			gp.L0.X, gp.L0.Y, gp.L0.F = append(gp.L0.X, x), append(gp.L0.Y, b.Acked), append(gp.L0.F, 0)
		}
		add(tp)
		add(gp)
	}

	// Receive window and bytes in flight; the SACK-aware line only where it
	// differs from tshark's (else it would hide it).
	rw := line(series{ID: "rwnd", Panel: "win", Name: "receive window (rwnd)", Shape: shapeLine}, d, query.MetricWindow)
	fl := line(series{ID: "flight", Panel: "win", Name: "bytes in flight (tshark)", Shape: shapeLine}, d, query.MetricInFlight)
	fs := line(series{ID: "flight_sack", Panel: "win", Name: "bytes in flight, SACK-aware", Shape: shapeLine}, d, query.MetricInFlightSACK)
	differ := !slices.Equal(fl.L0.Y, fs.L0.Y)
	// Zero-window periods (docs/metrics.md#events), shaded; a period open
	// at the end of the capture lasts to the connection's last packet.
	zw := series{ID: "zw", Panel: "win", Name: "zero-window period", Shape: shapeSpan, Keep: true}
	for z := range v.ZeroWindows(r, d) {
		end, endFrame := z.End, z.EndFrame
		if end == 0 {
			end, endFrame = r.Conn.Last, 0
		}
		zw.L0.X, zw.L0.Y, zw.L0.Y2, zw.L0.F = append(zw.L0.X, at(z.Start)), append(zw.L0.Y, at(end)), append(zw.L0.Y2, endFrame), append(zw.L0.F, z.StartFrame)
	}
	add(zw)
	add(rw)
	add(fl)
	if differ {
		add(fs)
	}

	// Events: one lane per class, in output order.
	lanes := make([]series, len(tcpanalysis.Classes())) // indexed by class
	for _, c := range tcpanalysis.Classes() {
		lanes[c] = series{ID: "ev_" + c.String(), Panel: "ev", Name: c.String(), Shape: shapeLane, Keep: c.IsRetransmission() || c == tcpanalysis.OutOfOrder, Colour: eventColour(c)}
	}
	for e := range v.Events(r, d) {
		l := &lanes[e.Class].L0
		l.X, l.Y, l.F = append(l.X, at(e.Time)), append(l.Y, int64(e.Class)), append(l.F, e.Frame)
		l.Y2 = append(l.Y2, e.Seq)
	}
	for _, c := range tcpanalysis.Classes() {
		add(lanes[c])
	}
	out = append(out, moreSeries(v)...)
	return out
}

// byFrame sorts a level's points by frame (capture order).
type byFrame level

func (l byFrame) Len() int           { return len(l.X) }
func (l byFrame) Less(i, j int) bool { return l.F[i] < l.F[j] }
func (l byFrame) Swap(i, j int) {
	l.X[i], l.X[j] = l.X[j], l.X[i]
	l.Y[i], l.Y[j] = l.Y[j], l.Y[i]
	l.F[i], l.F[j] = l.F[j], l.F[i]
}

// drawnMetrics are the metrics of package query that the panels above draw
// in their own way (segments as bars, RTT by method, binned rates, the
// window lines, events as lanes).
var drawnMetrics = map[query.Metric]bool{
	query.MetricSeq: true, query.MetricAck: true, query.MetricRTT: true, query.MetricRTTTS: true,
	query.MetricRTTHandshake: true, query.MetricGoodput: true, query.MetricThroughput: true,
	query.MetricWindow: true, query.MetricInFlight: true, query.MetricInFlightSACK: true,
	query.MetricRetrans: true,
}

// moreYScale is the resolution of a "more" series: values are stored as
// integers of 1/1000 of their unit.
const moreYScale = 1e-3

// moreSeries draws every other metric of package query (query.Metrics),
// each as View.Points gives it, in the "more" panel: a metric added to
// query appears in the report with no change to this package. Times and
// intervals are v's (for query.ConnView, the whole connection).
func moreSeries(v *query.View) []series {
	t0 := v.Ref
	var out []series
	for _, m := range query.Metrics() {
		if drawnMetrics[m] {
			continue
		}
		sh := shapeLine
		if m.Samples() {
			sh = shapePoints
		}
		s := series{ID: "m_" + m.String(), Panel: "more", Name: m.Label() + " (" + string(m.Unit()) + ")", Shape: sh, Unit: m.Unit(), YScale: moreYScale}
		for p := range v.Points(v.Conn, v.Dir, m) {
			s.L0.X = append(s.L0.X, us(p.Time.Sub(t0)))
			s.L0.Y = append(s.L0.Y, int64(p.V/moreYScale))
			s.L0.F = append(s.L0.F, p.Frame)
		}
		if s.L0.len() > 0 {
			out = append(out, s)
		}
	}
	return out
}

// niceBin rounds d up to 1, 2 or 5 × 10^k µs, at least 1 ms.
func niceBin(d time.Duration) time.Duration {
	w := time.Millisecond
	for w < d {
		switch s := fmt.Sprint(int64(w / time.Microsecond)); s[0] {
		case '1':
			w *= 2
		case '2':
			w = w / 2 * 5
		default:
			w *= 2
		}
	}
	return w
}

// summary is one row of the connection picker (docs/metrics.md#per-connection-summary).
type summary struct {
	Cap     int        `json:"cap"`
	Conn    int        `json:"conn"`
	A       string     `json:"a"`
	B       string     `json:"b"`
	StartS  float64    `json:"start_s"`
	DurS    float64    `json:"dur_s"`
	Pkts    [2]int64   `json:"pkts"`
	Bytes   [2]int64   `json:"bytes"`
	Retx    [2]int64   `json:"retx_bytes"`
	Goodput [2]float64 `json:"goodput_kbps"`
	// PEPAcked marks a direction whose ACKs come from a split-TCP PEP:
	// its "goodput" is PEPAcceptedName; PEPPossible one whose ACKs may
	// (PEPPossibleName).
	PEPAcked    [2]bool `json:"pep_acked"`
	PEPPossible [2]bool `json:"pep_possible"`
	// Vantage names the capture point for the data direction
	// (query.DataDirection) in a word (vantageOf), empty when nothing is
	// flagged; VantageWhy is the figure's title line saying why. Where
	// NotOwn, the goodput is not the connection's (a relay, a node that
	// only overheard it): the picker shows "–" as compare does, with
	// VantageNote (query.RelayNote or OverheardNote) saying why.
	Vantage     string `json:"vantage,omitempty"`
	VantageWhy  string `json:"vantage_why,omitempty"`
	NotOwn      bool   `json:"not_own,omitempty"`
	VantageNote string `json:"vantage_note,omitempty"`
	Handshake   bool   `json:"handshake"`
	WScale      [2]int `json:"wscale"`
	Views       []int  `json:"views"` // indexes into meta.Views; empty when no series were kept
}

func summarize(capIdx int, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, pathRTT time.Duration) summary {
	c := r.Conn
	s := summary{Cap: capIdx, Conn: c.Index, A: c.Half[0].Addr.String(), B: c.Half[1].Addr.String(),
		StartS: c.First.Sub(rep.Start).Seconds(), DurS: c.Duration().Seconds(), Handshake: c.HandshakeSeen}
	for d := range 2 {
		s.Pkts[d], s.Bytes[d], s.Retx[d] = r.Dir[d].Pkts, r.Dir[d].Bytes, r.Dir[d].RetxBytes
		s.Goodput[d] = r.GoodputKbps(flows.Direction(d))
		pv := pepVerdict(rep, r, flows.Direction(d), pathRTT)
		s.PEPAcked[d], s.PEPPossible[d] = pv.Likely, pv.Possible
		s.WScale[d] = c.Half[d].WScale
	}
	d := query.DataDirection(r)
	var own bool
	s.Vantage, s.VantageWhy, own = vantageOf(r, d)
	if !own {
		s.NotOwn = true
		s.VantageNote = cmp.Or(query.OverheardNote(r, d), query.RelayNote(r, d))
	}
	return s
}

// alignAt returns where compare mode aligns direction d of r, µs since the
// connection's first packet: the reference point align names ("bulk", the
// default; "data"; "syn"), with query.Ref's fallback (bulk → data → the
// connection's first packet), as 'tcpviz compare --align'.
func alignAt(r *tcpanalysis.ConnResult, d flows.Direction, align string) int64 {
	ref := query.RefBulk
	if align != "" {
		ref, _ = query.ParseRef(align) // Write checked it
	}
	t, _ := ref.Resolve(r, d)
	return us(t.Sub(r.Conn.First))
}
