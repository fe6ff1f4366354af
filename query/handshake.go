package query

import (
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// HandshakeOf is the handshake RTT series of r in d (MetricRTTHandshake,
// ms; one sample per direction at most: SYN → SYN-ACK for the SYN's
// sender, SYN-ACK → ACK for the other, docs/metrics.md#rtt) whatever the
// reference point and the --from/--to window: the handshake's RTT is the
// connection's (docs/schema.md#selection), and it precedes a data or bulk
// reference point. SeriesOf(r, d, MetricRTTHandshake) keeps the window's
// rule, for time series drawn over the window (compare).
func (v *View) HandshakeOf(r *tcpanalysis.ConnResult, d flows.Direction) Series {
	s := Series{Metric: MetricRTTHandshake, Conn: r.Conn.Index, Dir: d}
	for _, x := range r.RTT {
		if x.Method == tcpanalysis.MethodHandshake && x.Dir == d {
			s.Points = append(s.Points, Point{x.Time, x.Frame, x.RTT.Seconds() * 1000})
		}
	}
	return s
}
