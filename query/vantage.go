package query

import (
	"fmt"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// LegNote says, when the capture point is not beside the sender of
// direction d's data, that d's ack and ts RTT samples time only part of the
// path, and how much the rest is (docs/metrics.md#rtt); "" when the capture
// point is beside the sender or nothing tells. Samples of d time capture
// point → receiver → capture point; the other leg, capture point → sender
// → capture point, is the handshake's leg on the sender's side (SYN-ACK →
// ACK for a→b data, SYN → SYN-ACK for b→a), else the smallest ts sample of
// the reverse direction. It counts when it is over 1 ms and over a
// quarter of d's smallest sample: a receiver-side or relay capture.
func LegNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	own, other, from, ok := OtherLeg(r, d)
	if !ok {
		return ""
	}
	return fmt.Sprintf("conn %d: the capture point is not beside the %s sender: ack/ts RTT %s time only capture point → receiver → capture point (smallest %s); the other part of the path, capture point → sender → capture point, is about %s (%s). For the path RTT add the two, or capture at the sender (docs/metrics.md#rtt)",
		r.Conn.Index, d, d, ms(own), ms(other), from)
}

// OtherLeg returns, when the capture point is not beside the sender of
// direction d (LegNote's rule), d's smallest sample (own), the other part
// of the path (other) and what it was read from; ok is false otherwise.
func OtherLeg(r *tcpanalysis.ConnResult, d flows.Direction) (own, other time.Duration, from string, ok bool) {
	own = minSample(r, d)
	if own <= 0 {
		return 0, 0, "", false
	}
	switch a := r.RTTAgg[d.Reverse()][tcpanalysis.MethodTS]; {
	case d == flows.AtoB && r.Handshake.SynAckToAckOk:
		other, from = r.Handshake.SynAckToAck, "the handshake's SYN-ACK → ACK"
	case d == flows.BtoA && r.Handshake.SynToSynAckOk:
		other, from = r.Handshake.SynToSynAck, "the handshake's SYN → SYN-ACK"
	case a.N > 0:
		// Without the handshake: the sender's echo of the receiver's
		// TSval, which may include a delayed ACK.
		other, from = a.Min, "the smallest ts sample of "+d.Reverse().String()
	}
	if other <= time.Millisecond || other*4 <= own {
		return 0, 0, "", false
	}
	return own, other, from, true
}

// minSample is the smallest ack or ts sample of direction d, 0 if none.
func minSample(r *tcpanalysis.ConnResult, d flows.Direction) time.Duration {
	var m time.Duration
	for _, meth := range []tcpanalysis.Method{tcpanalysis.MethodACK, tcpanalysis.MethodTS} {
		if a := r.RTTAgg[d][meth]; a.N > 0 && (m == 0 || a.Min < m) {
			m = a.Min
		}
	}
	return m
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", d.Seconds()*1000) }
