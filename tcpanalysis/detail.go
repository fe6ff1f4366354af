package tcpanalysis

import (
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/seq"
)

// dirState is the streaming state of one data direction: what its sender
// sent, and what its receiver acknowledged (from the reverse direction's
// packets). It holds only what is still needed: outstanding first
// transmissions for RTT samples, sequence-space sets, pending TSvals.
type dirState struct {
	seen    spanSet // payload bytes sent
	resent  spanSet // bytes sent more than once (retransmissions, probes, keep-alives): Karn's rule
	probe   spanSet // bytes first sent as zero-window probes
	sacked  spanSet // bytes the receiver SACKed above its cumulative ACK
	highPay int64   // end of the highest payload byte sent
	anyPay  bool
	highSeq int64 // end of the highest segment (SYN/FIN included)

	out      []outSeg // first transmissions of new data, ends increasing, from outHead on
	outHead  int
	gapAt    capture.Timestamp // when the capture last saw a gap open (a segment above highPay)
	hasGap   bool
	lastAck  int64 // receiver's highest cumulative ACK
	ackSeen  bool
	win      int64 // receiver's last advertised window (bytes when winKnown, else raw)
	winRaw   uint16
	winKnown bool
	dupAcks  int  // consecutive duplicate ACKs at lastAck
	fastDone bool // a fast retransmission was classified since lastAck last moved
	sackHole bool // a SACK above lastAck arrived since lastAck last moved
	inZW     bool
	zwStart  capture.Timestamp
	zwFrame  int64

	tsq       []tsEnt // TSvals sent, first sighting, increasing, from tsHead on
	tsHead    int
	lastTSval uint32
	tsSeen    bool

	minRTT time.Duration // smallest ACK or TS sample so far (0: none)
}

type outSeg struct {
	start int64
	end   int64
	t     capture.Timestamp
	frame int64
}

type tsEnt struct {
	val   uint32
	t     capture.Timestamp
	frame int64
}

// hsState times the handshake at the capture point.
type hsState struct {
	synAt, synAckAt     capture.Timestamp
	synSeen, synAckSeen bool
	done                bool
}

// Handshake holds the handshake split at the capture point: SYN → SYN-ACK
// is the path from the capture point to side b and back; SYN-ACK → ACK the
// path to side a and back. Valid iff the Ok fields say so.
type Handshake struct {
	SynToSynAck, SynAckToAck     time.Duration
	SynToSynAckOk, SynAckToAckOk bool
}

// RTTAgg is the running summary of one direction's samples of one method:
// count, sum, min and max. Percentiles need the samples (Options.Detail).
type RTTAgg struct {
	N             int64
	Sum, Min, Max time.Duration
}

func (a *RTTAgg) add(d time.Duration) {
	if a.N == 0 || d < a.Min {
		a.Min = d
	}
	if d > a.Max {
		a.Max = d
	}
	a.N++
	a.Sum += d
}

// Mean returns the mean sample, 0 when there is none.
func (a *RTTAgg) Mean() time.Duration {
	if a.N == 0 {
		return 0
	}
	return a.Sum / time.Duration(a.N)
}

func (cs *connState) keepRTT(o Options) bool {
	return o.Detail || o.KeepRTT || cs.Series != nil
}

func (cs *connState) keepEvents(o Options) bool {
	return o.Detail || o.KeepEvents || cs.Series != nil
}

func (cs *connState) event(o Options, e Event) {
	cs.Counts[e.Dir][e.Class]++
	if cs.keepEvents(o) {
		cs.Events = append(cs.Events, e)
	}
}

func (cs *connState) sample(o Options, r RTTSample) {
	if r.RTT < 0 {
		return // timestamps went backwards between the two packets: no sample
	}
	cs.RTTAgg[r.Dir][r.Method].add(r.RTT)
	if r.Method != MethodHandshake {
		ds := &cs.dir[r.Dir]
		if ds.minRTT == 0 || r.RTT < ds.minRTT {
			ds.minRTT = r.RTT
		}
	}
	if cs.keepRTT(o) {
		cs.RTT = append(cs.RTT, r)
	}
}

