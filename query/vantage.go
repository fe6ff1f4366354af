package query

import (
	"fmt"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// LegNote says, when the capture point is not beside the sender of
// direction d's data (tcpanalysis.OtherLeg), that d's ack and ts RTT
// samples time only part of the path, and how much the rest is
// (docs/metrics.md#rtt); "" when the capture point is beside the sender or
// nothing tells.
func LegNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	own, other, from, ok := tcpanalysis.OtherLeg(r, d)
	if !ok {
		return ""
	}
	return fmt.Sprintf("conn %d: the capture point is not beside the %s sender: ack/ts RTT %s time only capture point → receiver → capture point (smallest %s); the other part of the path, capture point → sender → capture point, is %s at most (%s; it includes any wait at the sender). For the path RTT add the two, or capture at the sender (docs/metrics.md#rtt)",
		r.Conn.Index, d, d, ms(own), ms(other), from)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", d.Seconds()*1000) }

// InFlightNote says, when the capture point is not beside the sender of
// direction d's data (tcpanalysis.OtherLeg, the rule of LegNote), that the
// bytes in flight of the window verb are the capture point's and not the
// sender's: the data seen here less the ACKs seen here, which leaves out
// what the sender keeps outstanding on the part of the path between it and
// the capture point (what it sends in that part's RTT, other: an upper
// bound, OtherLeg) (docs/metrics.md#bytes-in-flight). "" when the capture point is beside
// the sender or nothing tells (no ack or ts RTT sample).
func InFlightNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	own, other, from, ok := tcpanalysis.OtherLeg(r, d)
	if !ok {
		return ""
	}
	return fmt.Sprintf("conn %d: the capture point is not beside the %s sender (ack/ts RTT from here %s; capture point → sender → capture point %s at most, %s): bytes in flight are the data seen here less the ACKs seen here, and leave out what the sender keeps outstanding between it and the capture point (what it sends in that part's RTT); at the receiver they are only what it has yet to acknowledge. rwnd is the receiver's, seen here before the sender sees it. For the sender's bytes in flight, capture at the sender (docs/metrics.md#bytes-in-flight)",
		r.Conn.Index, d, ms(own), ms(other), from)
}

// InFlightTitle is the line the window figure's title adds when
// InFlightNote has something to say: "" otherwise.
func InFlightTitle(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if _, other, _, ok := tcpanalysis.OtherLeg(r, d); ok {
		return fmt.Sprintf("in flight as seen at the capture point (RTT to the sender %s at most), not the sender's", ms(other))
	}
	return ""
}
