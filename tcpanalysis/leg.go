package tcpanalysis

import (
	"time"

	"github.com/tcpviz/tcpviz/flows"
)

// OtherLeg tells, from the RTT samples and the handshake, whether the
// capture point is not beside the sender of direction d's data
// (docs/metrics.md#rtt): d's ack and ts samples then time only capture
// point → receiver → capture point (own, the smallest of them), and the
// other leg, capture point → sender → capture point (other), is the
// smaller of the handshake's leg on the sender's side (SYN-ACK → ACK for
// a→b data, SYN → SYN-ACK for b→a) and the smallest ack or ts sample of the
// reverse direction (from names which). Every one of them times that leg
// plus what delayed an answer (a delayed ACK, the sender's 802.11 queue:
// 94.7 ms for the handshake's ACK at the source of ns-3 aodv r1 flow 0,
// whose ts samples of the reverse direction go down to 0.3 ms), so the
// smallest is the leg's best bound. ok when the other leg is over 1 ms and
// over a quarter of own: a receiver-side or relay capture; on 802.11, the
// capturing radio's own transmissions decide first (DirStats.OwnTx: the
// sender's frames, beside the sender; the receiver's, not). The one vantage
// rule of the rtt note (query.LegNote), the window's in-flight note
// (query.InFlightNote), the RTT figure's panel titles and slow start's
// rounds (SlowStartEnd).
func OtherLeg(r *ConnResult, d flows.Direction) (own, other time.Duration, from string, ok bool) {
	own, found := minSample(r, d, MethodACK, MethodTS)
	if !found {
		return 0, 0, "", false
	}
	have := true
	switch {
	case d == flows.AtoB && r.Handshake.SynAckToAckOk:
		other, from = r.Handshake.SynAckToAck, "the handshake's SYN-ACK → ACK"
	case d == flows.BtoA && r.Handshake.SynToSynAckOk:
		other, from = r.Handshake.SynToSynAck, "the handshake's SYN → SYN-ACK"
	default:
		have = false
	}
	if a, ok := minSample(r, d.Reverse(), MethodACK, MethodTS); ok && (!have || a < other) {
		// The sender's answers to the receiver: its echo of the
		// receiver's TSval, its ACK of the receiver's data.
		other, from, have = a, "the smallest ack/ts sample of "+d.Reverse().String(), true
	}
	// An 802.11 capture whose own radio sent one side's frames (OwnTx)
	// was taken on that side's node, whatever the RTTs say: a source
	// whose handshake ACK waited 14.5 s for a route (ns-3 olsr r1 node 14,
	// flow 1) is beside the sender, a sink beside the receiver.
	switch RadioOf(r, d) {
	case RadioSender:
		return own, other, from, false
	case RadioReceiver, RadioRelay:
		// A relay's radio forwarded the connection's frames: beside
		// neither end (ns-3 aodv r1 node 10, flow 2: 178 ms one way, 7.5
		// the other, which the RTT rule below read as the sender's).
		return own, other, from, have
	}
	if !have || other <= time.Millisecond || other*4 <= own {
		return own, other, from, false
	}
	return own, other, from, true
}

// Radio is what an 802.11 capture's own radio sent of a connection, as
// seen from one data direction (RadioOf): the capture point's vantage
// where the frames tell it.
type Radio int

const (
	// RadioNone: the capturing radio sent no frame of the connection (a
	// wired capture, a sniffer, a node that only overheard it): the
	// frames do not tell the vantage.
	RadioNone Radio = iota
	// RadioSender: it sent the data direction's frames as their sender
	// (DirStats.OwnTx), none of the other's: the sender's own node.
	RadioSender
	// RadioReceiver: it sent the ACK direction's frames as their sender:
	// the receiver's own node.
	RadioReceiver
	// RadioBoth: it sent both directions' frames under each end's own
	// address (a node whose address both halves learned): undecided.
	RadioBoth
	// RadioRelay: it sent frames of the connection under an address that
	// is neither end's (DirStats.RelayTx) and none as an end: a relay.
	RadioRelay
)

// RadioOf classes connection r's capture point by its radio's own
// transmissions for data direction d (DirStats.OwnTx, RelayTx: radiotap
// without a signal field). The one rule of OtherLeg, the vantage notes
// (query) and the batch goodput's vantage (campaign).
func RadioOf(r *ConnResult, d flows.Direction) Radio {
	data, ack := r.Dir[d].OwnTx, r.Dir[d.Reverse()].OwnTx
	switch {
	case data > 0 && ack > 0:
		return RadioBoth
	case data > 0:
		return RadioSender
	case ack > 0:
		return RadioReceiver
	case r.Dir[0].RelayTx > 0 || r.Dir[1].RelayTx > 0:
		return RadioRelay
	}
	return RadioNone
}

// minSample is the smallest sample of direction d by methods ms, and
// whether there is one. A sample of 0 counts: a receiver that answers
// within the capture's resolution (ns-3's ACKs carry their data
// segment's timestamp) is beside the capture point, not unknown.
func minSample(r *ConnResult, d flows.Direction, ms ...Method) (time.Duration, bool) {
	var m time.Duration
	found := false
	for _, meth := range ms {
		if a := r.RTTAgg[d][meth]; a.N > 0 && (!found || a.Min < m) {
			m, found = a.Min, true
		}
	}
	return m, found
}
