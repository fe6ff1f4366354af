package tcpanalysis

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
)

// Percentiles returns count, min, p50, mean, p95 and max of ds, or ok false
// when ds is empty. Percentiles use the nearest-rank method.
func Percentiles(ds []time.Duration) (n int, min, p50, mean, p95, max time.Duration, ok bool) {
	if len(ds) == 0 {
		return 0, 0, 0, 0, 0, 0, false
	}
	s := append([]time.Duration(nil), ds...)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[max0(i)]
	}
	return len(s), s[0], rank(0.5), sum / time.Duration(len(s)), rank(0.95), s[len(s)-1], true
}

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}

// Bin is one interval of the throughput and goodput series
// (docs/metrics.md#throughput-over-time): [Start, Start + Width).
type Bin struct {
	// Start is a capture time; Width is the grid's width but where the
	// span BinsFrom cuts cuts a bin (the first bin starts at lo, the last
	// ends at hi).
	Start capture.Timestamp
	Width time.Duration
	// Bytes are payload bytes sent in the bin (retransmissions included);
	// Acked the bytes newly acknowledged in the bin (goodput).
	Bytes, Acked int64
	// CumAcked is the highest acknowledged payload byte count at the end
	// of the bin (the highest cumulative ACK minus the first data byte,
	// capped at the FIN, as AckedAt: acknowledgements before the span
	// included).
	CumAcked int64
}

// MaxBins bounds the number of intervals BinsFrom makes.
const MaxBins = 1 << 20

// ErrTooManyBins means the span is too long for the interval (often a
// timestamp that jumps far ahead).
var ErrTooManyBins = errors.New("too many intervals")

// BinsFrom is the one binning rule of the throughput and goodput series
// (docs/metrics.md#throughput-over-time): it cuts direction d of r (whose
// Series must be kept) into bins of width w on the grid laid from origin —
// bin k starts at origin + k·w, so series laid from one origin share one
// grid — over the span [lo, hi] (lo ≥ origin). The first bin starts at
// lo; with cut the last ends at hi and only segments and ACKs in [lo, hi]
// count; without, hi only says where the last bin is (the connection's
// last packet) and it takes everything after lo. So the bins' Bytes add
// up to every payload byte sent in the span and their Acked to every byte
// newly acknowledged in it. It returns nil when r's Series was not kept,
// w ≤ 0 or hi < lo, and ErrTooManyBins (wrapped, with the span) when the
// span takes more than MaxBins bins.
func BinsFrom(r *ConnResult, d flows.Direction, w time.Duration, origin, lo, hi capture.Timestamp, cut bool) ([]Bin, error) {
	if r.Series == nil || w <= 0 || hi < lo {
		return nil, nil
	}
	k0 := int64(lo.Sub(origin) / w)
	kn := int64(hi.Sub(origin) / w)
	if cut && kn > k0 && origin+capture.Timestamp(time.Duration(kn)*w) == hi {
		kn-- // hi on a boundary: the last bin ends there
	}
	if kn-k0 >= MaxBins {
		return nil, fmt.Errorf("%w: the window spans %.0f s, %d intervals of %v; a timestamp may jump, or choose a longer interval", ErrTooManyBins, hi.Sub(lo).Seconds(), kn-k0, w)
	}
	n := int(kn-k0) + 1
	out := make([]Bin, n)
	for i := range out {
		start := origin + capture.Timestamp(time.Duration(k0+int64(i))*w)
		end := start + capture.Timestamp(w)
		start = max(start, lo)
		if cut {
			end = min(end, hi)
		}
		out[i].Start, out[i].Width = start, end.Sub(start)
	}
	in := func(t capture.Timestamp) bool { return t >= lo && (!cut || t <= hi) }
	idx := func(t capture.Timestamp) int {
		return int(min(max(int64(t.Sub(origin)/w)-k0, 0), int64(n-1)))
	}
	for _, s := range r.Series.Segs[d] {
		if s.Payload > 0 && in(s.Time) {
			out[idx(s.Time)].Bytes += int64(s.Payload)
		}
	}
	// high: the level acknowledged so far, before the span included; pre:
	// the level before the span.
	var high, pre int64
	fin := r.Conn.Half[d]
	for _, a := range r.Series.Acks[d] {
		val := a.Ack - 1
		if fin.FinSeen && a.Ack > fin.FinRel {
			val = fin.FinRel - 1
		}
		if a.Time < lo {
			high, pre = max(high, val), max(pre, val) // acknowledged before the span
			continue
		}
		if !in(a.Time) {
			continue
		}
		if val > high {
			out[idx(a.Time)].Acked += val - max(high, 0)
			high = val
		}
	}
	// The level before the span, then each bin's new bytes.
	cum := pre
	for i := range out {
		cum += out[i].Acked
		out[i].CumAcked = cum
	}
	return out, nil
}

