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
	return fmt.Sprintf("conn %d: the capture point is not beside the %s sender: ack/ts RTT %s time only capture point → receiver → capture point (smallest %s); the other part of the path, capture point → sender → capture point, is about %s (%s). For the path RTT add the two, or capture at the sender (docs/metrics.md#rtt)",
		r.Conn.Index, d, d, ms(own), ms(other), from)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", d.Seconds()*1000) }
