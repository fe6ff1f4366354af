package tcpanalysis

import (
	"sort"
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
	sacked  spanSet // bytes the receiver SACKed above its cumulative ACK; its mark is highSeq
	highPay int64   // end of the highest payload byte sent
	anyPay  bool
	highSeq int64 // end of the highest segment (SYN/FIN included)

	out     []outSeg // first transmissions of new data, ends increasing, from outHead on
	outHead int
	gapAt   capture.Timestamp // when the capture last saw a gap open (a segment above highPay)
	hasGap  bool
	lastAck int64 // receiver's highest cumulative ACK
	ackSeen bool
	// heardAck is the highest cumulative ACK of the receiver's that the
	// capturing 802.11 node overheard (flows.Packet.Overheard), valid iff
	// heardSeen: evidence that bytes below it were delivered, not an ACK
	// this node received.
	heardAck  int64
	heardSeen bool
	win       int64 // receiver's last advertised window (bytes when winKnown, else raw)
	winRaw    uint16
	winKnown  bool
	dupAcks   int  // consecutive duplicate ACKs at lastAck
	fastDone  bool // a fast retransmission was classified since lastAck last moved
	sackHole  bool // a SACK above lastAck arrived since lastAck last moved
	inZW      bool
	zwStart   capture.Timestamp
	zwFrame   int64

	tsq       []tsEnt // TSvals sent, first sighting, increasing, from tsHead on
	tsHead    int
	lastTSval uint32
	tsSeen    bool
	ecrMax    uint32 // highest TSecr the peer echoed of this direction's TSvals, valid iff ecrSeen
	ecrSeen   bool

	minRTT time.Duration // smallest ACK or TS sample so far (0: none)

	// retx remembers recent retransmissions until evidence decides
	// whether they were spurious (Eifel's TSecr, D-SACK); bounded.
	retx    []retxRec
	retxNew int // records in retx not yet covered by an ACK
	// pmtu holds the byte ranges of segments an ICMP fragmentation-needed
	// quoted as too big, not yet all sent again; bounded (maxPMTUSpans).
	pmtu   []pmtuSpan
	hdr    int   // IP + TCP header bytes of the direction's last data segment
	finSeq int64 // relative offset of this direction's FIN, valid iff finTx > 0
	finTx  int   // FIN transmissions seen
	synTx  int   // SYN transmissions seen
	// finFrame and finTSval are the frame and TSval (valid iff finTS) of
	// the first transmission of the FIN at finSeq: the original of a FIN
	// retransmission, and the copy an Eifel echo may name.
	finFrame int64
	finTSval uint32
	finTS    bool
}

// retxRec is one retransmission awaiting evidence of being spurious.
type retxRec struct {
	start, end int64
	tsval      uint32
	ts         bool  // tsval valid
	ev         int   // index in ConnResult.Events, or -1 when events are not kept
	class      Class // its class so far
	covered    bool  // the first ACK covering it was seen (TSecr checked)
	claimed    bool  // a D-SACK block was matched to it
	e          Event // the event as first classified (for Options.OnEvent)
	// prior holds the TSvals of the earlier captured transmissions of its
	// first byte (the original, earlier retransmissions): an ACK echoing
	// one of them was sent for an earlier copy (Eifel, RFC 3522).
	prior  [3]uint32
	nPrior uint8
}

// pmtuSpan is a segment [start, end) quoted as too big by an ICMP
// fragmentation-needed; sent is how far its bytes were sent again since.
type pmtuSpan struct{ start, end, sent int64 }

// maxPMTUSpans bounds the quoted segments remembered per direction.
const maxPMTUSpans = 64

// maxPMTUScan bounds the outstanding segments one ICMP error looks at.
const maxPMTUScan = 4096

// quotedTooBig remembers what an ICMP fragmentation-needed with next-hop
// MTU mtu (bytes; 0 if not given) quoting the segment at relative offset
// start makes the sender resend (RFC 1191 §6.5, RFC 8201 §5; Linux
// tcp_simple_retransmit): the quoted segment (the captured original
// starting there, else its first byte), and every outstanding original
// segment too big for the new MTU — a router that rate-limits its ICMP
// errors quotes only the first. Too big: payload + the direction's header
// bytes (IP + TCP with options, as its last data segment had) > mtu.
func (ds *dirState) quotedTooBig(start int64, mtu int) {
	end := start + 1
	if o, ok := ds.originalSeg(start); ok && o.start == start {
		end = o.end
	}
	ds.addPMTU(start, end)
	if mtu <= 0 || ds.hdr <= 0 {
		return
	}
	out := ds.out[ds.outHead:]
	if len(out) > maxPMTUScan {
		out = out[:maxPMTUScan]
	}
	for _, o := range out {
		if int(o.end-o.start)+ds.hdr > mtu && o.end > ds.lastAck {
			ds.addPMTU(max(o.start, ds.lastAck), o.end)
		}
	}
}

// addPMTU adds [start, end) to the ranges to be resent, joined to the last
// one when they touch and its resend has not begun.
func (ds *dirState) addPMTU(start, end int64) {
	for _, p := range ds.pmtu {
		if p.start <= start && end <= p.end {
			return
		}
	}
	if n := len(ds.pmtu); n > 0 && ds.pmtu[n-1].end == start && ds.pmtu[n-1].sent == ds.pmtu[n-1].start {
		ds.pmtu[n-1].end = end
		return
	}
	if len(ds.pmtu) >= maxPMTUSpans {
		ds.pmtu = append(ds.pmtu[:0], ds.pmtu[len(ds.pmtu)-maxPMTUSpans/2:]...)
	}
	ds.pmtu = append(ds.pmtu, pmtuSpan{start: start, end: end, sent: start})
}

// pmtuResend reports whether the retransmission [start, end) resends bytes
// of a segment quoted as too big (its first byte inside one not yet all
// sent again), and marks those bytes sent.
func (ds *dirState) pmtuResend(start, end int64) bool {
	hit := false
	k := 0
	for _, p := range ds.pmtu {
		if p.start <= start && start < p.end && start >= p.sent-1 {
			hit = true
		}
		if start <= p.sent && end > p.sent {
			p.sent = end
		}
		if p.sent < p.end {
			ds.pmtu[k] = p
			k++
		}
	}
	ds.pmtu = ds.pmtu[:k]
	return hit
}