// AckedAt returns the payload bytes of direction d acknowledged by time t
// after ref (the highest cumulative ACK seen by then, minus the first data
// byte): the "sequence number reached after t seconds" of the satellite
// study. r's Series must be kept.
func AckedAt(r *ConnResult, d flows.Direction, ref capture.Timestamp, t time.Duration) int64 {
	var high int64
	for _, a := range r.Series.Acks[d] {
		if a.Time.Sub(ref) > t {
			break
		}
		high = max(high, a.Ack-1)
	}
	if h := r.Conn.Half[d]; h.FinSeen {
		high = min(high, h.FinRel-1)
	}
	return max(high, 0)
}

// SentAt returns the highest relative sequence number sent in direction d
// by time t after ref (the end of the highest segment, minus the ISN + 1).
func SentAt(r *ConnResult, d flows.Direction, ref capture.Timestamp, t time.Duration) int64 {
	var high int64
	for _, s := range r.Series.Segs[d] {
		if s.Time.Sub(ref) > t {
			break
		}
		if s.Payload > 0 {
			high = max(high, s.End-1)
		}
	}
	return high
}

// TimeTo returns how long after ref direction d's receiver had acknowledged
// n payload bytes, or false if it never did.
func TimeTo(r *ConnResult, d flows.Direction, ref capture.Timestamp, n int64) (time.Duration, bool) {
	for _, a := range r.Series.Acks[d] {
		if a.Ack-1 >= n {
			return a.Time.Sub(ref), true
		}
	}
	return 0, false
}

// FirstData returns the time of direction d's first data segment, or the
// connection's first packet if it sent none.
func FirstData(r *ConnResult, d flows.Direction) capture.Timestamp {
	if t := r.Dir[d].FirstData; t != 0 {
		return t
	}
	return r.Conn.First
}

// BulkPayload is the payload size, in bytes, from which a segment starts
// the bulk transfer (BulkStart).
const BulkPayload = 512

// BulkStart returns the time of direction d's first segment with at least
// BulkPayload payload bytes — the start of a bulk transfer, after a short
// request or a cookie such as iperf3's 37 bytes — or FirstData if there is
// none (HasBulk says which). It reads DirStats.FirstBulk, else r's Series.
func BulkStart(r *ConnResult, d flows.Direction) capture.Timestamp {
	if t, ok := bulk(r, d); ok {
		return t
	}
	return FirstData(r, d)
}

// HasBulk reports whether direction d sent a segment of at least
// BulkPayload payload bytes.
func HasBulk(r *ConnResult, d flows.Direction) bool {
	_, ok := bulk(r, d)
	return ok
}

func bulk(r *ConnResult, d flows.Direction) (capture.Timestamp, bool) {
	if t := r.Dir[d].FirstBulk; t != 0 {
		return t, true
	}
	if r.Series != nil {
		for _, s := range r.Series.Segs[d] {
			if s.Payload >= BulkPayload {
				return s.Time, true
			}
		}
	}
	return 0, false
}

// SlowStartRule says which rule ended slow start
// (docs/metrics.md#slow-start).
type SlowStartRule uint8

// Slow-start rules.
const (
	SlowStartNotEnded SlowStartRule = iota // no rule fired
	SlowStartLoss                          // the first retransmission
	SlowStartGrowth                        // bytes in flight stopped growing 1.5× per RTT round
)

// String is the rule's name: "loss", "growth", or "" when not ended.
func (r SlowStartRule) String() string {
	switch r {
	case SlowStartLoss:
		return "loss"
	case SlowStartGrowth:
		return "growth"
	}
	return ""
}

// SlowStart is where slow start ended for one direction
// (docs/metrics.md#slow-start).
type SlowStart struct {
	// End is the time of Frame since the reference point SlowStartEnd was
	// given.
	End  time.Duration
	Rule SlowStartRule // SlowStartNotEnded: End and Frame are meaningless
	// Frame is the packet that marks the end (the retransmission, or the
	// first segment of the round that did not double).
	Frame int64
}

