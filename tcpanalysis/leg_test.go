package tcpanalysis

import (
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
)

// TestOtherLegSmallest: the leg on the sender's side is the smallest of
// its bounds. At an 802.11 source whose handshake ACK waited 94.7 ms in
// its queue, the reverse direction's 0.31 ms ts sample shows the capture
// beside the sender (ns-3 aodv r1 flow 0 at node 2); at a receiver the
// handshake's 50 ms leg, below the reverse ts samples' 52 ms, is named;
// without a handshake the reverse direction's ack samples tell
// (cases/midstream_no_syn_wscale conn 1: 9.6 and 20 ms).
func TestOtherLegSmallest(t *testing.T) {
	agg := func(d time.Duration) RTTAgg { return RTTAgg{N: 1, Min: d, Max: d, Sum: d} }
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	src := &ConnResult{}
	src.RTTAgg[flows.AtoB][MethodACK] = agg(ms(7.189))
	src.RTTAgg[flows.BtoA][MethodTS] = agg(ms(0.308))
	src.Handshake.SynAckToAck, src.Handshake.SynAckToAckOk = ms(94.717), true
	if _, other, from, ok := OtherLeg(src, flows.AtoB); ok || other != ms(0.308) || from != "the smallest ack/ts sample of ba" {
		t.Errorf("source: other %v from %q ok %v, want 0.308 ms from ba's samples, not ok", other, from, ok)
	}
	rcv := &ConnResult{}
	rcv.RTTAgg[flows.AtoB][MethodACK] = agg(ms(0.1))
	rcv.RTTAgg[flows.BtoA][MethodTS] = agg(ms(52))
	rcv.Handshake.SynAckToAck, rcv.Handshake.SynAckToAckOk = ms(50), true
	if own, other, from, ok := OtherLeg(rcv, flows.AtoB); !ok || own != ms(0.1) || other != ms(50) || from != "the handshake's SYN-ACK → ACK" {
		t.Errorf("receiver: own %v other %v from %q ok %v", own, other, from, ok)
	}
	mid := &ConnResult{}
	mid.RTTAgg[flows.AtoB][MethodACK] = agg(ms(20))
	mid.RTTAgg[flows.BtoA][MethodACK] = agg(ms(9.6))
	if own, other, from, ok := OtherLeg(mid, flows.BtoA); !ok || own != ms(9.6) || other != ms(20) || from != "the smallest ack/ts sample of ab" {
		t.Errorf("mid-path, no handshake: own %v other %v from %q ok %v", own, other, from, ok)
	}
	if _, _, _, ok := OtherLeg(&ConnResult{RTTAgg: mid.RTTAgg}, flows.AtoB); !ok {
		t.Errorf("mid-path a→b: 9.6 ms other leg against 20 ms own should be ok")
	}
	// 802.11: the capturing radio sent the data (the source's own node),
	// whatever a 14.5 s handshake leg says; or the ACKs (the sink's).
	air := &ConnResult{}
	air.RTTAgg[flows.AtoB][MethodACK] = agg(ms(2590))
	air.Handshake.SynAckToAck, air.Handshake.SynAckToAckOk = ms(14538), true
	air.Dir[flows.AtoB].OwnTx = 40
	if _, _, _, ok := OtherLeg(air, flows.AtoB); ok {
		t.Errorf("the radio sent the data: not beside the sender")
	}
	// The ACKs: a 10 ms leg against 100 ms samples, which the RTT rule
	// alone would call beside the sender (10 × 4 ≤ 100).
	air.Dir[flows.AtoB].OwnTx, air.Dir[flows.BtoA].OwnTx = 0, 40
	air.RTTAgg[flows.AtoB][MethodACK] = agg(ms(100))
	air.Handshake.SynAckToAck = ms(10)
	if _, other, _, ok := OtherLeg(air, flows.AtoB); !ok || other != ms(10) {
		t.Errorf("the radio sent the ACKs: at the receiver, ok %v other %v", ok, other)
	}
	none := &ConnResult{}
	none.RTTAgg[flows.AtoB][MethodACK] = agg(ms(5))
	if _, _, _, ok := OtherLeg(none, flows.AtoB); ok {
		t.Errorf("nothing for the other leg: ok")
	}
}
