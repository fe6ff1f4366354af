package pep

import (
	"sort"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// MaxStartGap is the largest difference between the first packets of the
// two halves of one split connection that MatchSplit accepts: the PEP opens
// its server-side connection when the client's SYN (or first data) arrives,
// so the halves start within a few seconds even over a satellite hop.
const MaxStartGap = 5 * time.Second

// SplitPair is one connection seen in two captures, one on each side of a
// PEP. Indexes are those of tcpanalysis.Report.Conns.
type SplitPair struct {
	Client, Server int // connection index in the client-side and server-side report
	// Dir is the data direction examined (the one that carried more payload
	// at the client side); the same direction in both captures, since the
	// client side and the PEP both open their connection (side A).
	Dir flows.Direction
	// StartGap is the server-side half's first packet minus the client-side
	// half's first packet (both captures on one clock); may be negative by
	// clock skew.
	StartGap time.Duration
	// ClientBytes and ServerBytes are Dir's unique payload bytes in each
	// capture. A PEP that had not forwarded everything when the captures
	// ended shows ServerBytes < ClientBytes.
	ClientBytes, ServerBytes int64
	// SameConn reports that both captures saw one TCP connection (same
	// endpoints and initial sequence numbers): nothing split it.
	SameConn bool
}

// MatchSplit pairs each connection of the client-side capture with at most
// one connection of the server-side capture: same server port (side B),
// the same data direction carrying payload, server-side unique bytes at
// most the client side's (plus one 64 KiB allowance for capture edges), and
// first packets within MaxStartGap. Sequence spaces and the client address
// may differ (a PEP numbers its own bytes and may use its own source
// address). Pairs with equal byte counts are chosen first, then by the
// smallest |StartGap|; each connection is used once. Result in client index
// order.
func MatchSplit(client, server *tcpanalysis.Report) []SplitPair {
	const slack = 64 << 10
	type cand struct {
		p     SplitPair
		exact bool
	}
	var cs []cand
	for _, c := range client.Conns {
		d := flows.AtoB
		if c.Dir[flows.BtoA].Unique > c.Dir[flows.AtoB].Unique {
			d = flows.BtoA
		}
		cb := c.Dir[d].Unique
		for _, s := range server.Conns {
			if s.Conn.Half[flows.BtoA].Addr.Port() != c.Conn.Half[flows.BtoA].Addr.Port() {
				continue
			}
			sb := s.Dir[d].Unique
			if (cb > 0) != (sb > 0) || sb > cb+slack {
				continue
			}
			gap := s.Conn.First.Sub(c.Conn.First)
			if gap > MaxStartGap || gap < -MaxStartGap {
				continue
			}
			same := c.Conn.Key == s.Conn.Key &&
				c.Conn.Half[0].ISNKnown && s.Conn.Half[0].ISNKnown &&
				c.Conn.Half[0].ISN == s.Conn.Half[0].ISN
			cs = append(cs, cand{SplitPair{c.Conn.Index, s.Conn.Index, d, gap, cb, sb, same}, cb == sb})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].exact != cs[j].exact {
			return cs[i].exact
		}
		return absDur(cs[i].p.StartGap) < absDur(cs[j].p.StartGap)
	})
	usedC, usedS := map[int]bool{}, map[int]bool{}
	var out []SplitPair
	for _, c := range cs {
		if usedC[c.p.Client] || usedS[c.p.Server] {
			continue
		}
		usedC[c.p.Client], usedS[c.p.Server] = true, true
		out = append(out, c.p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Client < out[j].Client })
	return out
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// HeldPoint is the number of bytes inside the PEP at one instant.
type HeldPoint struct {
	Time  capture.Timestamp // capture time of the ACK that changed it (either capture)
	Bytes int64             // bytes acknowledged upstream minus bytes acknowledged downstream
}

// SplitResult is the analysis of one SplitPair.
type SplitResult struct {
	SplitPair
	// ClientPEPRTT is the RTT between the client and the PEP, from the
	// client-side capture: the RTT from the capture point to side B (the
	// PEP) and back — median ACK RTT of Dir's data when the client sends,
	// else TS, else handshake — plus the RTT from the capture point to the
	// client and back (samples of the reverse direction, same preference;
	// about 0 at a capture on the client). 0 if unknown.
	ClientPEPRTT time.Duration
	// PEPServerRTT is the RTT between the PEP and the server, from the
	// server-side capture by the same rule. There the PEP is side A: for
	// an upload the server's ACK RTT measures only the capture point ↔
	// server stretch (≈ 0 at a capture on the server); the PEP half shows
	// in the reverse direction — the server's SYN-ACK → the PEP's ACK and
	// the server's TSval → the PEP's echo. Summing both stretches gives the
	// PEP ↔ server RTT wherever the server-side capture point lies.
	PEPServerRTT time.Duration
	// Held is the bytes inside the PEP after every ACK in either capture:
	// bytes acknowledged to the sender by the PEP minus bytes the final
	// receiver acknowledged to the PEP. Empty unless both reports kept the
	// connections' Series (tcpanalysis.Options.Keep). For a SameConn pair it
	// is ≤ 0: the receiver's ACKs pass the server-side capture first.
	Held []HeldPoint
	// MaxHeldBytes is the largest value in Held, bytes.
	MaxHeldBytes int64
	// DeliveredBytes are the bytes the final receiver acknowledged (its
	// capture's AckedBytes for Dir).
	DeliveredBytes int64
	// Span is the receiving application's interval, from the downstream
	// capture (the one on the final receiver's side of the PEP): from the
	// first data segment there to the receiver's own FIN or RST (its
	// application closed), or, when the capture shows no close, to its ACK
	// that first reached DeliveredBytes, less the handshake RTT from the
	// capture point to the receiver (both ends moved to the receiver; ≈ 0
	// at a capture on it); 0 if unknown. A stall before the
	// close counts, as it does for the application: iperf3's receiver clock
	// runs from the data connection's cookie to its close, and this matches
	// it (docs/metrics.md#pep). The sender's own interval is no measure of
	// end-to-end delivery behind a PEP, which accepts data at LAN speed.
	Span time.Duration
	// GoodputKbps is DeliveredBytes × 8 / Span / 1000, kbit/s; 0 if Span
	// is 0.
	GoodputKbps float64
}

// AnalyzeSplit measures each pair of MatchSplit over the two reports. Both
// captures must be on one clock (they are in the project's testbed). For a
// client upload (Dir AtoB, client sends) the upstream capture is the client
// side; for a download the server side.
func AnalyzeSplit(client, server *tcpanalysis.Report, pairs []SplitPair) []SplitResult {
	out := make([]SplitResult, 0, len(pairs))
	for _, p := range pairs {
		c, s := client.Conns[p.Client], server.Conns[p.Server]
		res := SplitResult{SplitPair: p}
		res.ClientPEPRTT = connRTT(c, flows.AtoB)
		res.PEPServerRTT = connRTT(s, flows.AtoB)
		up, down := c, s // the data enters the PEP from up and leaves it to down
		if p.Dir == flows.BtoA {
			up, down = s, c
		}
		res.DeliveredBytes = down.Dir[p.Dir].AckedBytes
		res.Span = receiverSpan(down, p.Dir, res.DeliveredBytes)
		if res.Span > 0 {
			res.GoodputKbps = float64(res.DeliveredBytes) * 8 / res.Span.Seconds() / 1000
		}
		if up.Series != nil && down.Series != nil {
			res.Held = held(up, down, p.Dir)
			for _, h := range res.Held {
				res.MaxHeldBytes = max(res.MaxHeldBytes, h.Bytes)
			}
		}
		out = append(out, res)
	}
	return out
}

// ReceiverGoodput is the end-to-end goodput of direction d of r when r's
// ACKs come from the final receiver (no PEP, or the downstream half of a
// split): AckedBytes × 8 / the receiving application's interval (as
// SplitResult.Span) / 1000, kbit/s; false when r holds no Series or no
// acknowledged data.
func ReceiverGoodput(r *tcpanalysis.ConnResult, d flows.Direction) (float64, bool) {
	b := r.Dir[d].AckedBytes
	span := receiverSpan(r, d, b)
	if span <= 0 {
		return 0, false
	}
	return float64(b) * 8 / span.Seconds() / 1000, true
}

// ReceiverGoodputTo is ReceiverGoodput (kbit/s) for a receiver that did
// not close in the capture: its interval then ends at end, the capture's
// last frame (the batch goodput's run end with one capture,
// docs/metrics.md#interval), instead of at its ACK of the last byte, so a
// flow whose packets stop early (a route lost, a stall before the run
// ends) is not measured over a shorter time. Its start is moved to the
// receiver by half the handshake RTT toward it, as ReceiverGoodput's.
// With a close captured, or end 0, it is ReceiverGoodput.
func ReceiverGoodputTo(r *tcpanalysis.ConnResult, d flows.Direction, end capture.Timestamp) (float64, bool) {
	iv := ReceiverInterval(r, d)
	if iv.Close != 0 || end == 0 || r.Series == nil {
		return ReceiverGoodput(r, d)
	}
	b := r.Dir[d].AckedBytes
	start := iv.Start + capture.Timestamp(iv.HandshakeRTT/2)
	if b <= 0 || end <= start {
		return 0, false
	}
	return float64(b) * 8 / end.Sub(start).Seconds() / 1000, true
}

// AppInterval is the receiving application's interval of one data
// direction as seen in one capture (docs/metrics.md#pep): Start is the
// first data segment, Close the receiver's own FIN or RST after it (0 when
// the capture shows no close), and HandshakeRTT the handshake RTT from the
// capture point to the receiver (0 if unknown), by which both ends are
// moved to the receiver: Start + HandshakeRTT/2 and Close − HandshakeRTT/2.
type AppInterval struct {
	Start, Close capture.Timestamp
	HandshakeRTT time.Duration
}

// ReceiverInterval returns direction d's AppInterval in r, whose Series
// must hold the reverse direction's segments (for the close); without a
// Series Close is 0. The rule is the one of SplitResult.Span, so a batch
// (package campaign) and compare measure end-to-end goodput over the same
// interval.
func ReceiverInterval(r *tcpanalysis.ConnResult, d flows.Direction) AppInterval {
	iv := AppInterval{Start: tcpanalysis.FirstData(r, d)}
	if hs, ok := handshakeToward(r, d); ok && hs > 0 {
		iv.HandshakeRTT = hs
		// A lost SYN-ACK or a route found late makes the handshake's
		// round trip an RTO or a route discovery, not the path: when it
		// is over 4 times and 100 ms more than the direction's smallest
		// ack/ts sample (the same round trip, capture point → receiver →
		// capture point), that sample is taken instead (ns-3 aodv r1
		// flow 0 at its source: a 3014 ms handshake, 7.2 ms samples; the
		// shift was 1.5 s, goodput 860.5 for PacketSink's 815.4). A
		// handshake near the samples (a satellite path's 600 ms) stays.
		least := iv.HandshakeRTT
		for _, m := range []tcpanalysis.Method{tcpanalysis.MethodACK, tcpanalysis.MethodTS} {
			if a := r.RTTAgg[d][m]; a.N > 0 && a.Min > 0 {
				least = min(least, a.Min)
			}
		}
		if iv.HandshakeRTT > 4*least && iv.HandshakeRTT-least > 100*time.Millisecond {
			iv.HandshakeRTT = least
		}
	}
	if r.Series == nil {
		return iv
	}
	for _, s := range r.Series.Segs[d.Reverse()] {
		if (s.Flags.Has(capture.FIN) || s.Flags.Has(capture.RST)) && s.Time > iv.Start {
			iv.Close = s.Time
			break
		}
	}
	return iv
}

// receiverSpan is SplitResult.Span for the downstream half r, data
// direction d, delivered bytes acknowledged by its receiver.
func receiverSpan(r *tcpanalysis.ConnResult, d flows.Direction, delivered int64) time.Duration {
	if r.Series == nil || delivered <= 0 {
		return 0
	}
	iv := ReceiverInterval(r, d)
	start, end := iv.Start, iv.Close
	if end == 0 {
		for _, a := range r.Series.Acks[d] {
			if acked(r, d, a.Ack) >= delivered {
				end = a.Time
				break
			}
		}
	}
	if end <= start {
		return 0
	}
	span := end.Sub(start)
	// Move both ends to the receiver: the first data reaches it half a
	// round trip after the capture point saw it, and its close or ACK left
	// it half a round trip before. The handshake RTT toward the receiver
	// is that round trip without queueing (≈ 0 at a capture on the
	// receiver); the first data and the receiver's close travel unqueued.
	if hs, ok := handshakeToward(r, d); ok && hs < span {
		span -= hs
	}
	return span
}

// connRTT is the RTT between the two ends of r's connection wherever the
// capture point lies on it: toward the receiver of d plus toward its
// sender (see towards), each the exact median of the samples when the
// analysis kept them (a number compare prints as the leg's RTT, as rtt
// prints its p50), else the estimate the verdicts read.
func connRTT(r *tcpanalysis.ConnResult, d flows.Direction) time.Duration {
	return exactToward(r, d) + exactToward(r, d.Reverse())
}

// exactToward is towards with the exact median of the kept samples, or
// of the bounded quantiles, when there are.
func exactToward(r *tcpanalysis.ConnResult, d flows.Direction) time.Duration {
	for _, m := range towardMethods {
		a := &r.RTTAgg[d][m]
		var ds []time.Duration
		for _, s := range r.RTT {
			if s.Dir == d && s.Method == m {
				ds = append(ds, s.RTT)
			}
		}
		if _, _, p50, _, _, _, ok := tcpanalysis.Percentiles(ds); ok {
			return p50
		}
		if p50, ok := a.Quantile(0.5); ok {
			return p50
		}
		if p50, _, ok := a.MedianEstimate(); ok {
			return p50
		}
	}
	return 0
}

// acked converts a relative cumulative ACK of direction d into payload
// bytes acknowledged (the SYN and a FIN take one sequence number each).
func acked(r *tcpanalysis.ConnResult, d flows.Direction, ack int64) int64 {
	if h := &r.Conn.Half[d]; h.FinSeen && h.FinRel < ack {
		ack = h.FinRel
	}
	return max(0, ack-1)
}

// held merges the ACK streams of up (the PEP acknowledging the sender) and
// down (the receiver acknowledging the PEP) in time order.
func held(up, down *tcpanalysis.ConnResult, d flows.Direction) []HeldPoint {
	ua, da := up.Series.Acks[d], down.Series.Acks[d]
	var out []HeldPoint
	var u, w int64 // running maxima of bytes acknowledged up and down
	i, j := 0, 0
	for i < len(ua) || j < len(da) {
		var t capture.Timestamp
		if j >= len(da) || (i < len(ua) && ua[i].Time <= da[j].Time) {
			t = ua[i].Time
			u = max(u, acked(up, d, ua[i].Ack))
			i++
		} else {
			t = da[j].Time
			w = max(w, acked(down, d, da[j].Ack))
			j++
		}
		h := u - w
		if n := len(out); n > 0 && out[n-1].Time == t {
			out[n-1].Bytes = h
			continue
		}
		if n := len(out); n > 0 && out[n-1].Bytes == h {
			continue
		}
		out = append(out, HeldPoint{t, h})
	}
	return out
}