// maxRetxRecs bounds the retransmissions remembered per direction.
const maxRetxRecs = 64

type outSeg struct {
	start int64
	end   int64
	t     capture.Timestamp
	frame int64
	tsval uint32
	ts    bool // tsval valid
}

type tsEnt struct {
	val   uint32
	t     capture.Timestamp
	frame int64
}

// ctlTx is one transmission of a SYN or SYN-ACK.
type ctlTx struct {
	t     capture.Timestamp
	frame int64
	tsval uint32
	ts    bool
	// wscale and sackPerm: the SYN carried the window-scale and
	// SACK-permitted options, which a SYN-ACK may carry only in answer to
	// a SYN that did (RFC 7323 §2.2, RFC 2018 §2).
	wscale, sackPerm bool
}

// maxCtlTx bounds the SYN (SYN-ACK) transmissions remembered.
const maxCtlTx = 16

// hsState times the handshake at the capture point.
type hsState struct {
	syns, synAcks []ctlTx
	synDone       bool
	// synRetx holds, per direction, the bare SYNs sent again before the
	// direction's state existed (connState.noteBareSyn), moved to its
	// retx when that state is made (connState.newDS); at most maxCtlTx.
	synRetx [2][]retxRec
}

// Handshake holds the handshake split at the capture point: SYN → SYN-ACK
// is the path from the capture point to side b and back; SYN-ACK → ACK the
// path to side a and back. Valid iff the Ok fields say so. A SYN (SYN-ACK)
// sent more than once makes its split ambiguous (Karn's rule, RFC 6298 §3)
// unless the answer's TSecr names the copy it answers (RFC 7323 §4.1);
// SynEvidence and SynAckEvidence say which (docs/metrics.md#rtt).
type Handshake struct {
	SynToSynAck, SynAckToAck     time.Duration
	SynToSynAckOk, SynAckToAckOk bool
	// SynTx and SynAckTx count the captured transmissions of the SYN and
	// of the SYN-ACK (one ISN).
	SynTx, SynAckTx int
	// SynEvidence and SynAckEvidence are EvSingle, EvTSecr or EvAmbiguous
	// once the answer was seen; EvNone before.
	SynEvidence, SynAckEvidence Evidence
}

// RTTAgg is the running summary of one direction's samples of one method:
// count, sum, min and max, their median (MedianEstimate), and, with
// Options.RTTQuantiles, what Quantile needs (quantile.go).
type RTTAgg struct {
	N             int64
	Sum, Min, Max time.Duration
	q             *quantiles
	// med follows the samples while the connection is alive (medHist);
	// when it is over, median and medState keep its answer.
	med      *medHist
	median   time.Duration
	medState uint8 // medOK | medIsExact, once frozen
}

const (
	medOK      = 1 << iota // median holds the samples' median
	medIsExact             // ... exactly
)

// MedianEstimate returns the nearest-rank median of the samples, kept for
// every connection whatever the options: exact up to 8 samples, past that
// within MedianRelErr (3.125 %) of it, clamped to [Min, Max]
// (docs/metrics.md#rtt-median-estimate). exact reports which; ok is false
// when a holds no samples.
func (a *RTTAgg) MedianEstimate() (m time.Duration, exact, ok bool) {
	switch {
	case a.med != nil:
		m, exact, ok = a.med.median()
	case a.medState != 0:
		m, exact, ok = a.median, a.medState&medIsExact != 0, true
	default:
		// At most 2 samples, never held (add): the nearest-rank median
		// is the smaller.
		m, exact, ok = a.Min, true, a.N > 0
	}
	if !ok {
		return 0, false, false
	}
	return min(max(m, a.Min), a.Max), exact, true
}

// freezeMedian keeps the median of a's samples and gives its histogram
// back to p: the connection is over.
func (a *RTTAgg) freezeMedian(p *scratchPool) {
	h := a.med
	if h == nil {
		return
	}
	m, exact, ok := h.median()
	a.median, a.medState, a.med = m, 0, nil
	if ok {
		a.medState |= medOK
	}
	if exact {
		a.medState |= medIsExact
	}
	p.putHist(h)
}

func (a *RTTAgg) add(d time.Duration, quant bool, p *scratchPool) {
	switch {
	case a.med != nil:
		a.med.add(d)
	case a.N >= 2:
		// The third sample: the first two are Min and Max (a connection's
		// handshake sample alone never takes a histogram).
		a.med = p.newHist()
		a.med.add(a.Min)
		a.med.add(a.Max)
		a.med.add(d)
	}
	if a.N == 0 || d < a.Min {
		a.Min = d
	}
	if d > a.Max {
		a.Max = d
	}
	a.N++
	a.Sum += d
	if quant {
		if a.q == nil {
			a.q = &quantiles{}
		}
		a.q.add(d)
	}
}

// Mean returns the mean sample, 0 when there is none.
func (a *RTTAgg) Mean() time.Duration {
	if a.N == 0 {
		return 0
	}
	return a.Sum / time.Duration(a.N)
}

func (cs *connState) keepRTT(o *Options) bool {
	return o.Detail || o.KeepRTT || (cs.Series != nil && (o.KeepParts == 0 || o.KeepParts&PartRTT != 0))
}

func (cs *connState) keepEvents(o *Options) bool {
	return o.Detail || o.KeepEvents || (cs.Series != nil && (o.KeepParts == 0 || o.KeepParts&PartEvents != 0))
}

// event counts e and keeps it when events are kept; it returns e's index
// in cs.Events, or -1.
func (cs *connState) event(o *Options, e Event) int {
	cs.Counts[e.Dir][e.Class]++
	if o.OnEvent != nil {
		o.OnEvent(&cs.ConnResult, e)
	}
	if cs.keepEvents(o) {
		cs.Events = append(cs.Events, e)
		return len(cs.Events) - 1
	}
	return -1
}

