package query

import (
	"fmt"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// The selected window of a connection is [ref + From, ref + To] (To 0: to
// the connection's last packet), ref being the connection's reference
// point in its data direction (View.RefOf), shared by both directions.
// Every row, table and series of a View is limited to it
// (docs/schema.md#selection).

// RefUsedOf is the reference point actually used on connection r (for
// the outputs of either direction; see RefOf): Sel.Ref, or what it fell
// back to in r's data direction (Ref.Resolve).
func (v *View) RefUsedOf(r *tcpanalysis.ConnResult, d flows.Direction) Ref {
	_, used := v.Sel.Ref.Resolve(r, v.Sel.Dir.Of(r))
	return used
}

// Whole reports whether the selected window of connection r in direction
// d is the whole connection: no --from/--to and the reference point is
// the connection's first packet.
func (v *View) Whole(r *tcpanalysis.ConnResult, d flows.Direction) bool {
	return v.Sel.From == 0 && v.Sel.To == 0 && v.RefOf(r, d) == r.Conn.First
}

// Span returns the selected window of connection r in direction d: from
// ref + From to ref + To, or to r's last packet when To is 0 (clipped
// false).
func (v *View) Span(r *tcpanalysis.ConnResult, d flows.Direction) (lo, hi capture.Timestamp, clipped bool) {
	ref := v.RefOf(r, d)
	lo = ref + capture.Timestamp(v.Sel.From)
	if v.Sel.To > 0 {
		return lo, ref + capture.Timestamp(v.Sel.To), true
	}
	return lo, r.Conn.Last, false
}

// Interval is one interval of the throughput and goodput series
// (docs/metrics.md#throughput-over-time).
type Interval struct {
	// Start and Width: the interval is [Start, Start + Width). Width is
	// View.Interval but where the selected window cuts an interval: the
	// first starts at ref + From, the last ends at ref + To.
	Start capture.Timestamp
	Width time.Duration
	// Bytes are the payload bytes sent in the interval (retransmissions
	// included), Acked the bytes newly acknowledged in it (goodput).
	Bytes, Acked int64
	// CumAcked is the highest acknowledged payload byte count at the end
	// of the interval (as tcpanalysis.AckedAt: since the first data byte,
	// acknowledgements before the window included).
	CumAcked int64
}

// Kbps returns bytes per interval i as kbit/s (RateKbps).
func (i Interval) Kbps(bytes int64) float64 { return RateKbps(bytes, i.Width.Seconds()) }

// RateKbps is bytes over seconds as kbit/s (bytes × 8 / seconds / 1000); 0 for
// an empty span. The one rate formula of every output (campaign.Kbps, the
// tput table and rows), so a rate recomputed from bytes and seconds is the
// very float printed.
func RateKbps(bytes int64, seconds float64) float64 {
	if !(seconds > 0) {
		return 0
	}
	return float64(bytes) * 8 / seconds / 1000
}

// Intervals cuts direction d of connection r (whose Series must be kept)
// into intervals of View.Interval laid from the reference point: interval
// k starts at ref + k × width, so every verb and every run of a
// comparison shares one grid. The first interval starts at ref + From,
// the last ends at ref + To or at the connection's last packet (end),
// whichever is first; so the intervals' Bytes
// add up to every payload byte sent in the window and their Acked to
// every byte acknowledged in it. The bins are tcpanalysis.BinsFrom's, the
// one binning rule of every output (the report's rates included: they are
// ConnView's intervals). Errors: tcpanalysis.ErrTooManyBins, wrapped with
// the span.
func (v *View) Intervals(r *tcpanalysis.ConnResult, d flows.Direction) ([]Interval, error) {
	return v.IntervalsAt(r, d, v.RefOf(r, d), r.Conn.Last)
}

// IntervalsAt is Intervals of connection r in direction d on the grid of
// another reference time ref (a capture on the same clock: the server side
// of a PEP pair on its client side's grid), to end when To is 0.
func (v *View) IntervalsAt(r *tcpanalysis.ConnResult, d flows.Direction, ref, end capture.Timestamp) ([]Interval, error) {
	lo, hi := ref+capture.Timestamp(v.Sel.From), end
	if v.Sel.To > 0 {
		hi = min(hi, ref+capture.Timestamp(v.Sel.To))
	}
	// The last interval ends at the window's end, or at the connection's
	// last packet: a whole interval there would spread the last bytes
	// over time the connection did not last (bulk conn 6: 1 MB in its
	// last 0.07 s drawn as 4 Mbit/s over 2 s, a collapse that was not).
	cut := true
	bins, err := tcpanalysis.BinsFrom(r, d, v.Interval, ref, lo, hi, cut)
	if err != nil || bins == nil {
		return nil, err
	}
	out := make([]Interval, len(bins))
	for i, b := range bins {
		out[i] = Interval{Start: b.Start, Width: b.Width, Bytes: b.Bytes, Acked: b.Acked, CumAcked: b.CumAcked}
	}
	return out, nil
}

// refWarnings is the WarnRefFallback warning of the chosen connection,
// when its data direction has no Sel.Ref.
func (v *View) refWarnings() []Warning {
	if used := v.RefUsed; v.Sel.Ref != RefSYN && used != v.Sel.Ref {
		return []Warning{{Kind: WarnRefFallback, File: v.File, Conn: v.Conn.Conn.Index, Dir: v.Dir, Ref: used,
			Text: fmt.Sprintf("no %s in direction %s: times count from %s (--ref %s) instead", v.Sel.Ref.Needs(), v.Dir, used.Describe(), used)}}
	}
	return nil
}

// Needs names what a reference point looks for in a direction ("data
// segment", …), for messages saying it was not found.
func (r Ref) Needs() string {
	switch r {
	case RefBulk:
		return fmt.Sprintf("segment with ≥ %d payload bytes", tcpanalysis.BulkPayload)
	case RefData:
		return "data segment"
	}
	return "packet"
}