// ackGrowth is SlowStartEnd's growth rule beside the sender, on rounds
// clocked by the ACKs (as a sender's own rounds are, e.g. HyStart's): a
// round begins with a data segment and ends when an ACK of that segment
// comes back; the next segment begins the next round. The first round
// that sent less than 1.5 × the previous round's new bytes (sequence
// space above the highest sent so far) ends slow start. Rounds of the
// minimum RTT were too short where the RTT varies: on ns-3 MANET flows
// (minimum 8 ms, the socket's RTT 135–556 ms) slow start "ended" in the
// first 10–60 ms.
func ackGrowth(segs []SegPoint, acks []AckPoint, t0 capture.Timestamp) (SlowStart, bool) {
	var prev, cur, high, target int64
	rounds := 0
	var roundFrame int64
	var roundTime capture.Timestamp
	j := 0
	for _, s := range segs {
		if s.Payload == 0 || s.Time < t0 {
			high = max(high, s.End)
			continue
		}
		ended := false
		for ; j < len(acks) && acks[j].Frame < s.Frame; j++ {
			ended = ended || (rounds > 0 && acks[j].Ack >= target)
		}
		if rounds == 0 || ended {
			if rounds >= 2 && prev > 0 && float64(cur) < 1.5*float64(prev) {
				return SlowStart{End: roundTime.Sub(t0), Rule: SlowStartGrowth, Frame: roundFrame}, true
			}
			prev, cur, roundFrame, roundTime, target = cur, 0, s.Frame, s.Time, s.End
			rounds++
		}
		if s.End > high {
			cur += s.End - max(high, s.Start)
			high = s.End
		}
	}
	return SlowStart{}, false
}

// arrivalGrowth is SlowStartEnd's growth rule on the new bytes (sequence
// space above the highest seen so far) of segs after t0, in rounds: a
// round is a flight (a new one begins after a pause of a quarter of rtt
// and of twice the shortest spacing within a flight) or, once flights run
// into each other, rtt long. The first round
// with less than 1.5 × the previous round's new bytes ends slow start.
// Flights rather than fixed intervals: the handshake leg that completes
// rtt at a receiver-side capture includes the server's SYN processing
// (347 against 307 ms on zeek-http-no-crlf.pcap), and intervals that drift
// across flights halve one round and double the next.
func arrivalGrowth(segs []SegPoint, t0 capture.Timestamp, rtt time.Duration) (SlowStart, bool) {
	var prev, cur, high int64
	rounds := 0
	var roundFrame int64
	var roundTime, last capture.Timestamp
	var minGap time.Duration // shortest spacing of arrivals so far
	for _, s := range segs {
		if s.Payload == 0 || s.Time < t0 {
			high = max(high, s.End)
			continue
		}
		gap := s.Time.Sub(last)
		// A flight ends at a pause of a quarter of rtt, and of twice the
		// shortest spacing of arrivals: behind a slow link the segments
		// of one flight arrive a serialisation time apart (15.7 ms on
		// ns3-tcp-large-transfer-2-0.pcap against an rtt of 31 ms).
		if rounds == 0 || gap >= max(rtt/4, 2*minGap) || s.Time.Sub(roundTime) >= rtt {
			if rounds >= 2 && prev > 0 && float64(cur) < 1.5*float64(prev) {
				return SlowStart{End: roundTime.Sub(t0), Rule: SlowStartGrowth, Frame: roundFrame}, true
			}
			prev, cur, roundFrame, roundTime = cur, 0, s.Frame, s.Time
			rounds++
		}
		if rounds > 1 && gap > 0 && (minGap == 0 || gap < minGap) {
			minGap = gap
		}
		last = s.Time
		if s.End > high {
			cur += s.End - max(high, s.Start)
			high = s.End
		}
	}
	return SlowStart{}, false
}

// FlightPoints yields the bytes in flight of direction d at the points of
// Series.Window[d] (its data segments and FINs, and the ACKs of its data):
// Time, Frame, InFlight and FlightValid. When the window part was not kept
// (Options.KeepParts) they are rebuilt from the segments and ACKs: the
// highest sequence sent (a bare SYN not counted) minus the highest ACK,
// both so far; a connection whose state was released and started afresh
// (a late packet after its close) is not rebuilt that way.
func FlightPoints(r *ConnResult, d flows.Direction) iter.Seq[WindowPoint] {
	return func(yield func(WindowPoint) bool) {
		ser := r.Series
		if len(ser.Window[d]) > 0 || (len(ser.Segs[d]) == 0 && len(ser.Acks[d]) == 0) {
			for _, w := range ser.Window[d] {
				if !yield(w) {
					return
				}
			}
			return
		}
		segs, acks := ser.Segs[d], ser.Acks[d]
		var high, ack int64
		ackSeen := false
		for i, j := 0, 0; i < len(segs) || j < len(acks); {
			var w WindowPoint
			if j == len(acks) || (i < len(segs) && segs[i].Frame < acks[j].Frame) {
				s := segs[i]
				i++
				if s.Payload > 0 || s.Flags&(capture.SYN|capture.ACK|capture.FIN|capture.RST) != capture.SYN {
					// A bare SYN is counted before the direction has
					// state (Analyzer.Add): not in its highest sequence.
					high = max(high, s.End)
				}
				if s.Payload == 0 && !s.Flags.Has(capture.FIN) {
					continue // a SYN: no window point
				}
				w = WindowPoint{Time: s.Time, Frame: s.Frame}
			} else {
				a := acks[j]
				j++
				if !ackSeen || a.Ack > ack {
					ack = a.Ack
				}
				ackSeen = true
				w = WindowPoint{Time: a.Time, Frame: a.Frame}
			}
			if ackSeen {
				w.FlightValid, w.InFlight = true, max(0, high-ack)
			}
			if !yield(w) {
				return
			}
		}
	}
}