func (cs *connState) sample(o *Options, r RTTSample) bool {
	if r.RTT < 0 {
		// Timestamps went backwards between the two packets: no sample,
		// counted once for the report's warning.
		cs.NegativeRTT++
		return false
	}
	cs.RTTAgg[r.Dir][r.Method].add(r.RTT, o.RTTQuantiles, cs.pool)
	if o.OnRTT != nil {
		o.OnRTT(&cs.ConnResult, r)
	}
	if r.Method != MethodHandshake {
		ds := cs.ds(r.Dir)
		if ds.minRTT == 0 || r.RTT < ds.minRTT {
			ds.minRTT = r.RTT
		}
	}
	if cs.keepRTT(o) {
		cs.RTT = append(cs.RTT, r)
	}
	return true
}

// handshake times SYN → SYN-ACK → ACK (docs/metrics.md#rtt). Every
// transmission of the SYN and of the SYN-ACK is remembered: the answer is
// paired with the copy whose TSval its TSecr echoes, with the only copy, or
// with none (Karn).
func (cs *connState) handshake(s *capture.Segment, p *flows.Packet) {
	if cs.hsDone {
		return
	}
	if cs.hs == nil {
		cs.hs = cs.pool.newHS()
	}
	h := cs.hs
	syn, ack := s.Flags.Has(capture.SYN), s.Flags.Has(capture.ACK)
	tx := ctlTx{t: s.Time, frame: s.Frame, tsval: s.Opts.TSval, ts: s.Opts.TS, wscale: s.Opts.WScale >= 0, sackPerm: s.Opts.SACKPerm}
	switch {
	case syn && !ack && p.Dir == flows.AtoB && !h.synDone:
		cs.Handshake.SynTx++
		if len(h.syns) < maxCtlTx {
			h.syns = append(h.syns, tx)
		}
	case syn && ack && p.Dir == flows.BtoA:
		cs.Handshake.SynAckTx++
		if len(h.synAcks) < maxCtlTx {
			h.synAcks = append(h.synAcks, tx)
		}
		if !h.synDone && len(h.syns) > 0 {
			h.synDone = true
			from, ev := answered(h.syns, s)
			cs.Handshake.SynEvidence = ev
			if ev != EvAmbiguous && cs.sample(cs.opts, RTTSample{Time: s.Time, Frame: s.Frame, Dir: flows.AtoB, Method: MethodHandshake, RTT: s.Time.Sub(from.t)}) {
				cs.Handshake.SynToSynAck, cs.Handshake.SynToSynAckOk = s.Time.Sub(from.t), true
			}
		}
	case !syn && ack && p.Dir == flows.AtoB && len(h.synAcks) > 0 && p.AckValid && p.Ack == 1:
		cs.hs, cs.hsDone = nil, true // the handshake is over: free its state
		from, ev := answered(h.synAcks, s)
		cs.pool.putHS(h)
		cs.Handshake.SynAckEvidence = ev
		if ev != EvAmbiguous && cs.sample(cs.opts, RTTSample{Time: s.Time, Frame: s.Frame, Dir: flows.BtoA, Method: MethodHandshake, RTT: s.Time.Sub(from.t)}) {
			cs.Handshake.SynAckToAck, cs.Handshake.SynAckToAckOk = s.Time.Sub(from.t), true
		}
	}
}

// answered returns the transmission among txs that the answer s answers:
// the one whose TSval s's TSecr echoes when exactly one carries it
// (RFC 7323 §4.1), else the only one; EvAmbiguous when neither tells.
func answered(txs []ctlTx, s *capture.Segment) (ctlTx, Evidence) {
	if s.Opts.TS && s.Opts.TSecr != 0 {
		n, k := 0, 0
		for i, t := range txs {
			if t.ts && t.tsval == s.Opts.TSecr {
				n, k = n+1, i
			}
		}
		if n == 1 {
			return txs[k], EvTSecr
		}
	}
	if len(txs) == 1 {
		return txs[0], EvSingle
	}
	if s.Flags.Has(capture.SYN) && (s.Opts.WScale >= 0 || s.Opts.SACKPerm || s.Opts.TS) {
		// A SYN-ACK carries window scale, SACK-permitted or timestamps
		// only in answer to a SYN that offered them: when one copy of
		// the SYN offered them all and the others did not (a stack that
		// drops options on its retries), that copy was answered.
		n, k := 0, 0
		for i, t := range txs {
			if (t.wscale || s.Opts.WScale < 0) && (t.sackPerm || !s.Opts.SACKPerm) && (t.ts || !s.Opts.TS) {
				n, k = n+1, i
			}
		}
		if n == 1 {
			return txs[k], EvOptions
		}
	}
	return ctlTx{}, EvAmbiguous
}

