package tcpanalysis

import (
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
)

// TestSlowStartAtReceiver: a capture beside the receiver of b→a data sees
// the receiver's ACKs 0.1 ms after the data (its own samples) and the
// server's side of the path only in the handshake (SYN → SYN-ACK, 340 ms,
// more than the 300 ms between flights). Flights of 2, 4, 8, 16 and 18
// segments of 1 000 B arrive 300 ms apart, then 18 again: the window
// stopped doubling in the fifth flight (18 000 < 1.5 × 16 000), so slow
// start ends at its first segment, 1.2 s after the reference point. The
// bytes in flight at the capture point (a segment at most) would have
// ended it in the second round, and rounds of the 0.1 ms samples alone in
// the first millisecond.
func TestSlowStartAtReceiver(t *testing.T) {
	t0 := capture.Timestamp(10 * time.Second)
	r := &ConnResult{Series: &Series{}}
	r.Handshake.SynToSynAck, r.Handshake.SynToSynAckOk = 340*time.Millisecond, true
	d := flows.BtoA
	r.RTTAgg[d][MethodACK] = RTTAgg{N: 100, Min: 100 * time.Microsecond, Max: time.Millisecond, Sum: 100 * 300 * time.Microsecond}
	var seq, frame int64
	var want int64
	for k, n := range []int{2, 4, 8, 16, 18, 18} {
		for i := range n {
			frame++
			if k == 4 && i == 0 {
				want = frame
			}
			at := t0 + capture.Timestamp(time.Duration(k)*300*time.Millisecond+time.Duration(i)*100*time.Microsecond)
			r.Series.Segs[d] = append(r.Series.Segs[d], SegPoint{Time: at, Frame: frame, Start: seq, End: seq + 1000, Payload: 1000})
			seq += 1000
		}
	}
	got := SlowStartEnd(r, d, t0)
	if got.Rule != SlowStartGrowth || got.End != 1200*time.Millisecond || got.Frame != want {
		t.Errorf("slow start %+v, want growth at 1.2 s, frame %d", got, want)
	}
}

// TestSlowStartOn80211: the same flights on an 802.11 capture (a side's
// 802.11 address known), where frames are recorded on air after the
// sender's queue: the growth of arrivals is the link's pace, not the
// window's, so only the first retransmission (at 2.5 s) ends slow start;
// without one it has not ended.
func TestSlowStartOn80211(t *testing.T) {
	t0 := capture.Timestamp(10 * time.Second)
	r := &ConnResult{Series: &Series{}}
	r.Conn = &flows.Conn{}
	r.Conn.Half[flows.AtoB].MACKnown = true
	// As TestSlowStartAtReceiver: without the 802.11 rule the flights
	// would end slow start at 1.2 s, before the retransmission.
	r.Handshake.SynToSynAck, r.Handshake.SynToSynAckOk = 340*time.Millisecond, true
	d := flows.BtoA
	r.RTTAgg[d][MethodACK] = RTTAgg{N: 100, Min: 100 * time.Microsecond, Max: time.Millisecond, Sum: 100 * 300 * time.Microsecond}
	var seq, frame int64
	for k, n := range []int{2, 4, 8, 16, 18, 18} {
		for i := range n {
			frame++
			at := t0 + capture.Timestamp(time.Duration(k)*300*time.Millisecond+time.Duration(i)*100*time.Microsecond)
			r.Series.Segs[d] = append(r.Series.Segs[d], SegPoint{Time: at, Frame: frame, Start: seq, End: seq + 1000, Payload: 1000})
			seq += 1000
		}
	}
	if got := SlowStartEnd(r, d, t0); got.Rule != SlowStartNotEnded {
		t.Errorf("no retransmission: slow start %+v, want not ended", got)
	}
	r.Events = []Event{{Time: t0 + capture.Timestamp(2500*time.Millisecond), Frame: 99, Dir: d, Class: Fast, Len: 1000}}
	if got := SlowStartEnd(r, d, t0); got.Rule != SlowStartLoss || got.End != 2500*time.Millisecond || got.Frame != 99 {
		t.Errorf("slow start %+v, want loss at 2.5 s, frame 99", got)
	}
}

// TestSlowStartLossIsData: a SYN sent again (an rto event of len 0, before
// the first byte) does not end slow start; the first retransmission of
// data does (frame 40 here, 2 s after the reference point).
func TestSlowStartLossIsData(t *testing.T) {
	t0 := capture.Timestamp(10 * time.Second)
	r := &ConnResult{Series: &Series{}}
	r.Conn = &flows.Conn{}
	r.Conn.Half[0].MACKnown = true // 802.11: the loss rule only
	d := flows.AtoB
	r.Events = []Event{
		{Time: t0 - capture.Timestamp(123*time.Millisecond), Frame: 3, Dir: d, Class: RTO, Len: 0},
		{Time: t0 + capture.Timestamp(2*time.Second), Frame: 40, Dir: d, Class: Fast, Len: 1448},
	}
	got := SlowStartEnd(r, d, t0)
	if got.Rule != SlowStartLoss || got.Frame != 40 || got.End != 2*time.Second {
		t.Errorf("slow start %+v, want the loss rule at frame 40, 2 s", got)
	}
}
