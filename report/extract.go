package report

// extract.go is the one file that reads tcpanalysis results: it turns a
// connection's kept series into the level-0 series the report stores. To
// take the data from another source (package query's View.Series), change
// only this file.

import (
	"fmt"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// PEPAcceptedName is what the report calls the bytes newly acknowledged in
// a direction whose ACKs come from a split-TCP PEP (package pep's
// one-capture verdict, docs/metrics.md#pep): the CLI's wording. They are
// bytes the PEP accepted, never end-to-end goodput.
const PEPAcceptedName = "accepted by PEP (not end-to-end goodput)"

// pepAcked reports whether direction d of r is acknowledged by a split-TCP
// PEP, by the same one-capture verdict the CLI's notes use (pep.Detect).
func pepAcked(r *tcpanalysis.ConnResult, d flows.Direction) bool {
	return r.Dir[d].DataPkts > 0 && pep.Detect(r, d).Likely
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
}

func us(d time.Duration) int64 { return int64(d / time.Microsecond) }

// extract returns the series of direction d of r (r.Series must be kept):
// the Stevens graph (docs/metrics.md#segment-classes), RTT samples by
// method (#rtt), throughput and goodput (#throughput-over-time), the
// receive window and bytes in flight (#bytes-in-flight) and the events
// (#events). Empty series are left out.
func extract(r *tcpanalysis.ConnResult, d flows.Direction) []series {
	t0 := r.Conn.First
	at := func(t capture.Timestamp) int64 { return us(t.Sub(t0)) }
	var out []series
	add := func(s series) {
		if s.L0.len() > 0 {
			out = append(out, s)
		}
	}
	ser := r.Series

	// Stevens graph: one series per segment class.
	segs := map[string]*series{
		"seg":    {ID: "seg", Panel: "seq", Name: "data segments", Shape: shapeBars},
		"synfin": {ID: "synfin", Panel: "seq", Name: "SYN / FIN", Shape: shapeBars, Keep: true},
		"retx":   {ID: "retx", Panel: "seq", Name: "retransmitted", Shape: shapeBars, Keep: true},
		"ooo":    {ID: "ooo", Panel: "seq", Name: "out of order", Shape: shapeBars, Keep: true},
		"probe":  {ID: "probe", Panel: "seq", Name: "window probe / keep-alive", Shape: shapeBars, Keep: true},
	}
	for _, s := range ser.Segs[d] {
		key := "seg"
		switch {
		case s.Kind == tcpanalysis.KindRetransmitted:
			key = "retx"
		case s.Kind == tcpanalysis.KindOutOfOrder:
			key = "ooo"
		case s.Kind == tcpanalysis.KindProbe:
			key = "probe"
		case s.Payload == 0:
			key = "synfin"
		}
		l := &segs[key].L0
		l.X = append(l.X, at(s.Time))
		l.Y = append(l.Y, s.End)
		l.Y2 = append(l.Y2, s.Start)
		l.F = append(l.F, s.Frame)
	}
	ack := series{ID: "ack", Panel: "seq", Name: "cumulative ACK", Shape: shapeLine}
	edge := series{ID: "edge", Panel: "seq", Name: "receive window edge (ACK + rwnd)", Shape: shapeLine}
	for _, a := range ser.Acks[d] {
		ack.L0.X, ack.L0.Y, ack.L0.F = append(ack.L0.X, at(a.Time)), append(ack.L0.Y, a.Ack), append(ack.L0.F, a.Frame)
		if a.WindowKnown {
			edge.L0.X, edge.L0.Y, edge.L0.F = append(edge.L0.X, at(a.Time)), append(edge.L0.Y, a.Ack+a.Window), append(edge.L0.F, a.Frame)
		}
	}
	sack := series{ID: "sack", Panel: "seq", Name: "SACK blocks", Shape: shapeBars}
	for _, s := range ser.SACKs[d] {
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

	// RTT by method: this direction's ACK and TS samples, the reverse
	// direction's TS samples (the other half of the path), the handshake.
	rtt := []series{
		{ID: "rtt_ack", Panel: "rtt", Name: "ACK RTT (Karn), data " + d.String(), Shape: shapePoints},
		{ID: "rtt_ts", Panel: "rtt", Name: "TSval→TSecr, data " + d.String(), Shape: shapePoints},
		{ID: "rtt_ts_rev", Panel: "rtt", Name: "TSval→TSecr, reverse " + d.Reverse().String(), Shape: shapePoints},
		{ID: "rtt_hs", Panel: "rtt", Name: "handshake", Shape: shapePoints, Keep: true},
	}
	for _, s := range r.RTT {
		i := -1
		switch {
		case s.Method == tcpanalysis.MethodHandshake:
			i = 3
		case s.Method == tcpanalysis.MethodACK && s.Dir == d:
			i = 0
		case s.Method == tcpanalysis.MethodTS && s.Dir == d:
			i = 1
		case s.Method == tcpanalysis.MethodTS:
			i = 2
		}
		if i < 0 {
			continue
		}
		l := &rtt[i].L0
		l.X, l.Y, l.F = append(l.X, at(s.Time)), append(l.Y, us(s.RTT)), append(l.F, s.Frame)
	}
	for _, s := range rtt {
		add(s)
	}

	// Throughput and goodput per bin; the bin is about 1/16384 of the
	// connection, at least 1 ms, rounded to 1, 2 or 5 × 10^k µs.
	w := niceBin(r.Conn.Duration() / 16384)
	if bins, err := tcpanalysis.Bins(r, d, w); err == nil && len(bins) > 0 {
		tp := series{ID: "tput", Panel: "tput", Name: "throughput (sent, incl. retransmissions)", Shape: shapeLine, BinUS: us(w)}
		gp := series{ID: "goodput", Panel: "tput", Name: "goodput (newly acknowledged)", Shape: shapeLine, BinUS: us(w)}
		if pepAcked(r, d) {
			gp.Name = PEPAcceptedName
		}
		for _, b := range bins {
			x := us(b.Start)
			tp.L0.X, tp.L0.Y, tp.L0.F = append(tp.L0.X, x), append(tp.L0.Y, b.Bytes), append(tp.L0.F, 0)
			gp.L0.X, gp.L0.Y, gp.L0.F = append(gp.L0.X, x), append(gp.L0.Y, b.Acked), append(gp.L0.F, 0)
		}
		add(tp)
		add(gp)
	}

	// Receive window and bytes in flight; the SACK-aware line only where it
	// differs from tshark's (else it would hide it).
	rw := series{ID: "rwnd", Panel: "win", Name: "receive window (rwnd)", Shape: shapeLine}
	fl := series{ID: "flight", Panel: "win", Name: "bytes in flight (tshark)", Shape: shapeLine}
	fs := series{ID: "flight_sack", Panel: "win", Name: "bytes in flight, SACK-aware", Shape: shapeLine}
	differ := false
	for _, p := range ser.Window[d] {
		x := at(p.Time)
		if p.RwndKnown {
			rw.L0.X, rw.L0.Y, rw.L0.F = append(rw.L0.X, x), append(rw.L0.Y, p.Rwnd), append(rw.L0.F, p.Frame)
		}
		if p.FlightValid {
			fl.L0.X, fl.L0.Y, fl.L0.F = append(fl.L0.X, x), append(fl.L0.Y, p.InFlight), append(fl.L0.F, p.Frame)
			fs.L0.X, fs.L0.Y, fs.L0.F = append(fs.L0.X, x), append(fs.L0.Y, p.InFlightSACK), append(fs.L0.F, p.Frame)
			differ = differ || p.InFlight != p.InFlightSACK
		}
	}
	// Zero-window periods (docs/metrics.md#events), shaded; a period open
	// at the end of the capture lasts to the connection's last packet.
	zw := series{ID: "zw", Panel: "win", Name: "zero-window period", Shape: shapeSpan, Keep: true}
	for _, z := range r.ZeroWindows {
		if z.Dir != d {
			continue
		}
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
		lanes[c] = series{ID: "ev_" + c.String(), Panel: "ev", Name: c.String(), Shape: shapeLane, Keep: c.IsRetransmission() || c == tcpanalysis.OutOfOrder}
	}
	for _, e := range r.Events {
		if e.Dir != d {
			continue
		}
		l := &lanes[e.Class].L0
		l.X, l.Y, l.F = append(l.X, at(e.Time)), append(l.Y, int64(e.Class)), append(l.F, e.Frame)
		l.Y2 = append(l.Y2, e.Seq)
	}
	for _, c := range tcpanalysis.Classes() {
		add(lanes[c])
	}
	out = append(out, moreSeries(r, d, w)...)
	return out
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
// each as View.SeriesOf gives it, in the "more" panel: a metric added to
// query appears in the report with no change to this package. Times are
// the whole connection (reference: its first packet); binned metrics use
// the report's bin width w.
func moreSeries(r *tcpanalysis.ConnResult, d flows.Direction, w time.Duration) []series {
	v := &query.View{Conns: []*tcpanalysis.ConnResult{r}, Conn: r, Dir: d, Interval: w}
	t0 := r.Conn.First
	var out []series
	for _, m := range query.Metrics() {
		if drawnMetrics[m] {
			continue
		}
		qs := v.SeriesOf(r, d, m)
		sh := shapeLine
		if m.Samples() {
			sh = shapePoints
		}
		s := series{ID: "m_" + m.String(), Panel: "more", Name: m.Label() + " (" + string(m.Unit()) + ")", Shape: sh, Unit: m.Unit(), YScale: moreYScale}
		for _, p := range qs.Points {
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
	// its "goodput" is PEPAcceptedName.
	PEPAcked  [2]bool `json:"pep_acked"`
	Handshake bool    `json:"handshake"`
	WScale    [2]int  `json:"wscale"`
	Views     []int   `json:"views"` // indexes into meta.Views; empty when no series were kept
}

func summarize(capIdx int, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult) summary {
	c := r.Conn
	s := summary{Cap: capIdx, Conn: c.Index, A: c.Half[0].Addr.String(), B: c.Half[1].Addr.String(),
		StartS: c.First.Sub(rep.Start).Seconds(), DurS: c.Duration().Seconds(), Handshake: c.HandshakeSeen}
	for d := range 2 {
		s.Pkts[d], s.Bytes[d], s.Retx[d] = r.Dir[d].Pkts, r.Dir[d].Bytes, r.Dir[d].RetxBytes
		s.Goodput[d] = r.GoodputKbps(flows.Direction(d))
		s.PEPAcked[d] = pepAcked(r, flows.Direction(d))
		s.WScale[d] = c.Half[d].WScale
	}
	return s
}

// alignAt returns where compare mode aligns direction d of r, µs since the
// connection's first packet: "bulk" (the first segment with ≥ 512 B
// payload, the default), "data" (the first data segment) or "syn" (0); as
// 'tcpviz compare --align'.
func alignAt(r *tcpanalysis.ConnResult, d flows.Direction, align string) int64 {
	switch align {
	case "syn":
		return 0
	case "data":
		return us(tcpanalysis.FirstData(r, d).Sub(r.Conn.First))
	}
	return us(tcpanalysis.BulkStart(r, d).Sub(r.Conn.First))
}