// data classifies the payload of s in its direction and updates the
// summary counts (docs/metrics.md#events, #per-connection-summary),
// DirStats.HighSeq included.
func (cs *connState) data(s *capture.Segment, p *flows.Packet, o *Options) SegKind {
	d := p.Dir
	st := &cs.Dir[d]
	hasSeq := s.SeqLen() > 0
	if hasSeq && p.End > st.HighSeq {
		st.HighSeq = p.End
	}
	if cs.dir[d] == nil && s.PayloadLen == 0 && s.Flags&(capture.SYN|capture.ACK|capture.FIN|capture.RST) == capture.SYN {
		// A bare SYN before anything else of its direction (a scan or a
		// flood leaves nothing else): counted without the direction's
		// state, so that an unanswered connection stays one to end under
		// pressure (synOnly). Its sequence number cannot matter to Karn's
		// rule: the first ACK of a direction gives no sample. The same SYN
		// again is a retransmission by the timer: nothing was acknowledged
		// or signalled in the direction yet (the rules of retxClass).
		kind := KindNew
		if cs.synSeen[d] {
			st.SynRetx++
			st.CtlRetx++
			e := Event{Time: s.Time, Frame: s.Frame, Dir: d, Class: RTO, Seq: p.Seq, Original: cs.synFrame[d], Evidence: EvNoSignal}
			cs.noteBareSyn(d, s, e, cs.event(o, e))
			kind = KindRetransmitted
		} else {
			cs.firstSyn(d, s)
		}
		cs.synSeen[d] = true
		cs.synEnd[d] = max(cs.synEnd[d], p.End)
		return kind
	}
	ds := cs.ds(d)
	if p.End > ds.highSeq && hasSeq {
		ds.highSeq = p.End
		ds.sacked.raiseMark(p.End) // its mark is highSeq: windowPoint
	}
	start := p.Seq
	// ctl is the sequence number of a SYN or FIN sent again (ctlOrig the
	// frame of its first copy, 0 if unknown), valid iff ctlRetx: a SYN or
	// FIN occupies one sequence number, and a second one at the same
	// number is a retransmission (docs/metrics.md#events).
	var ctl, ctlOrig int64
	ctlRetx := false
	if s.Flags.Has(capture.SYN) {
		// Karn's rule covers the SYN's sequence number too: a SYN sent
		// again makes the ACK that covers it ambiguous.
		ds.synTx++
		if ds.synTx > 1 || cs.synSeen[d] {
			st.SynRetx++
			ds.resent.add(p.Seq, p.Seq+1)
			// The first copy's frame, acknowledged or not (the handshake's
			// state may be gone: a SYN-ACK repeated after the ACK).
			ctl, ctlOrig, ctlRetx = p.Seq, cs.synFrame[d], true
		} else {
			cs.firstSyn(d, s)
		}
		start++
	}
	n := int64(s.PayloadLen)
	if s.Flags.Has(capture.FIN) {
		fin := start + n
		if ds.finTx > 0 && fin == ds.finSeq {
			st.FinRetx++
			ds.resent.add(fin, fin+1)
			ctl, ctlOrig, ctlRetx = fin, ds.finFrame, true
		} else {
			ds.finFrame, ds.finTSval, ds.finTS = s.Frame, s.Opts.TSval, s.Opts.TS
		}
		ds.finSeq = fin
		ds.finTx++
	}
	mk := func(c Class, orig int64, why Evidence) Event {
		return Event{Time: s.Time, Frame: s.Frame, Dir: d, Class: c, Seq: start, Len: s.PayloadLen, Original: orig, Evidence: why}
	}
	ev := func(c Class, orig int64, why Evidence) int { return cs.event(o, mk(c, orig, why)) }
	if n == 0 && ctlRetx {
		// A bare SYN or FIN sent again: a retransmission of its one
		// sequence number, classed by the same rules as data (a FIN
		// whose ACK was seen before it is spurious). A segment with
		// payload is classed below by its bytes, the SYN or FIN with it.
		st.CtlRetx++
		c, why := cs.retxClass(ds, s, d, ctl, ctl+1)
		e := mk(c, ctlOrig, why)
		e.Seq = ctl
		cs.noteRetx(ds, s, e, cs.event(o, e))
		return KindRetransmitted
	}
	if n == 0 {
		// A keep-alive without payload: SND.NXT − 1 (RFC 9293 §3.8.4). The
		// same segment while the peer's window is zero is a zero-window
		// probe (Linux probes that way).
		if ds.anyPay && !s.Flags.Has(capture.SYN) && !s.Flags.Has(capture.FIN) && !s.Flags.Has(capture.RST) && start == ds.highPay-1 && ds.ackSeen && ds.lastAck >= ds.highPay {
			if ds.zeroWin() {
				ev(ZWProbe, 0, EvZeroWindow)
			} else {
				ev(KeepAlive, 0, EvSeqNxtMinus1)
			}
		}
		return KindNew
	}
	end := start + n
	ds.hdr = s.IPLen - s.PayloadLen
	st.DataPkts++
	st.Bytes += n
	if st.FirstData == 0 || s.Time < st.FirstData {
		st.FirstData = s.Time
	}
	if n >= BulkPayload && (st.FirstBulk == 0 || s.Time < st.FirstBulk) {
		st.FirstBulk = s.Time
	}
	st.LastData = max(st.LastData, s.Time) // the latest, if timestamps go backwards
	covered := ds.seen.covered(start, end)
	kind := KindNew
	switch {
	case n <= 1 && ds.zeroWin() && start >= ds.highPay-1:
		// A zero-window probe (RFC 9293 §3.8.6.1): one byte while the
		// receiver's window is zero; the byte is new the first time.
		ev(ZWProbe, 0, EvZeroWindow)
		kind = KindProbe
		st.Unique += n - covered
		if covered == 0 {
			ds.probe.add(start, end)
		} else {
			ds.resent.add(start, end)
		}
	case n <= 1 && covered == n && end == ds.highPay && ds.ackSeen && ds.lastAck >= ds.highPay:
		// A keep-alive with one garbage byte at SND.NXT − 1.
		ev(KeepAlive, 0, EvSeqNxtMinus1)
		kind = KindProbe
		ds.resent.add(start, end)
	case covered > 0 && ds.probe.covered(start, end) == covered:
		// Only zero-window-probe bytes were sent before: new data that
		// includes the probed byte. Not a retransmission, but those bytes
		// were sent twice (Karn).
		ds.resent.add(start, end)
		st.Unique += n - covered
	case covered > 0 && ds.tsOlder(s) && !ds.tsAfterFirst(start, s):
		// Bytes seen before, with a TSval older than one already sent: not
		// sent again by the sender but a delayed copy of an earlier
		// transmission (the network reordered or duplicated it). Unless
		// its TSval is newer than the first copy's of these bytes: then
		// the sender stamped it later, a retransmission that waited
		// behind segments sent after the first copy (a MANET node's
		// queue: ns-3 aodv sender frame 27269, TSval 84200 against the
		// first copy's 83838 and later segments' 84000s, which the
		// socket logs as a retransmission).
		kind = KindOutOfOrder
		st.OOOSegs++
		st.RetxBytes += covered
		st.Unique += n - covered
		ds.resent.add(start, end)
		ev(OutOfOrder, ds.original(start), EvTSval)
	case covered > 0:
		kind = KindRetransmitted
		st.RetxSegs++
		st.RetxBytes += covered
		st.Unique += n - covered
		ds.resent.add(start, end)
		c, why := cs.retxClass(ds, s, d, start, end)
		e := mk(c, ds.original(start), why)
		cs.noteRetx(ds, s, e, cs.event(o, e))
	default:
		st.Unique += n
		if ds.anyPay && start < ds.highPay {
			// Fills a gap: either it overtook others (out of order) or it
			// is a retransmission whose first copy the capture never saw.
			// A TSval decides: older than one already sent, a delayed
			// original; newer, a retransmission (a real retransmission
			// carries a fresh TSval). Without one: out of order within one
			// RTT of the gap opening, a retransmission later.
			rtt := cs.rttEstimate(d)
			ooo, why := ds.hasGap && (rtt == 0 || s.Time.Sub(ds.gapAt) < rtt), EvOneRTT
			switch {
			case ds.tsOlder(s):
				ooo, why = true, EvTSval
			case ds.tsNewer(s):
				ooo, why = false, EvTSval
			}
			if ooo {
				kind = KindOutOfOrder
				st.OOOSegs++
				ev(OutOfOrder, 0, why)
			} else {
				kind = KindRetransmitted
				st.RetxSegs++
				// Its first copy was sent too, only not captured: Karn.
				ds.resent.add(start, end)
				c, cwhy := cs.retxClass(ds, s, d, start, end)
				if why == EvTSval && cwhy == EvNoSignal {
					cwhy = EvTSval
				}

				e := mk(c, 0, cwhy)
				cs.noteRetx(ds, s, e, cs.event(o, e))
			}
		} else {
			if ds.anyPay && start > ds.highPay {
				ev(LostSegment, 0, EvNone)
			}
			ds.pushOut(start, end, s)
		}
		if ds.anyPay && start > ds.highPay {
			ds.gapAt, ds.hasGap = s.Time, true
		}
	}
	ds.seen.add(start, end)
	if ds.seen.degraded || ds.resent.degraded {
		cs.Degraded = true
	}
	if !ds.anyPay || end > ds.highPay {
		ds.highPay, ds.anyPay = end, true
	}
	if ds.ackSeen && ds.winKnown && ds.win > 0 && end == ds.lastAck+ds.win {
		ev(WindowFull, 0, EvNone)
	}
	return kind
}

