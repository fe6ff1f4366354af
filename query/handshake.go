package query

import (
	"fmt"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// HandshakeOf is the handshake RTT series of r in d (MetricRTTHandshake,
// ms; one sample per direction at most: SYN → SYN-ACK for the SYN's
// sender, SYN-ACK → ACK for the other, docs/metrics.md#rtt). Without a
// --from/--to window it is the connection's whatever the reference point
// (it precedes a data or bulk one); a window given keeps it only when the
// sample's time lies in it, as every other row (docs/schema.md#selection,
// HandshakeIn).
func (v *View) HandshakeOf(r *tcpanalysis.ConnResult, d flows.Direction) Series {
	s := Series{Metric: MetricRTTHandshake, Conn: r.Conn.Index, Dir: d}
	ref := v.RefOf(r, d)
	for _, x := range r.RTT {
		if x.Method == tcpanalysis.MethodHandshake && x.Dir == d && HandshakeIn(v.Sel.From, v.Sel.To, x.Time.Sub(ref)) {
			s.Points = append(s.Points, Point{x.Time, x.Frame, x.RTT.Seconds() * 1000})
		}
	}
	return s
}

// HandshakeIn reports whether a handshake RTT sample taken dt after the
// reference point counts in the window [from, to] (to ≤ 0: no end): always
// when no window is given (from and to 0: the connection's handshake, even
// before a data or bulk reference point), else when InWindow.
func HandshakeIn(from, to, dt time.Duration) bool {
	return from == 0 && to <= 0 || InWindow(dt, from, to)
}

// HandshakeNote says which handshake RTT samples of v's connection, in
// the selected directions, the --from/--to window leaves out
// (HandshakeIn), with their values in ms and times (t_s, seconds since the
// capture's first frame): the window drops them from the rtt table, rows
// and figure as any sample, and the note keeps the connection's handshake
// RTT said. "" when none is left out.
func (v *View) HandshakeNote() string {
	var out []string
	for _, d := range v.Sel.Dir.Dirs() {
		ref := v.RefOf(v.Conn, d)
		for _, x := range v.Conn.RTT {
			if x.Method == tcpanalysis.MethodHandshake && x.Dir == d && !HandshakeIn(v.Sel.From, v.Sel.To, x.Time.Sub(ref)) {
				out = append(out, fmt.Sprintf("%s %.3f ms at t_s %.6f", d, x.RTT.Seconds()*1000, v.CaptureS(x.Time)))
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	return fmt.Sprintf("conn %d: the handshake RTT (%s) was taken outside the --from/--to window, so the table, rows and figure leave it out like any sample there; without the window they show it (docs/schema.md#selection)",
		v.Conn.Conn.Index, strings.Join(out, ", "))
}
