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