// zeroWin reports that the receiver's last ACK advertised a zero window:
// asked of a keep-alive or a one-byte segment only.
func (ds *dirState) zeroWin() bool { return ds.ackSeen && ds.winRaw == 0 }

// tsOlder and tsNewer are the TSval evidence of s, a data segment of
// ds's direction (RFC 7323): a TSval older than one already sent in the
// direction means a delayed original; newer, a fresh transmission. Asked
// only of a segment with bytes seen before or below the highest sent,
// not of every new one.
func (ds *dirState) tsOlder(s *capture.Segment) bool {
	return s.Opts.TS && ds.tsSeen && seq.Num(s.Opts.TSval).Less(seq.Num(ds.lastTSval))
}

// tsNewer: see tsOlder.
func (ds *dirState) tsNewer(s *capture.Segment) bool {
	return s.Opts.TS && ds.tsSeen && seq.Num(ds.lastTSval).Less(seq.Num(s.Opts.TSval))
}

// noteRetx remembers a retransmission so that later evidence (Eifel's
// TSecr, a D-SACK) can show it was spurious.
func (cs *connState) noteRetx(ds *dirState, s *capture.Segment, e Event, ev int) {
	// A bare SYN or FIN occupies one sequence number.
	c, start, end := e.Class, e.Seq, e.Seq+max(int64(e.Len), 1)
	if c == Spurious {
		return
	}
	if len(ds.retx) >= maxRetxRecs {
		n := copy(ds.retx, ds.retx[len(ds.retx)-maxRetxRecs/2:])
		ds.retx = ds.retx[:n]
		ds.retxNew = 0
		for _, r := range ds.retx {
			if !r.covered {
				ds.retxNew++
			}
		}
	}
	r := retxRec{start: start, end: end, tsval: s.Opts.TSval, ts: s.Opts.TS, ev: ev, class: c, e: e}
	addPrior := func(v uint32) {
		if int(r.nPrior) < len(r.prior) {
			r.prior[r.nPrior] = v
			r.nPrior++
		}
	}
	d := e.Dir
	if o, ok := ds.originalSeg(start); ok && o.ts {
		addPrior(o.tsval)
	} else if e.Len == 0 && ds.finTx > 0 && start == ds.finSeq && ds.finTS {
		addPrior(ds.finTSval) // the first copy of a bare FIN sent again
	} else if e.Len == 0 && s.Flags.Has(capture.SYN) && cs.synTS[d] {
		addPrior(cs.synTSval[d]) // the first copy of a bare SYN sent again
	}
	for i := len(ds.retx) - 1; i >= 0; i-- { // earlier retransmissions of the same byte, newest first
		if e := &ds.retx[i]; e.ts && e.start <= start && start < e.end {
			addPrior(e.tsval)
		}
	}
	ds.retx = append(ds.retx, r)
	ds.retxNew++
}

// firstSyn remembers the first SYN (SYN-ACK) of direction d: its frame,
// the original_frame of a copy sent again, and its TSval, the echo that
// shows a copy sent again spurious (Eifel).
func (cs *connState) firstSyn(d flows.Direction, s *capture.Segment) {
	cs.synFrame[d] = s.Frame
	cs.synTSval[d], cs.synTS[d] = s.Opts.TSval, s.Opts.TS
}

// noteBareSyn remembers a bare SYN sent again before its direction's state
// exists (connState.data's first branch) as a retransmission awaiting
// evidence, as noteRetx does for the others: in the handshake's state
// until the direction's state is made (newDS), so that the answer
// echoing an earlier copy's TSval shows it spurious (Eifel) while a
// flood's unanswered SYNs still cost no direction state. Without the
// handshake's state (the handshake is over) it is not remembered.
func (cs *connState) noteBareSyn(d flows.Direction, s *capture.Segment, e Event, ev int) {
	h := cs.hs
	if h == nil || len(h.synRetx[d]) >= maxCtlTx {
		return
	}
	r := retxRec{start: e.Seq, end: e.Seq + 1, tsval: s.Opts.TSval, ts: s.Opts.TS, ev: ev, class: e.Class, e: e}
	add := func(v uint32) {
		if int(r.nPrior) < len(r.prior) {
			r.prior[r.nPrior] = v
			r.nPrior++
		}
	}
	if cs.synTS[d] {
		add(cs.synTSval[d])
	}
	for i := len(h.synRetx[d]) - 1; i >= 0; i-- { // earlier copies sent again, newest first
		if p := &h.synRetx[d][i]; p.ts {
			add(p.tsval)
		}
	}
	h.synRetx[d] = append(h.synRetx[d], r)
}

