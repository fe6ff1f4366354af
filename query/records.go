package query

import (
	"iter"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// records.go: the analyzer's records of one connection and direction seen
// through a View — limited to its window (Selection.InRange after
// View.RefOf) — for outputs that draw more than a value per point (the
// Stevens graph's bars, SACK blocks, event lanes). View.SeriesOf reads its
// metrics from these, so a series and the records it is made of share one
// time base and one window rule.

// ConnView is the View of the whole of connection r of rep in direction
// d: Sel names r and d, times count from r's first packet (RefSYN) and
// there is no window, so every series, record and interval covers the
// connection; intervals are width wide (0: NiceInterval of r's duration),
// laid from r's first packet. The report draws every panel from it. rep is
// the report r belongs to (its Start is CaptureS's origin); r's series are
// read as kept (tcpanalysis.Options.Keep).
func ConnView(rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, d flows.Direction, width time.Duration) *View {
	sel := Selection{Conn: r.Conn.Index, Dir: AB, Ref: RefSYN}
	if d == flows.BtoA {
		sel.Dir = BA
	}
	if width <= 0 {
		width = NiceInterval(r.Conn.Duration())
	}
	return &View{File: rep.File, Report: rep, Sel: sel, Conns: []*tcpanalysis.ConnResult{r}, Matched: 1,
		Conn: r, Dir: d, Ref: r.Conn.First, RefUsed: RefSYN, Interval: width}
}

// Segs yields the segments direction d of connection r sent in the
// window — data, SYN and FIN, each with its class
// (docs/metrics.md#segment-classes) — in capture order; none when r's
// series were not kept.
func (v *View) Segs(r *tcpanalysis.ConnResult, d flows.Direction) iter.Seq[tcpanalysis.SegPoint] {
	return inWindow(v, r, d, func(s *tcpanalysis.Series) []tcpanalysis.SegPoint { return s.Segs[d] },
		func(p *tcpanalysis.SegPoint) capture.Timestamp { return p.Time })
}

// Acks yields the acknowledgements of direction d's data (sent by the
// peer) in the window: cumulative ACK and receive window
// (docs/metrics.md#time-sequence), in capture order; none when r's series
// were not kept.
func (v *View) Acks(r *tcpanalysis.ConnResult, d flows.Direction) iter.Seq[tcpanalysis.AckPoint] {
	return inWindow(v, r, d, func(s *tcpanalysis.Series) []tcpanalysis.AckPoint { return s.Acks[d] },
		func(p *tcpanalysis.AckPoint) capture.Timestamp { return p.Time })
}

// SACKs yields the SACK blocks (RFC 2018) the peer sent for direction d's
// data in the window, in capture order; none when r's series were not
// kept.
func (v *View) SACKs(r *tcpanalysis.ConnResult, d flows.Direction) iter.Seq[tcpanalysis.SACKPoint] {
	return inWindow(v, r, d, func(s *tcpanalysis.Series) []tcpanalysis.SACKPoint { return s.SACKs[d] },
		func(p *tcpanalysis.SACKPoint) capture.Timestamp { return p.Time })
}

// WindowPoints yields direction d's receive window and bytes in flight at
// each of its data segments and ACKs in the window
// (docs/metrics.md#bytes-in-flight), in capture order; none when r's
// series were not kept.
func (v *View) WindowPoints(r *tcpanalysis.ConnResult, d flows.Direction) iter.Seq[tcpanalysis.WindowPoint] {
	return inWindow(v, r, d, func(s *tcpanalysis.Series) []tcpanalysis.WindowPoint { return s.Window[d] },
		func(p *tcpanalysis.WindowPoint) capture.Timestamp { return p.Time })
}

// RTTSamples yields connection r's RTT samples of method m measured for
// direction d's data (docs/metrics.md#rtt) in the window, in capture
// order. The times are d's: a connection has one reference point.
func (v *View) RTTSamples(r *tcpanalysis.ConnResult, d flows.Direction, m tcpanalysis.Method) iter.Seq[tcpanalysis.RTTSample] {
	ref := v.RefOf(r, d)
	return func(yield func(tcpanalysis.RTTSample) bool) {
		for _, x := range r.RTT {
			if x.Method == m && x.Dir == d && v.Sel.InRange(x.Time, ref) && !yield(x) {
				return
			}
		}
	}
}

// Events yields connection r's events of direction d
// (docs/metrics.md#events) in the window, in capture order.
func (v *View) Events(r *tcpanalysis.ConnResult, d flows.Direction) iter.Seq[tcpanalysis.Event] {
	ref := v.RefOf(r, d)
	return func(yield func(tcpanalysis.Event) bool) {
		for _, e := range r.Events {
			if e.Dir == d && v.Sel.InRange(e.Time, ref) && !yield(e) {
				return
			}
		}
	}
}

// ZeroWindows yields the periods in which the receiver of direction d's
// data advertised a zero window (docs/metrics.md#events) that overlap the
// window: one that starts in it, or that started before it and was still
// closed at its start (a zoom inside a stall lists the stall); End is 0
// for a period still open when the capture ended.
func (v *View) ZeroWindows(r *tcpanalysis.ConnResult, d flows.Direction) iter.Seq[tcpanalysis.ZeroWindowPeriod] {
	ref := v.RefOf(r, d)
	return func(yield func(tcpanalysis.ZeroWindowPeriod) bool) {
		for _, z := range r.ZeroWindows {
			if z.Dir == d && overlaps(v.Sel, z, ref, r.Conn.Last) && !yield(z) {
				return
			}
		}
	}
}

// overlaps reports whether zero-window period z shares a moment with the
// selected window [From, To] after ref (InWindow's ends, both included).
// A period still open at the end of the capture lasts to the connection's
// last packet (last), not beyond.
func overlaps(sel Selection, z tcpanalysis.ZeroWindowPeriod, ref, last capture.Timestamp) bool {
	if sel.InRange(z.Start, ref) {
		return true
	}
	// Started before the window: overlapping while still closed at its
	// start.
	end := z.End
	if end == 0 {
		end = last
	}
	return z.Start.Sub(ref) < sel.From && end.Sub(ref) >= sel.From
}

// inWindow yields the points of one kept part of r's series (part) that
// lie in v's window.
func inWindow[P any](v *View, r *tcpanalysis.ConnResult, d flows.Direction, part func(*tcpanalysis.Series) []P, at func(*P) capture.Timestamp) iter.Seq[P] {
	return func(yield func(P) bool) {
		if r.Series == nil {
			return
		}
		ref := v.RefOf(r, d)
		ps := part(r.Series)
		for i := range ps {
			if v.Sel.InRange(at(&ps[i]), ref) && !yield(ps[i]) {
				return
			}
		}
	}
}
