package campaign

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// step is one point of a flow's cumulative acknowledged-bytes curve: from
// time T (seconds, captures' clock) on, Bytes payload bytes were
// acknowledged.
type step struct {
	T     float64
	Bytes int64
}

// ackCurve is direction d's acknowledged payload bytes over time: one step
// per new highest cumulative ACK (the FIN not counted), as
// tcpanalysis.AckedAt. r's Series must hold the ACKs.
func ackCurve(r *tcpanalysis.ConnResult, d flows.Direction) []step {
	if r.Series == nil {
		return nil
	}
	var out []step
	var high int64
	h := r.Conn.Half[d]
	for _, a := range r.Series.Acks[d] {
		v := a.Ack - 1
		if h.FinSeen && a.Ack > h.FinRel {
			v = h.FinRel - 1
		}
		if v > high {
			high = v
			out = append(out, step{a.Time.Seconds(), v})
		}
	}
	return out
}

// boundaries returns the explicit interval ends that may fall inside a
// connection of the capture at path (labels its labels): Options.Interval,
// Options.End, and the start and stop times Options.Starts or the run's
// sidecar declares (any flow of the run; more than needed is harmless).
func boundaries(path string, labels map[string]string, o Options) []float64 {
	var b []float64
	if o.Interval != nil {
		return []float64{o.Interval.Start, o.Interval.Stop}
	}
	if o.End > 0 {
		b = append(b, o.End)
	}
	add := func(f AppFlow) {
		b = append(b, f.Start)
		if !math.IsNaN(f.Stop) {
			b = append(b, f.Stop)
		}
	}
	switch {
	case o.Starts != nil:
		for _, f := range o.Starts.flowsOf(labels) {
			add(f)
		}
	case o.Sidecars:
		if sc, err := FindSidecar(o.runKey(path)); err == nil {
			for _, f := range sc.Flows {
				add(f)
			}
		}
	}
	return b
}

// seriesNeeded returns the connections of rep that need their Series:
// those with a boundary after their first packet and no later than their
// last (the acknowledged-bytes curve decides the bytes there), and, when
// close is set (no --interval or --end ends the intervals), those whose
// FIN was captured (the receiving application's close).
// parts are the Series parts to keep: the segments only when a close is
// looked for.
func seriesNeeded(rep *tcpanalysis.Report, bounds []float64, close bool) (need map[int]bool, parts tcpanalysis.SeriesParts) {
	need, parts = map[int]bool{}, tcpanalysis.PartAcks
	for _, r := range rep.Conns {
		c := r.Conn
		if close && (c.Half[0].FinSeen || c.Half[1].FinSeen) {
			need[c.Index] = true
			parts |= tcpanalysis.PartSegs
			continue
		}
		first, last := c.First.Seconds(), c.Last.Seconds()
		for _, t := range bounds {
			if t > first && t <= last {
				need[c.Index] = true
				break
			}
		}
	}
	return need, parts
}

// appSpan is the receiving application's interval in one capture
// (pep.ReceiverInterval), seconds on the capture's clock: Start is the
// first data segment, Close the receiver's FIN or RST (NaN when the
// capture shows no close), Half half the handshake RTT toward the receiver
// (0 if unknown), by which the interval's ends are moved to the receiver.
type appSpan struct {
	Start, Close, Half float64
}

func appSpanOf(r *tcpanalysis.ConnResult, d flows.Direction) appSpan {
	iv := pep.ReceiverInterval(r, d)
	s := appSpan{Start: iv.Start.Seconds(), Close: math.NaN(), Half: iv.HandshakeRTT.Seconds() / 2}
	if iv.Close != 0 {
		s.Close = iv.Close.Seconds()
		if s.Close-s.Start <= 2*s.Half {
			s.Half = 0
		}
	}
	return s
}

// deliveredBefore returns the goodput bytes the row's flow had delivered
// before time t (seconds): the highest acknowledged bytes at an ACK before
// t; from the connection's last packet in the row's capture on, all its
// goodput bytes (on 802.11 these include the in-order bytes received after
// the last captured ACK, docs/metrics.md#goodput). An interval's end
// (stop true) at the last packet counts them; a start there does not.
func (r *FlowRow) deliveredBefore(t float64, stop bool) int64 {
	if t > r.connLast || (stop && t == r.connLast) {
		return r.TotalBytes
	}
	i := sort.Search(len(r.curve), func(i int) bool { return r.curve[i].T >= t })
	if i == 0 {
		return 0
	}
	return min(r.curve[i-1].Bytes, r.TotalBytes)
}