// handshake times SYN → SYN-ACK → ACK (docs/metrics.md#rtt).
func (cs *connState) handshake(s *capture.Segment, p *flows.Packet) {
	h := &cs.hs
	if h.done {
		return
	}
	syn, ack := s.Flags.Has(capture.SYN), s.Flags.Has(capture.ACK)
	switch {
	case syn && !ack && p.Dir == flows.AtoB && !h.synSeen:
		h.synAt, h.synSeen = s.Time, true
	case syn && ack && p.Dir == flows.BtoA && !h.synAckSeen:
		h.synAckAt, h.synAckSeen = s.Time, true
		if h.synSeen {
			cs.Handshake.SynToSynAck, cs.Handshake.SynToSynAckOk = s.Time.Sub(h.synAt), true
			cs.pendingHS = append(cs.pendingHS, RTTSample{Time: s.Time, Frame: s.Frame, Dir: flows.AtoB, Method: MethodHandshake, RTT: s.Time.Sub(h.synAt)})
		}
	case !syn && ack && p.Dir == flows.AtoB && h.synAckSeen && p.AckValid && p.Ack == 1:
		cs.Handshake.SynAckToAck, cs.Handshake.SynAckToAckOk = s.Time.Sub(h.synAckAt), true
		cs.pendingHS = append(cs.pendingHS, RTTSample{Time: s.Time, Frame: s.Frame, Dir: flows.BtoA, Method: MethodHandshake, RTT: s.Time.Sub(h.synAckAt)})
		h.done = true
	}
}

// data classifies the payload of s in its direction and updates the
// summary counts (docs/metrics.md#events, #per-connection-summary).
func (cs *connState) data(s *capture.Segment, p *flows.Packet, o Options) SegKind {
	d := p.Dir
	ds := &cs.dir[d]
	st := &cs.Dir[d]
	for _, h := range cs.pendingHS {
		cs.sample(o, h)
	}
	cs.pendingHS = cs.pendingHS[:0]
	if p.End > ds.highSeq && s.SeqLen() > 0 {
		ds.highSeq = p.End
	}
	start := p.Seq
	if s.Flags.Has(capture.SYN) {
		start++
	}
	n := int64(s.PayloadLen)
	ev := func(c Class, orig int64) {
		cs.event(o, Event{Time: s.Time, Frame: s.Frame, Dir: d, Class: c, Seq: start, Len: s.PayloadLen, Original: orig})
	}
	if n == 0 {
		// A keep-alive without payload: SND.NXT − 1 (RFC 9293 §3.8.4).
		if ds.anyPay && !s.Flags.Has(capture.SYN) && !s.Flags.Has(capture.FIN) && !s.Flags.Has(capture.RST) && start == ds.highPay-1 && ds.ackSeen && ds.lastAck >= ds.highPay {
			ev(KeepAlive, 0)
		}
		return KindNew
	}
	end := start + n
	st.DataPkts++
	st.Bytes += n
	if st.FirstData == 0 {
		st.FirstData = s.Time
	}
	st.LastData = s.Time
	covered := ds.seen.covered(start, end)
	kind := KindNew
	zeroWin := ds.ackSeen && ds.winRaw == 0
	switch {
	case zeroWin && n <= 1 && start >= ds.highPay-1:
		// A zero-window probe (RFC 9293 §3.8.6.1): one byte while the
		// receiver's window is zero; the byte is new the first time.
		ev(ZWProbe, 0)
		kind = KindProbe
		st.Unique += n - covered
		if covered == 0 {
			ds.probe.add(start, end)
		} else {
			ds.resent.add(start, end)
		}
	case n <= 1 && covered == n && end == ds.highPay && ds.ackSeen && ds.lastAck >= ds.highPay:
		// A keep-alive with one garbage byte at SND.NXT − 1.
		ev(KeepAlive, 0)
		kind = KindProbe
		ds.resent.add(start, end)
	case covered > 0 && ds.probe.covered(start, end) == covered:
		// Only zero-window-probe bytes were sent before: new data that
		// includes the probed byte. Not a retransmission, but those bytes
		// were sent twice (Karn).
		ds.resent.add(start, end)
		st.Unique += n - covered
	case covered > 0:
		kind = KindRetransmitted
		st.RetxSegs++
		st.RetxBytes += covered
		st.Unique += n - covered
		ds.resent.add(start, end)
		ev(cs.retxClass(ds, start, end), ds.original(start))
	default:
		st.Unique += n
		if ds.anyPay && start < ds.highPay {
			// Fills a gap. Within one RTT of the gap opening it overtook
			// others (out of order); later it is a retransmission whose
			// first copy the capture never saw.
			rtt := cs.rttEstimate(ds)
			if ds.hasGap && (rtt == 0 || s.Time.Sub(ds.gapAt) < rtt) {
				kind = KindOutOfOrder
				st.OOOSegs++
				ev(OutOfOrder, 0)
			} else {
				kind = KindRetransmitted
				st.RetxSegs++
				ev(cs.retxClass(ds, start, end), 0)
			}
		} else {
			if ds.anyPay && start > ds.highPay {
				ev(LostSegment, 0)
			}
			ds.out = append(ds.out, outSeg{start: start, end: end, t: s.Time, frame: s.Frame})
		}
		if ds.anyPay && start > ds.highPay {
			ds.gapAt, ds.hasGap = s.Time, true
		}
	}
	ds.seen.add(start, end)
	if !ds.anyPay || end > ds.highPay {
		ds.highPay, ds.anyPay = end, true
	}
	if ds.ackSeen && ds.winKnown && ds.win > 0 && end == ds.lastAck+ds.win {
		ev(WindowFull, 0)
	}
	return kind
}

