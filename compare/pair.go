package compare

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// splitFile splits a run's file part into the client-side and the
// server-side capture: "CLIENT+SERVER", or "FILE+" for one pcapng whose
// interface 0 is the client side and interface 1 the server side (ServerFile
// is then equal to File).
func splitFile(f string) (client, server string) {
	i := strings.LastIndexByte(f, '+')
	if i <= 0 {
		return f, ""
	}
	client, server = f[:i], f[i+1:]
	if server == "" {
		server = client
	}
	return client, server
}

// IsPair reports whether the spec names two captures (or one two-interface
// pcapng) taken on each side of a PEP.
func (s Spec) IsPair() bool { return s.ServerFile != "" }

// TwoIfaces reports whether the pair is one pcapng with both sides as
// interfaces 0 (client side) and 1 (server side).
func (s Spec) TwoIfaces() bool { return s.ServerFile != "" && s.ServerFile == s.File }

// NewPairRun builds a run from the client-side and server-side reports of a
// pair (both with Series kept for every connection, on one clock): the
// split connection is the one whose client-side index is spec.Conn, or the
// pair that carried most data; the run's Result is the client-side half,
// Server the server-side half, and Split the two-capture analysis
// (pep.AnalyzeSplit). It returns an error when no connection pairs up.
func NewPairRun(spec Spec, client, server *tcpanalysis.Report, align string) (Run, error) {
	pairs := pep.MatchSplit(client, server)
	swapped := false
	if spec.Conn < 0 {
		if rev := pep.MatchSplit(server, client); SwappedPair(pairs, rev) {
			client, server, pairs, swapped = server, client, rev, true
			spec.File, spec.ServerFile = spec.ServerFile, spec.File
		}
	}
	if len(pairs) == 0 {
		return Run{}, fmt.Errorf("run %s: no connection of %s matches one of %s: are they the two sides of one PEP?", spec.Label, shown(spec.File), shown(spec.ServerFile))
	}
	best := -1
	for i, p := range pairs {
		if spec.Conn >= 0 {
			if p.Client == spec.Conn {
				best = i
			}
			continue
		}
		if best < 0 || p.ClientBytes > pairs[best].ClientBytes {
			best = i
		}
	}
	if best < 0 {
		return Run{}, fmt.Errorf("run %s: connection %d of %s has no partner in %s", spec.Label, spec.Conn, shown(spec.File), shown(spec.ServerFile))
	}
	sr := pep.AnalyzeSplit(client, server, pairs[best:best+1])[0]
	r := Run{Spec: spec, Result: client.Conns[sr.Client], Dir: sr.Dir, Server: server.Conns[sr.Server], Split: &sr, Swapped: swapped, Start: client.Start, ServerStart: server.Start}
	ref, used, err := resolve(r.Result, r.Dir, align)
	if err != nil {
		return Run{}, err
	}
	r.Ref, r.RefUsed = ref, used
	r.PEP = pep.Detect(r.Result, r.Dir)
	return r, nil
}

// SwappedPair reports whether a pair was given server side first: fwd
// are the pep.MatchSplit pairs in the order given (client, server), rev
// those with the captures exchanged. The client side's half of a
// connection starts first (its SYN reaches the client-side capture before
// the PEP, or the path, carries it to the server side), and a PEP holds
// data, so the client side carries at least as many bytes: the order is
// swapped when rev's largest pair started first in the capture given as
// server side and carries more than fwd's largest pair, or as much while
// fwd's started later on the given client side.
func SwappedPair(fwd, rev []pep.SplitPair) bool {
	best := func(ps []pep.SplitPair) (pep.SplitPair, bool) {
		var b pep.SplitPair
		ok := false
		for _, p := range ps {
			if !ok || p.ClientBytes > b.ClientBytes {
				b, ok = p, true
			}
		}
		return b, ok
	}
	rb, rok := best(rev)
	if !rok || rb.StartGap <= 0 {
		return false
	}
	fb, fok := best(fwd)
	return !fok || rb.ClientBytes > fb.ClientBytes || (rb.ClientBytes == fb.ClientBytes && fb.StartGap < 0)
}