// spurious re-classes a remembered retransmission as spurious, with the
// evidence that showed it.
func (cs *connState) spurious(d flows.Direction, r *retxRec, why Evidence) {
	if r.class == Spurious {
		return
	}
	cs.Counts[d][r.class]--
	cs.Counts[d][Spurious]++
	if r.ev >= 0 && r.ev < len(cs.Events) {
		cs.Events[r.ev].Class = Spurious
		cs.Events[r.ev].Evidence = why
	}
	r.class = Spurious
	if cs.opts.OnEvent != nil {
		e := r.e
		e.Class, e.Evidence = Spurious, why
		cs.opts.OnEvent(&cs.ConnResult, e)
	}
}

// retxClass decides why [start, end), sent again by direction d in s, was
// sent again (docs/metrics.md#events), and the evidence: the
// fast-retransmit and timer rules, then a timer (or unknown) verdict
// becomes pmtu when the bytes are those an ICMP fragmentation-needed made
// the sender resend — the ICMP error decides, whatever the capture holds
// of the receiver.
func (cs *connState) retxClass(ds *dirState, s *capture.Segment, d flows.Direction, start, end int64) (Class, Evidence) {
	c, why := cs.retxSignal(ds, s, d, start, end)
	if (c == RTO || c == RetxUnknown) && len(ds.pmtu) > 0 && ds.pmtuResend(start, end) {
		return PMTU, EvICMPFragNeeded
	}
	return c, why
}

// receiverUnseen says why the capture cannot show that no duplicate ACK
// or SACK of the receiver preceded the retransmission s of direction d
// (docs/metrics.md#events), EvNone when it can. The absence of those
// signals is evidence of the timer only when the receiver's packets of
// the time were captured: not when the capture holds none of the
// receiver's packets before s (EvNoReverse: a one-way capture, asymmetric
// routing, a capture begun mid-connection; a receiver packet captured
// only later comes after any signal would have passed), nor when s echoes
// a TSval of the receiver newer than any the capture holds
// (EvReverseMissed: the sender heard from the receiver after the capture
// last did; the TSecr carries the newest TSval the sender accepted,
// RFC 7323 §4.3, duplicate ACKs included). Without timestamps nothing
// tells a capture that stopped seeing the receiver from a receiver that
// fell silent.
func (cs *connState) receiverUnseen(d flows.Direction, s *capture.Segment) Evidence {
	rd := d.Reverse()
	if cs.Dir[rd].Pkts == 0 {
		return EvNoReverse
	}
	if rs := cs.dir[rd]; rs != nil && rs.tsSeen && s.Opts.TS && s.Flags.Has(capture.ACK) && s.Opts.TSecr != 0 &&
		seq.Num(rs.lastTSval).Less(seq.Num(s.Opts.TSecr)) {
		return EvReverseMissed
	}
	return EvNone
}

// retxSignal is retxClass without the ICMP rule.
func (cs *connState) retxSignal(ds *dirState, s *capture.Segment, d flows.Direction, start, end int64) (Class, Evidence) {
	if ds.ackSeen && end <= ds.lastAck {
		return Spurious, EvAcked
	}
	if ds.heardSeen && end <= ds.heardAck {
		return Spurious, EvAckedOverheard
	}
	why := EvNoSignal
	if ds.ackSeen && ds.dupAcks >= 3 {
		why = EvDupAcks
	} else if ds.ackSeen && ds.sackHole {
		why = EvSACK
	}
	signal := why != EvNoSignal
	switch {
	case signal && start <= ds.lastAck && !ds.fastDone:
		// The fast retransmission of the hole at the ACK (RFC 5681 §3.2).
		ds.fastDone = true
		return Fast, why
	case signal && start <= ds.lastAck:
		// The same hole again before the ACK moved: only the retransmission
		// timer resends a hole already fast-retransmitted (RFC 6675 §5.1).
		return RTO, EvRepeat
	case signal && start > ds.lastAck && ds.sacked.maxHi() > start:
		// Another hole below SACKed data, during SACK loss recovery
		// (RFC 6675 §5).
		return Fast, EvSACK
	}
	if s.Flags.Has(capture.SYN) {
		// A SYN (SYN-ACK) sent again: nothing signals a fast
		// retransmission before the handshake is over, whatever the
		// capture holds of the peer.
		return RTO, EvNoSignal
	}
	if why := cs.receiverUnseen(d, s); why != EvNone {
		return RetxUnknown, why
	}
	return RTO, EvNoSignal
}

// rttEstimate is the whole path's RTT as the capture point can know it,
// for data direction d, wherever the capture point is. The direction's
// smallest sample times one leg, capture point → its receiver → capture
// point (at a receiver-side capture only the receiver's turnaround); the
// other leg, capture point → its sender → capture point, is the reverse
// direction's smallest sample, else the handshake's leg on that side
// (SYN-ACK → ACK for a→b data, SYN → SYN-ACK for b→a). Without samples,
// the handshake's two legs; 0 when nothing was measured. (The handshake
// leg on the data's own side is not used when samples exist: in a MANET
// it includes route discovery.)
func (cs *connState) rttEstimate(d flows.Direction) time.Duration {
	h := cs.Handshake
	ds := cs.dir[d]
	if ds == nil || ds.minRTT == 0 {
		return h.SynToSynAck + h.SynAckToAck
	}
	other := h.SynAckToAck
	if d == flows.BtoA {
		other = h.SynToSynAck
	}
	if rs := cs.dir[d.Reverse()]; rs != nil && rs.minRTT > 0 {
		other = rs.minRTT
	}
	return ds.minRTT + other
}