// clip sets the row's interval to [start, stop) and its bytes to the
// goodput bytes delivered inside it.
func (r *FlowRow) clip(start, stop float64) {
	r.FirstS, r.IntervalS = start, stop-start
	r.Bytes, r.Kbps = 0, 0
	if r.Vantage == Nowhere || r.IntervalS <= 0 {
		return
	}
	r.Bytes = max(0, r.deliveredBefore(stop, true)-r.deliveredBefore(start, false))
	r.Kbps = Kbps(r.Bytes, r.IntervalS)
}

// clipApp sets the row's interval to the receiving application's, as
// compare's end-to-end goodput (pep.SplitResult.Span): the bytes
// delivered from its first data to stop (its close, inclusive, or the
// run's end) at the capture point, over that span with both ends moved to
// the receiver by half the handshake RTT each (when closed; an end that
// is the run's end is not moved).
func (r *FlowRow) clipApp(stop float64, closed bool) {
	r.clip(r.app.Start, stop)
	if closed {
		r.Bytes = r.deliveredBefore(math.Nextafter(stop, math.Inf(1)), true)
	}
	shift := r.app.Half
	if closed {
		shift *= 2
	}
	if r.IntervalS > shift {
		r.FirstS += r.app.Half
		r.IntervalS -= shift
	}
	r.Kbps = Kbps(r.Bytes, r.IntervalS)
}

// ErrOutsideCaptures is returned by Goodput when Options.Interval starts at
// or after the last frame of every run's captures, or Options.End is at or
// before every flow's start: no byte can be in the intervals.
var ErrOutsideCaptures = errors.New("no captured byte can fall in the goodput interval")

// checkInterval adds Result.IntervalWarnings for intervals that reach
// outside their run's captures, and returns ErrOutsideCaptures (wrapped)
// when Options.Interval misses every run or Options.End every flow (an
// *OptionError naming OptInterval or OptEnd).
func checkInterval(res *Result, o Options) error {
	runs := make([]string, 0, len(res.RunEnd))
	for k := range res.RunEnd {
		runs = append(runs, k)
	}
	sort.Strings(runs)
	if o.Interval != nil && len(runs) > 0 {
		var outside []string
		for _, k := range runs {
			if o.Interval.Start >= res.RunEnd[k] {
				outside = append(outside, fmt.Sprintf("%s (ends at %.3f s)", filepath.Base(k), res.RunEnd[k]))
			}
		}
		if len(outside) == len(runs) {
			return &OptionError{Option: OptInterval, Err: ErrOutsideCaptures, Text: Textf("%v: %s starts at %g s, the captures end at or before it: %s (capture times are seconds since the epoch, or simulation seconds for ns-3)",
				ErrOutsideCaptures, OptInterval, o.Interval.Start, joinMax(outside, 4))}
		}
		for _, w := range outside {
			res.IntervalWarnings = append(res.IntervalWarnings, Warn(Caution, WarnInterval, "run %s: the interval starts after its captures ended: its flows' rates are 0, not measured", w))
		}
	}
	// An interval that ends after the run's captures counts no byte after
	// them: say so when that is more than 1 s and 1 % of the interval.
	late := map[string]float64{}
	for _, r := range res.Rows {
		end, ok := res.RunEnd[r.RunKey]
		if !ok || r.IntervalS <= 0 {
			continue
		}
		if stop := r.FirstS + r.IntervalS; stop-end > math.Max(1, 0.01*r.IntervalS) {
			late[r.RunKey] = math.Max(late[r.RunKey], stop)
		}
	}
	for _, k := range runs {
		if stop, ok := late[k]; ok {
			res.IntervalWarnings = append(res.IntervalWarnings, Warn(Caution, WarnInterval, "run %s: intervals end at up to %.3f s but its captures end at %.3f s: bytes delivered after the capture are unknown and counted as 0, so its rates may be too low",
				filepath.Base(k), stop, res.RunEnd[k]))
		}
	}
	if o.End > 0 && o.Interval == nil {
		n, all := 0, 0
		for _, r := range res.Rows {
			if r.Vantage != Nowhere {
				all++
				if r.IntervalS <= 0 {
					n++
				}
			}
		}
		if n > 0 && n == all {
			return &OptionError{Option: OptEnd, Err: ErrOutsideCaptures, Text: Textf("%v: %s %g s is at or before every flow's start (capture times are seconds since the epoch, or simulation seconds for ns-3)", ErrOutsideCaptures, OptEnd, o.End)}
		}
		if n > 0 {
			res.IntervalWarnings = append(res.IntervalWarnings, Warn(Caution, WarnInterval, "%d flows start at or after %s %g s: rate 0 over an empty interval", n, OptEnd, o.End))
		}
	}
	return nil
}

func joinMax(s []string, n int) string {
	out := ""
	for i, x := range s {
		if i == n {
			return out + fmt.Sprintf(", and %d more", len(s)-n)
		}
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