// ProxyAcked reports whether the ACKs the sender's side of r got came
// from a proxy rather than the receiver: the pair was split (two TCP
// connections), or, for one capture, the PEP evidence makes a split likely.
// Its acknowledged bytes were then accepted by the PEP, not delivered.
func (r Run) ProxyAcked() bool {
	if r.Split != nil {
		return !r.Split.SameConn
	}
	return r.PEP.Likely
}

// ProxyPossible reports that r is one capture in which a proxy may have
// acknowledged the sender's data and nothing tells (pep.Verdict.Possible:
// the acknowledger is on the sender's link): whether its acknowledged
// bytes were delivered is unknown. Summary leaves the end-to-end rows
// empty (–) and gives the acknowledged rate as PossibleRow.
func (r Run) ProxyPossible() bool { return r.Split == nil && r.PEP.Possible }

// PossibleRow is the summary row holding a ProxyPossible run's
// acknowledged rate: goodput if the receiver acknowledged, bytes a PEP
// accepted if a PEP did.
const PossibleRow = "acked, receiver or PEP?"

// OverheardOnly reports that r is one capture whose 802.11 node only
// overheard the connection: every frame of it there was addressed to other
// nodes, so its counts come from overheard ACKs alone
// (query.OverheardNote, docs/metrics.md#own-frames).
func (r Run) OverheardOnly() bool {
	return r.Server == nil && tcpanalysis.OnlyOverheard(r.Result)
}

// Relay reports that r is one capture taken on a node that forwarded the
// connection's frames (tcpanalysis.RadioRelay).
func (r Run) Relay() bool {
	return r.Server == nil && tcpanalysis.RadioOf(r.Result, flows.AtoB) == tcpanalysis.RadioRelay
}

// AwayFromSender reports that r is one capture taken where its data
// sender's side of the connection cannot be seen, by query.VantageOf (the
// vantage rule of every note): at a relay, or at a capture point not
// beside the sender (tcpanalysis.OtherLeg: the
// ack/ts RTT samples of r.Dir time only capture point → receiver →
// capture point, as at a MANET sink). Summary shows "–" there in the rows
// of the sender's side (SenderRows).
func (r Run) AwayFromSender() bool {
	if r.Server != nil {
		return false
	}
	switch query.VantageOf(r.Result, r.Dir) {
	case query.VantageRelay, query.VantageAway:
		return true
	}
	return false
}

// SenderRows names the rows of Summary that are the data sender's side of
// a run (its progress, its RTT, how it retransmitted): "–" for a run
// captured away from the sender (AwayFromSender), with the note
// AwayNote.
const SenderRows = `"slow start ended", "sent after", "acked to sender after", the RTT rows and the retransmission rows`

// AwayNote says, for a run captured away from its data sender
// (AwayFromSender), that Summary left the rows of the sender's side out and
// why: "" otherwise. At a MANET sink (ns-3 aodv r1 node 10, flow 0) the
// RTT rows read 0.3 ms for every protocol (the sink's own ACK delay, while
// the sockets' RTTs were 310–330 ms) and rto 9 against the sender's 57.
func (r Run) AwayNote() string {
	if !r.AwayFromSender() {
		return ""
	}
	where := "not beside its data sender"
	if r.Relay() {
		where = "a relay (only the frames routed through it)"
	}
	return fmt.Sprintf("%s: %s are – : the capture point is %s, so they would time only the path beyond it (RTT), count what reached it (sent, acked) and miss what was lost before it (retransmissions); capture at the sender for them (docs/metrics.md#compare)", r.Label, SenderRows, where)
}

// OwnNumbers reports whether r's progress and goodput are the
// connection's: not for one capture taken at a relay (Relay) or at a node
// that only overheard the connection (OverheardOnly), whose progress and
// goodput rows Summary shows as "–" (query.Vantage.OwnNumbers).
func (r Run) OwnNumbers() bool { return !r.Relay() && !r.OverheardOnly() }