// retxClass decides why [start, end) was sent again (docs/metrics.md#events).
func (cs *connState) retxClass(ds *dirState, start, end int64) Class {
	if ds.ackSeen && end <= ds.lastAck {
		return Spurious
	}
	signal := ds.ackSeen && (ds.dupAcks >= 3 || ds.sackHole)
	switch {
	case signal && start <= ds.lastAck && !ds.fastDone:
		// The fast retransmission of the hole at the ACK (RFC 5681 §3.2).
		ds.fastDone = true
		return Fast
	case signal && start <= ds.lastAck:
		// The same hole again before the ACK moved: only the retransmission
		// timer resends a hole already fast-retransmitted (RFC 6675 §5.1).
		return RTO
	case signal && start > ds.lastAck && ds.sacked.maxHi() > start:
		// Another hole below SACKed data, during SACK loss recovery
		// (RFC 6675 §5).
		return Fast
	}
	return RTO
}

// rttEstimate is the direction's smallest measured RTT, else the handshake's.
func (cs *connState) rttEstimate(ds *dirState) time.Duration {
	if ds.minRTT > 0 {
		return ds.minRTT
	}
	return cs.Handshake.SynToSynAck + cs.Handshake.SynAckToAck
}

// ack processes s as an acknowledgment of the reverse direction's data:
// RTT samples (Karn), duplicate ACKs, SACK, window and zero-window periods.
// It returns the advertised window for the series.
func (cs *connState) ack(s *capture.Segment, p *flows.Packet, o Options) (int64, bool) {
	if !p.AckValid {
		return 0, false
	}
	rd := p.Dir.Reverse()
	ds := &cs.dir[rd]
	st := &cs.Dir[rd]
	win, known := p.Conn.ScaledWindow(p.Dir, s.Window, s.Flags.Has(capture.SYN))
	a := p.Ack
	if !st.AckSeen || a > st.MaxAck {
		st.MaxAck = a
	}
	st.AckSeen = true
	pure := s.PayloadLen == 0 && !s.Flags.Has(capture.SYN) && !s.Flags.Has(capture.FIN) && !s.Flags.Has(capture.RST)
	if ds.highSeq > 0 && a > ds.highSeq && !s.Flags.Has(capture.RST) {
		// An ACK for bytes the capture never saw sent (capture drops, or a
		// capture point past a PEP); counted, analysed on.
		st.AckedUnseen++
	}
	switch {
	case !ds.ackSeen:
		ds.lastAck, ds.ackSeen = a, true
		ds.popOut(a)
	case a > ds.lastAck:
		// Karn's rule (RFC 6298 §3): no sample if any newly acknowledged
		// byte was sent more than once.
		if seg, ok := ds.popOut(a); ok && ds.resent.covered(ds.lastAck, a) == 0 {
			cs.sample(o, RTTSample{Time: s.Time, Frame: s.Frame, Dir: rd, Method: MethodACK, RTT: s.Time.Sub(seg.t)})
		}
		ds.lastAck = a
		ds.dupAcks = 0
		ds.sackHole = false
		ds.fastDone = false
		ds.sacked.trim(a)
	case a == ds.lastAck && pure && s.Window == ds.winRaw && ds.highPay > a && ds.winRaw != 0:
		ds.dupAcks++
		cs.event(o, Event{Time: s.Time, Frame: s.Frame, Dir: rd, Class: DupAck, Seq: a})
	}
	for i := 0; i < int(s.Opts.NSACK); i++ {
		l, r := sackRel(p, s, i)
		if r > ds.lastAck && r-l < 1<<30 {
			ds.sacked.add(max(l, ds.lastAck), r)
			ds.sackHole = true
		}
	}
	if s.Window == 0 && !s.Flags.Has(capture.SYN) && !s.Flags.Has(capture.RST) {
		cs.event(o, Event{Time: s.Time, Frame: s.Frame, Dir: rd, Class: ZeroWindow, Seq: a})
		if !ds.inZW {
			ds.inZW, ds.zwStart, ds.zwFrame = true, s.Time, s.Frame
		}
	} else if ds.inZW && !s.Flags.Has(capture.RST) {
		cs.zwClosed = append(cs.zwClosed, ZeroWindowPeriod{Dir: rd, Start: ds.zwStart, End: s.Time, StartFrame: ds.zwFrame, EndFrame: s.Frame})
		ds.inZW = false
	}
	ds.win, ds.winRaw, ds.winKnown = win, s.Window, known
	return win, known
}