// SlowStartEnd finds the end of slow start in direction d
// (docs/metrics.md#slow-start): the first retransmission of data (RTO,
// fast or a gap-filling retransmission; not a SYN or FIN sent again), or
// the first round that carried less than
// 1.5 × the previous round's new bytes, whichever comes first — rounds
// clocked by the ACKs beside the sender (ackGrowth), flights beside the
// receiver (arrivalGrowth), and on an 802.11 capture the first
// retransmission only. Without segments and ACKs kept, the first RTT
// round whose peak bytes in flight is less than 1.5 × the previous
// round's (rounds of this direction's minimum ACK or TS sample, else the
// handshake RTT). Rounds start at t0 (FirstData or BulkStart); End is
// relative to t0. r's Series (segments and ACKs, or the window points)
// and events must be kept.
func SlowStartEnd(r *ConnResult, d flows.Direction, t0 capture.Timestamp) SlowStart {
	res := SlowStart{}
	for _, e := range r.Events {
		// Data only: a SYN or FIN sent again (len 0) is no loss of a
		// round's data (a SYN retried before the first byte "ended" slow
		// start 0.123 s before the reference point on ns-3 aodv).
		if e.Dir == d && e.Class.IsRetransmission() && e.Len > 0 {
			res = SlowStart{End: e.Time.Sub(t0), Rule: SlowStartLoss, Frame: e.Frame}
			break
		}
	}
	// On 802.11 the capture records a frame when it goes on air, after
	// the sender's queue and at the MAC's pace: the new bytes per round
	// show the link's rate while the window grows into the queue (ns-3
	// MANET flows "ended" slow start 8–250 ms after the bulk start, their
	// sockets' cwnd grew for 0.5–2.2 s, until the first retransmission).
	// Only the loss rule is evidence there.
	if r.Conn != nil && (r.Conn.Half[0].MACKnown || r.Conn.Half[1].MACKnown) {
		return res
	}
	// Beside the receiver or a relay (OtherLeg) the bytes in flight at
	// the capture point are only what the receiver has yet to
	// acknowledge, a segment or two: the rounds compare the new bytes
	// that arrive in each flight instead, which double per round at any
	// capture point while the window does. The round trip is then the
	// two legs added: own, capture point → receiver → capture point, and
	// other, capture point → sender → capture point (at a receiver-side
	// capture own is only the receiver's turnaround, 0.1 ms).
	if own, other, _, ok := OtherLeg(r, d); ok && len(r.Series.Segs[d]) > 0 {
		if g, ok := arrivalGrowth(r.Series.Segs[d], t0, own+other); ok && (res.Rule == SlowStartNotEnded || g.End < res.End) {
			res = g
		}
		return res
	}
	if segs, acks := r.Series.Segs[d], r.Series.Acks[d]; len(segs) > 0 && len(acks) > 0 {
		if g, ok := ackGrowth(segs, acks, t0); ok && (res.Rule == SlowStartNotEnded || g.End < res.End) {
			res = g
		}
		return res
	}
	// Only window points kept: rounds of the minimum RTT beside the
	// sender (its own samples), else the handshake's.
	rtt, _ := minSample(r, d, MethodACK, MethodTS)
	if rtt == 0 {
		rtt = r.Handshake.SynToSynAck + r.Handshake.SynAckToAck
	}
	if rtt <= 0 {
		return res
	}
	var prev, cur int64
	round := 0
	var roundFrame int64
	var roundTime capture.Timestamp
	for w := range FlightPoints(r, d) {
		if !w.FlightValid || w.Time < t0 {
			continue
		}
		k := int(w.Time.Sub(t0) / rtt)
		if k != round {
			if round >= 1 && prev > 0 && float64(cur) < 1.5*float64(prev) {
				// The round's first packet, which Frame names (not the
				// round's nominal start round × rtt, which may fall
				// between packets).
				end := roundTime.Sub(t0)
				if res.Rule == SlowStartNotEnded || end < res.End {
					res = SlowStart{End: end, Rule: SlowStartGrowth, Frame: roundFrame}
				}
				break
			}
			prev, cur, round, roundFrame, roundTime = cur, 0, k, w.Frame, w.Time
		}
		cur = max(cur, w.InFlight)
	}
	return res
}