// receiver is the half whose ACKs come from the final receiver, and
// whether one is known: the server-side half of a pair, the capture
// itself when no proxy acknowledged, else none (a proxy acknowledged, or
// may have: ProxyPossible).
func (r Run) receiver() (*tcpanalysis.ConnResult, bool) {
	switch {
	case r.Server != nil && r.Split != nil && r.Split.Dir == flows.AtoB:
		return r.Server, true
	case r.Server != nil:
		return r.Result, true // a download: the client side is the receiver's
	case r.ProxyAcked(), r.ProxyPossible():
		return nil, false
	}
	return r.Result, true
}

// EndToEndKbps is r's end-to-end goodput in kbit/s: the bytes the final
// receiver acknowledged over the receiving application's interval
// (pep.SplitResult.Span: first data to its close, or to its last ACK). For
// a pair it comes from pep.AnalyzeSplit; for one capture without a proxy
// the same rule is applied to that capture; NaN when a proxy acknowledged,
// or may have (ProxyPossible), and the far side was not captured
// (docs/metrics.md#pep).
func (r Run) EndToEndKbps() float64 {
	if r.Split != nil {
		if r.Split.Span <= 0 {
			return math.NaN()
		}
		return r.Split.GoodputKbps
	}
	if r.ProxyAcked() || r.ProxyPossible() || r.OverheardOnly() {
		return math.NaN()
	}
	kb, ok := pep.ReceiverGoodputTo(r.Result, r.Dir, r.End)
	if !ok {
		return math.NaN()
	}
	return kb
}

// SetupNote says, for a one-capture run whose end-to-end goodput counts
// from its first data segment (pep.ReceiverGoodput), when that came long
// after the connection's first packet — over 1 s and over 2 % of the
// receiving interval, so that the two rates differ by 2 % or more: SYN
// retransmissions, a route found late — and what
// the rate is from the first packet, which an application-level goodput
// (ns-3's PacketSink bytes over the time since the application started)
// is nearer to; "" otherwise. ns-3 aodv r1 node 1, flow 3's sink: 225.4
// kbit/s from the first data, 39.4 s in; 111.2 kbit/s by PacketSink.
// Flow 0's (node 10): 846.5 from the first data, 3.3 s in, about 814.0
// from the first packet; 815.4 by PacketSink.
func (r Run) SetupNote() string {
	kb := r.EndToEndKbps()
	if r.Split != nil || math.IsNaN(kb) || r.Relay() {
		return "" // a relay's first packet and data are its own (query.RelayNote)
	}
	iv := pep.ReceiverInterval(r.Result, r.Dir)
	end := iv.Close
	if end == 0 {
		end = r.End
	}
	if end == 0 {
		end = r.Result.Conn.Last
	}
	setup, span := iv.Start.Sub(r.Result.Conn.First), end.Sub(iv.Start)
	if setup <= time.Second || span <= 0 || setup*50 <= span {
		return ""
	}
	return fmt.Sprintf("%s: goodput end to end, %.1f kbit/s, counts from the first data segment, %.1f s after the connection's first packet (a slow setup: SYN retransmissions, a route found late); from the first packet it is about %.1f kbit/s, nearer an application's goodput from its start (docs/metrics.md#pep)",
		r.Label, kb, setup.Seconds(), kb*span.Seconds()/(span+setup).Seconds())
}