// original returns the frame of the first transmission of the bytes at
// start while they are unacknowledged, 0 if not known.
func (ds *dirState) original(start int64) int64 {
	for i := ds.outHead; i < len(ds.out); i++ {
		if e := ds.out[i]; e.start <= start && start < e.end {
			return e.frame
		}
	}
	return 0
}

// release drops the scratch state of a finished connection's direction;
// counts and summaries stay. A late packet still works, with less history.
func (ds *dirState) release() {
	ds.out, ds.outHead = nil, 0
	ds.tsq, ds.tsHead = nil, 0
	ds.resent.s, ds.probe.s, ds.sacked.s = nil, nil, nil
}

// popOut drops outstanding segments acknowledged by a and returns the one
// whose end is exactly a, if any.
func (ds *dirState) popOut(a int64) (outSeg, bool) {
	var hit outSeg
	ok := false
	i := ds.outHead
	for ; i < len(ds.out) && ds.out[i].end <= a; i++ {
		if ds.out[i].end == a {
			hit, ok = ds.out[i], true
		}
	}
	ds.outHead = i
	if ds.outHead == len(ds.out) {
		ds.out, ds.outHead = ds.out[:0], 0
	} else if ds.outHead > 1024 && ds.outHead > len(ds.out)/2 {
		n := copy(ds.out, ds.out[ds.outHead:])
		ds.out, ds.outHead = ds.out[:n], 0
	}
	return hit, ok
}

// timestamps takes TSval/TSecr samples as pping does: a TSval's first
// sighting, matched by its first echo (RFC 7323 §4.1).
func (cs *connState) timestamps(s *capture.Segment, p *flows.Packet) {
	if !s.Opts.TS {
		return
	}
	ds := &cs.dir[p.Dir]
	if !ds.tsSeen || seq.Num(ds.lastTSval).Less(seq.Num(s.Opts.TSval)) {
		ds.tsq = append(ds.tsq, tsEnt{val: s.Opts.TSval, t: s.Time, frame: s.Frame})
		ds.lastTSval, ds.tsSeen = s.Opts.TSval, true
		if len(ds.tsq)-ds.tsHead > 1<<16 { // never echoed: keep the newest half
			ds.tsHead = len(ds.tsq) - 1<<15
		}
	}
	if !s.Flags.Has(capture.ACK) || s.Opts.TSecr == 0 {
		return
	}
	rd := p.Dir.Reverse()
	rs := &cs.dir[rd]
	ecr := seq.Num(s.Opts.TSecr)
	i := rs.tsHead
	for i < len(rs.tsq) && seq.Num(rs.tsq[i].val).Less(ecr) {
		i++
	}
	if i < len(rs.tsq) && rs.tsq[i].val == s.Opts.TSecr {
		cs.sample(cs.opts, RTTSample{Time: s.Time, Frame: s.Frame, Dir: rd, Method: MethodTS, RTT: s.Time.Sub(rs.tsq[i].t)})
		i++
	}
	rs.tsHead = i
	if rs.tsHead == len(rs.tsq) {
		rs.tsq, rs.tsHead = rs.tsq[:0], 0
	} else if rs.tsHead > 1024 && rs.tsHead > len(rs.tsq)/2 {
		n := copy(rs.tsq, rs.tsq[rs.tsHead:])
		rs.tsq, rs.tsHead = rs.tsq[:n], 0
	}
}