// ack processes s as an acknowledgment of the reverse direction's data:
// RTT samples (Karn), duplicate ACKs, SACK, window and zero-window periods.
// It returns the advertised window for the series.
func (cs *connState) ack(s *capture.Segment, p *flows.Packet, o *Options) (int64, bool) {
	if !p.AckValid {
		return 0, false
	}
	rd := p.Dir.Reverse()
	ds := cs.ds(rd)
	st := &cs.Dir[rd]
	a := p.Ack
	if !st.AckSeen || a > st.MaxAck {
		st.MaxAck = a
	}
	st.AckSeen = true
	high := ds.highSeq
	if high == 0 {
		high = cs.synEnd[rd] // only a bare SYN sent so far (0: nothing)
	}
	if high > 0 && a > high && !s.Flags.Has(capture.RST) {
		// An ACK for bytes the capture never saw sent (capture drops, or a
		// capture point past a PEP); counted, analysed on.
		st.AckedUnseen++
	}
	switch {
	case !ds.ackSeen:
		// The first ACK of a direction whose handshake was not captured:
		// where the cumulative ACK stood before is unknown, so it may be a
		// duplicate of an earlier one. Only the TSecr can tell (RFC 7323
		// §4.3): echoing the TSval of the captured segment that ends at a,
		// it answers that segment, sent once as far as the capture shows.
		if seg := ds.popOut(a); seg != nil && s.Opts.TS && seg.ts && s.Opts.TSecr == seg.tsval && ds.resent.covered(seg.start, a) == 0 {
			cs.sample(o, RTTSample{Time: s.Time, Frame: s.Frame, Dir: rd, Method: MethodACK, RTT: s.Time.Sub(seg.t)})
		}
		// It is still the first ACK the capture shows covering the
		// retransmissions below a: Eifel's evidence holds for it as for
		// any other (zeek-smtp frame 93 echoes frame 90's TSval: frames
		// 91 and 92 were spurious). D-SACK blocks are read below for
		// every ACK.
		cs.eifel(rd, ds, s, a)
		ds.lastAck, ds.ackSeen = a, true
	case a > ds.lastAck:
		// Karn's rule (RFC 6298 §3): no sample if any newly acknowledged
		// sequence number (SYN and FIN included) was sent more than once,
		// or belongs to a retransmission whose first copy the capture
		// missed.
		if seg := ds.popOut(a); seg != nil && ds.resent.covered(ds.lastAck, a) == 0 {
			cs.sample(o, RTTSample{Time: s.Time, Frame: s.Frame, Dir: rd, Method: MethodACK, RTT: s.Time.Sub(seg.t)})
		}
		cs.eifel(rd, ds, s, a)
		ds.lastAck = a
		ds.dupAcks = 0
		ds.sackHole = false
		ds.fastDone = false
		ds.sacked.trim(a)
	case a == ds.lastAck && pureAck(s) && s.Window == ds.winRaw && ds.highPay > a && ds.winRaw != 0:
		ds.dupAcks++
		cs.event(o, Event{Time: s.Time, Frame: s.Frame, Dir: rd, Class: DupAck, Seq: a})
	}
	for i := 0; i < int(s.Opts.NSACK); i++ {
		l, r := sackRel(p, s, i)
		if i == 0 && isDSACK(p, s, l, r) {
			// A D-SACK block (RFC 2883 §4): bytes the receiver got twice,
			// not SACKed data above the ACK.
			st.DSACKs++
			cs.dsack(rd, ds, l, r)
			continue
		}
		if r > ds.lastAck && r-l < 1<<30 {
			ds.sacked.add(max(l, ds.lastAck), r)
			ds.sackHole = true
			cs.Degraded = cs.Degraded || ds.sacked.degraded
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
	if s.Flags.Has(capture.RST) {
		// A reset aborts the connection: its window field advertises
		// nothing (a stack fills it as it likes: 0, or 654 336 B after
		// the testbed PEP's 8 s zero window). rwnd holds what the last
		// ACK advertised, as the zero-window period does not end at a
		// RST (docs/metrics.md#bytes-in-flight).
		return ds.win, ds.winKnown
	}
	win, known := p.Conn.ScaledWindow(p.Dir, s.Window, s.Flags.Has(capture.SYN))
	ds.win, ds.winRaw, ds.winKnown = win, s.Window, known
	return win, known
}

// pureAck reports whether s is an acknowledgment only: no payload, no
// SYN, FIN or RST (a duplicate ACK's first condition, asked of an ACK that
// does not move the cumulative ACK only).
func pureAck(s *capture.Segment) bool {
	return s.PayloadLen == 0 && !s.Flags.Has(capture.SYN) && !s.Flags.Has(capture.FIN) && !s.Flags.Has(capture.RST)
}

// isDSACK reports whether the first SACK block [l, r) of s reports a
// duplicate (RFC 2883 §4): it lies at or below the cumulative ACK, or
// inside the second block.
func isDSACK(p *flows.Packet, s *capture.Segment, l, r int64) bool {
	if r <= l || r-l >= 1<<30 {
		return false
	}
	if r <= p.Ack {
		return true
	}
	if s.Opts.NSACK >= 2 {
		l2, r2 := sackRel(p, s, 1)
		return l2 <= l && r <= r2
	}
	return false
}

// dsack matches one D-SACK block [l, r) to one retransmission: a block
// proves one unneeded copy (RFC 2883 §4, RFC 3708). A retransmission of
// those bytes already shown spurious (by Eifel) and not yet matched takes
// it; else the latest retransmission of those bytes becomes spurious.
func (cs *connState) dsack(d flows.Direction, ds *dirState, l, r int64) {
	latest := -1
	for k := range ds.retx {
		rr := &ds.retx[k]
		if rr.claimed || rr.end <= l || r <= rr.start {
			continue
		}
		if rr.class == Spurious {
			rr.claimed = true
			return
		}
		if l <= rr.start && rr.end <= r {
			// Only a block that reports every byte of it proves the
			// copy unneeded (RFC 3708 §2): a repacketized resend that
			// also carried needed bytes was not spurious.
			latest = k
		}
	}
	if latest >= 0 {
		rr := &ds.retx[latest]
		rr.claimed = true
		cs.spurious(d, rr, EvDSACK)
	}
}

// eifel checks the retransmissions that the ACK a (in s) covers for the
// first time: if its TSecr echoes a TSval older than the retransmission's,
// the ACK was sent for an earlier copy, so the retransmission was spurious
// (Eifel detection, RFC 3522 §3).
//
// Without retransmissions awaiting their first ACK (nearly every ACK) it
// returns at once, inlined; the check is eifelSome.
func (cs *connState) eifel(d flows.Direction, ds *dirState, s *capture.Segment, a int64) {
	if ds.retxNew != 0 {
		cs.eifelSome(d, ds, s, a)
	}
}

// eifelSome is eifel with retransmissions awaiting their first ACK.
func (cs *connState) eifelSome(d flows.Direction, ds *dirState, s *capture.Segment, a int64) {
	for k := range ds.retx {
		rr := &ds.retx[k]
		if rr.covered || rr.end > a {
			continue
		}
		rr.covered = true
		ds.retxNew--
		if !rr.ts || !s.Opts.TS || s.Opts.TSecr == 0 || !seq.Num(s.Opts.TSecr).Less(seq.Num(rr.tsval)) {
			continue
		}
		// Spurious only if the echo names an earlier copy of this very
		// segment: an older TSval of another segment (a cumulative ACK over
		// several repaired holes echoes the segment that moved the left
		// edge first, RFC 7323 §4.3) proves nothing about this one.
		for _, v := range rr.prior[:rr.nPrior] {
			if v == s.Opts.TSecr {
				cs.spurious(d, rr, EvTSecr)
				break
			}
		}
	}
}

// original returns the frame of the first transmission of the bytes at
// start while they are unacknowledged, 0 if not known.
func (ds *dirState) original(start int64) int64 {
	if o, ok := ds.originalSeg(start); ok {
		return o.frame
	}
	return 0
}

// tsAfterFirst reports whether s carries a TSval newer than the first
// transmission of the bytes at start (originalSeg), when both carry one.
func (ds *dirState) tsAfterFirst(start int64, s *capture.Segment) bool {
	o, ok := ds.originalSeg(start)
	return ok && o.ts && s.Opts.TS && seq.Num(o.tsval).Less(seq.Num(s.Opts.TSval))
}

// originalSeg returns the first transmission of the bytes at start while
// they are unacknowledged. ds.out holds first transmissions of new data, so
// their ends increase: a binary search.
func (ds *dirState) originalSeg(start int64) (outSeg, bool) {
	out := ds.out[ds.outHead:]
	lo, hi := 0, len(out)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if out[m].end <= start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(out) && out[lo].start <= start {
		return out[lo], true
	}
	return outSeg{}, false
}

// release drops the scratch state of a finished connection's direction;
// counts and summaries stay. A late packet still works, with less history.
func (ds *dirState) release() {
	ds.out, ds.outHead = nil, 0
	ds.tsq, ds.tsHead = nil, 0
	ds.resent.reset()
	ds.probe.reset()
	ds.sacked.reset()
	ds.retx, ds.retxNew = nil, 0
	ds.pmtu = nil
}

// pushOut appends the first transmission [start, end) in s to ds.out,
// written in place (an append of a composite literal builds it on the
// stack, then copies it: twice the stores, on every new data segment).
func (ds *dirState) pushOut(start, end int64, s *capture.Segment) {
	n := len(ds.out)
	if n == cap(ds.out) {
		ds.out = append(ds.out, outSeg{})
	}
	ds.out = ds.out[:n+1]
	o := &ds.out[n]
	o.start, o.end, o.t, o.frame, o.tsval, o.ts = start, end, s.Time, s.Frame, s.Opts.TSval, s.Opts.TS
}

// popOut drops outstanding segments acknowledged by a and returns the one
// whose end is exactly a, if any (nil if none): the last one dropped, as
// their ends increase. It points into ds.out's array, read before the next
// pushOut or popOut, which may write over it; so the array is compacted
// at the start of a call, never under the segment returned.
func (ds *dirState) popOut(a int64) *outSeg {
	if ds.outHead > 1024 && ds.outHead > len(ds.out)/2 {
		n := copy(ds.out, ds.out[ds.outHead:])
		ds.out, ds.outHead = ds.out[:n], 0
	}
	head, i := ds.outHead, ds.outHead
	for i < len(ds.out) && ds.out[i].end <= a {
		i++
	}
	var hit *outSeg
	if i > head && ds.out[i-1].end == a {
		hit = &ds.out[i-1]
	}
	ds.outHead = i
	if i == len(ds.out) {
		ds.out, ds.outHead = ds.out[:0], 0
	}
	return hit
}

// timestamps takes TSval/TSecr samples as pping does: a TSval's first
// sighting, matched by its first echo (RFC 7323 §4.1).
func (cs *connState) timestamps(s *capture.Segment, p *flows.Packet) {
	if !s.Opts.TS {
		return
	}
	ds := cs.ds(p.Dir)
	if !ds.tsSeen || seq.Num(ds.lastTSval).Less(seq.Num(s.Opts.TSval)) {
		ds.tsq = append(ds.tsq, tsEnt{val: s.Opts.TSval, t: s.Time, frame: s.Frame})
		ds.lastTSval, ds.tsSeen = s.Opts.TSval, true
		if len(ds.tsq)-ds.tsHead > 1<<16 { // never echoed: keep the newest half
			ds.tsHead = len(ds.tsq) - 1<<15
		}
	} else if s.Opts.TSval != ds.lastTSval && (!ds.ecrSeen || seq.Num(ds.ecrMax).Less(seq.Num(s.Opts.TSval))) {
		// An older TSval seen for the first time after a newer one (a
		// reordered original): still its first sighting, as pping keeps
		// every TSval; inserted in order while no echo has passed it.
		q := ds.tsq[ds.tsHead:]
		i := sort.Search(len(q), func(i int) bool { return !seq.Num(q[i].val).Less(seq.Num(s.Opts.TSval)) })
		if i < len(q) && q[i].val != s.Opts.TSval && len(q) < 1<<16 {
			at := ds.tsHead + i
			ds.tsq = append(ds.tsq, tsEnt{})
			copy(ds.tsq[at+1:], ds.tsq[at:])
			ds.tsq[at] = tsEnt{val: s.Opts.TSval, t: s.Time, frame: s.Frame}
		}
	}
	if !s.Flags.Has(capture.ACK) || s.Opts.TSecr == 0 {
		return
	}
	rd := p.Dir.Reverse()
	rs := cs.ds(rd)
	ecr := seq.Num(s.Opts.TSecr)
	if !rs.ecrSeen || seq.Num(rs.ecrMax).Less(ecr) {
		rs.ecrMax, rs.ecrSeen = s.Opts.TSecr, true
	}
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