// EndNote says, for a one-capture run whose receiver never closed, that
// its end-to-end goodput's interval runs to the capture's last frame
// (Run.End, pep.ReceiverGoodputTo) when that lies well after the
// connection's last packet — over 1 s and over 2 % of the interval — and
// what the rate is to the connection's last packet: the capture went on
// with other traffic, or the flow's packets stopped before the run did
// (ns-3 olsr r1 flow 0 at its sink: 551.7 kbit/s to the run's end,
// PacketSink 549.2); "" otherwise.
func (r Run) EndNote() string {
	kb := r.EndToEndKbps()
	if r.Split != nil || math.IsNaN(kb) || r.End == 0 || r.Relay() || pep.ReceiverInterval(r.Result, r.Dir).Close != 0 {
		return ""
	}
	start := tcpanalysis.FirstData(r.Result, r.Dir)
	tail, span := r.End.Sub(r.Result.Conn.Last), r.End.Sub(start)
	if tail <= time.Second || span <= tail || tail*50 <= span {
		return ""
	}
	return fmt.Sprintf("%s: goodput end to end, %.1f kbit/s, counts to the capture's last frame, %.1f s after the connection's last packet, as its receiver never closed (the receiving application ran until then, as the batch goodput counts it); to the connection's last packet it is about %.1f kbit/s (docs/metrics.md#pep)",
		r.Label, kb, tail.Seconds(), kb*span.Seconds()/(span-tail).Seconds())
}

// Annotation says, for one run, who acknowledged the data and what the
// summary's rows mean for it; "" when nothing needs saying.
func (r Run) Annotation() string {
	switch {
	case r.Split != nil && !r.Split.SameConn:
		return fmt.Sprintf("%s: a split-TCP PEP acknowledged the sender (two TCP connections in %s and %s): 'acked to sender' and 'accepted by PEP' are bytes the PEP accepted; end-to-end goodput and 'delivered' come from the server-side capture; at most %d bytes were held in the PEP",
			r.Label, shown(r.File), shown(r.ServerFile), r.Split.MaxHeldBytes)
	case r.Split != nil:
		return fmt.Sprintf("%s: one end-to-end TCP connection in both captures (no PEP split it)", r.Label)
	case r.PEP.Likely:
		how := "likely come"
		if r.PEP.Proven() {
			how = "come"
		}
		return fmt.Sprintf("%s: the ACKs %s from a split-TCP PEP (evidence: %s): 'acked to sender' and 'accepted by PEP' are bytes the PEP accepted, not end-to-end goodput; give the server side as LABEL=CLIENT+SERVER for the end-to-end numbers.%s%s",
			r.Label, how, strings.Join(r.PEP.Supporting(), ", "), r.PEP.Given(), r.PEP.Caveat())
	case r.ProxyPossible():
		return fmt.Sprintf("%s: unknown whether the ACKs came from the receiver or from a split-TCP PEP on the sender's link (%s): 'goodput end to end' and 'delivered' are –, and '%s' holds the acknowledged rate, goodput only if the receiver acknowledged; 'acked to sender' and the RTT rows are to the acknowledger. To decide, give --path-rtt (the path's end-to-end RTT), or the server side as LABEL=CLIENT+SERVER for the end-to-end numbers (docs/metrics.md#pep)",
			r.Label, r.PEP.PossibleWhy(), PossibleRow)
	}
	return ""
}

// End is the end of r's connection: its last packet, or for a pair the
// later of the two halves' last packets.
func End(r Run) capture.Timestamp {
	end := r.Result.Conn.Last
	if r.Server != nil && r.Server.Conn.Last > end {
		end = r.Server.Conn.Last
	}
	return end
}

// Delivered returns, for a pair run or a one-capture run without a proxy,
// the bytes the final receiver had acknowledged over time: one point per
// new cumulative ACK (time since r.Ref, payload bytes), from the
// server-side capture for a pair; false when no receiver's ACKs were
// captured (a proxy acknowledged and the far side is missing).
func Delivered(r Run) (ts []time.Duration, bytes []int64, ok bool) {
	rc, ok := r.receiver()
	if !ok || rc.Series == nil {
		return nil, nil, false
	}
	var high int64
	for _, a := range rc.Series.Acks[r.Dir] {
		v := a.Ack - 1
		if h := rc.Conn.Half[r.Dir]; h.FinSeen && a.Ack > h.FinRel {
			v = h.FinRel - 1
		}
		if v > high {
			high = v
			ts, bytes = append(ts, a.Time.Sub(r.Ref)), append(bytes, v)
		}
	}
	return ts, bytes, true
}
