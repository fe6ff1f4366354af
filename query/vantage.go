package query

import (
	"fmt"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/textcol"
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
		if relayed(r) && anySample(r) {
			// No ack/ts sample of d to bound the legs with, but the
			// samples there are (the reverse direction's) are a relay's.
			return fmt.Sprintf("conn %d: the capture point is a relay (the capturing node forwarded this connection's frames), beside neither end: its ack/ts RTT samples time only capture point → that direction's receiver → capture point, not the path's RTT; capture at the %s sender (docs/metrics.md#rtt)", r.Conn.Index, d)
		}
		return ""
	}
	relay := ""
	if relayed(r) {
		relay = " (a relay: the capturing node forwarded this connection's frames)"
	}
	few := ""
	if n := samples(r, d); n < 10 {
		// A relay that saw a few of the route's frames: the smallest of
		// two samples is no path minimum (ns-3 aodv r1 node 12: 429.5
		// ms from 2 samples, 68.5 ms by the socket).
		few = fmt.Sprintf(", from only %s: a rough bound", textcol.Count(n, "sample"))
	}
	return fmt.Sprintf("conn %d: the capture point is not beside the %s sender%s: ack/ts RTT %s time only capture point → receiver → capture point (smallest %s%s); the other part of the path, capture point → sender → capture point, took %s or less at its fastest (%s). Add the two for the path's smallest RTT, or capture at the sender (docs/metrics.md#rtt)",
		r.Conn.Index, d, relay, d, ms(own), few, ms(other), from)
}

// samples is how many ack and ts RTT samples direction d of r has.
func samples(r *tcpanalysis.ConnResult, d flows.Direction) int {
	return int(r.RTTAgg[d][tcpanalysis.MethodACK].N + r.RTTAgg[d][tcpanalysis.MethodTS].N)
}

// relayed reports that r was captured on a relay (tcpanalysis.RadioRelay,
// the same for both directions).
func relayed(r *tcpanalysis.ConnResult) bool {
	return tcpanalysis.RadioOf(r, flows.AtoB) == tcpanalysis.RadioRelay
}

// anySample reports that r has an ack or ts RTT sample in either
// direction.
func anySample(r *tcpanalysis.ConnResult) bool {
	for d := range r.RTTAgg {
		if r.RTTAgg[d][tcpanalysis.MethodACK].N > 0 || r.RTTAgg[d][tcpanalysis.MethodTS].N > 0 {
			return true
		}
	}
	return false
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
	if relayed(r) {
		// A relay first: its ACKs may have taken another route, so in
		// flight can pass the window many times (ns-3 aodv r1 node 12:
		// 1.38 MB against 128 KiB).
		return fmt.Sprintf("conn %d: the capture point is a relay (the capturing node forwarded this connection's frames), beside neither end: bytes in flight are the data seen here less the ACKs seen here, not the %s sender's, and can run far past the window where ACKs took another route; for those, capture at the sender (docs/metrics.md#bytes-in-flight)", r.Conn.Index, d)
	}
	own, other, from, ok := tcpanalysis.OtherLeg(r, d)
	if !ok {
		return ""
	}
	return fmt.Sprintf("conn %d: the capture point is not beside the %s sender (at their fastest, ack/ts RTT from here %s, capture point → sender → capture point %s or less, %s): bytes in flight are the data seen here less the ACKs seen here. They leave out what the sender keeps outstanding between it and the capture point (what it sends in that part's RTT), and count data whose ACKs did not pass here; at the receiver they are what it has yet to acknowledge. rwnd is the receiver's, seen here before the sender sees it. For the sender's bytes in flight, capture at the sender (docs/metrics.md#bytes-in-flight)",
		r.Conn.Index, d, ms(own), ms(other), from)
}

// InFlightTitle is the line the window figure's title adds when
// InFlightNote or AirFlightNote has something to say: "" otherwise.
func InFlightTitle(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if relayed(r) {
		return "in flight as seen at a relay, not the sender's: ACKs on another route are missing"
	}
	if _, other, _, ok := tcpanalysis.OtherLeg(r, d); ok {
		return fmt.Sprintf("in flight as seen at the capture point (RTT to the sender ≤ %s at its fastest), not the sender's", ms(other))
	}
	if tcpanalysis.RadioOf(r, d) == tcpanalysis.RadioSender {
		return "in flight on air at the sender's radio: data still queued in its interface is not in it"
	}
	return ""
}

// RTTTitle is the line an RTT panel of direction d adds to its title when
// the capture point changes what the samples time (LegNote, AirNote, a
// relay): "" otherwise.
func RTTTitle(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if relayed(r) {
		return "at a relay: samples time only part of the path"
	}
	if _, other, _, ok := tcpanalysis.OtherLeg(r, d); ok {
		return fmt.Sprintf("capture point not beside the sender: the rest of the path adds ≤ %.1f ms at its fastest", other.Seconds()*1000)
	}
	if tcpanalysis.RadioOf(r, d) == tcpanalysis.RadioSender {
		return "on the sender's radio: samples leave out the time data waited in its queues"
	}
	return ""
}

// VantageTitle is the line the time-sequence and throughput figures add to
// their title when the capture point changes what they show: at a relay
// (RelayNote), only the frames routed through it; away from the sender
// (SentNote), the data as it reached the capture point; at a node that
// only overheard the connection (OverheardNote), nothing of its own.
// "" otherwise.
func VantageTitle(r *tcpanalysis.ConnResult, d flows.Direction) string {
	switch {
	case tcpanalysis.OnlyOverheard(r):
		return "overheard only: the capturing node was neither end nor relay of this connection"
	case relayed(r):
		return "at a relay: only the frames routed through it; goodput follows the ACKs seen there"
	}
	if _, _, _, ok := tcpanalysis.OtherLeg(r, d); ok {
		return "as seen at the capture point, not beside the sender: data as it arrived there"
	}
	return ""
}

// OverheardNote says, for a connection the capturing 802.11 node only
// overheard (neither end nor relay: every frame of it addressed to other
// nodes), that its numbers come from overheard ACKs alone and say nothing
// of the connection (ns-3 olsr r2 node 13, flow 2: goodput end to end
// 536.2 kbit/s against 836.2 by the sink). "" otherwise.
func OverheardNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if !tcpanalysis.OnlyOverheard(r) {
		return ""
	}
	return fmt.Sprintf("conn %d: the capturing node only overheard this connection (its %d frames here were all addressed to other nodes): it holds no data of it, its acked and goodput bytes come from overheard ACKs and are not the connection's; capture at its sender or receiver (docs/metrics.md#own-frames)", r.Conn.Index, r.Conn.Overheard)
}

// FlightOverWindow says when bytes in flight at the capture point exceed
// what the receiver allowed: over twice the receive window in force and
// by more than 64 KiB (a window that shrank, or a window probe, stays
// below), at some window point of the chosen connection's data direction
// in the selection. A sender cannot have that much outstanding, so the
// capture missed the ACKs of that data: they took another route (a MANET
// relay's capture), or were lost before the capture point. The in-flight
// series then overstates the sender's, at any vantage
// (docs/metrics.md#bytes-in-flight). "" when it never happens or the
// window is unknown.
func (v *View) FlightOverWindow() string {
	n, worst := v.flightOver()
	return v.flightOverWindow(n, worst)
}

// flightOverWindow is FlightOverWindow from flightOver's result.
func (v *View) flightOverWindow(n int, worst tcpanalysis.WindowPoint) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("conn %d: bytes in flight %s exceed twice the receive window at %s (up to %d B against a %d B window, frame %d): the capture missed the ACKs of that data (another route, as at a relay, or lost before the capture point), so in flight here overstates the sender's there (docs/metrics.md#bytes-in-flight)",
		v.Conn.Conn.Index, v.Dir, textcol.Count(n, "point"), worst.InFlight, worst.Rwnd, worst.Frame)
}

// flightOverWindowTitle is the line the window figure's title adds
// (Caveats(OutWindow).Titles) when FlightOverWindow has something to say,
// from flightOver's result: "" otherwise.
func flightOverWindowTitle(n int, worst tcpanalysis.WindowPoint) string {
	if n > 0 {
		return fmt.Sprintf("in flight up to %d B, over twice the window: ACKs the capture missed", worst.InFlight)
	}
	return ""
}

// flightOver counts FlightOverWindow's points in the selection and
// returns the one with the most in flight.
func (v *View) flightOver() (n int, worst tcpanalysis.WindowPoint) {
	r, d := v.Conn, v.Dir
	if r.Series == nil {
		return 0, worst
	}
	for p := range v.WindowPoints(r, d) {
		if p.FlightValid && p.RwndKnown && p.InFlight > 2*p.Rwnd && p.InFlight-p.Rwnd > 64<<10 {
			n++
			if p.InFlight > worst.InFlight {
				worst = p
			}
		}
	}
	return n, worst
}

// AirNote says, for an 802.11 capture taken on the data sender's own node
// (its radio sent the data frames: DirStats.OwnTx, radiotap without a
// signal field), that its frames are stamped when they went on air, so
// the ack/ts RTT samples of d leave out the time the data waited in the
// sender's own queues, which the sender's socket's RTT includes (ns-3 aodv
// r1 node 2, flow 0: 7.19 ms at its smallest here, 68.5 ms by the
// socket). "" otherwise or without a sample of d.
func AirNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if tcpanalysis.RadioOf(r, d) != tcpanalysis.RadioSender {
		return ""
	}
	if r.RTTAgg[d][tcpanalysis.MethodACK].N == 0 && r.RTTAgg[d][tcpanalysis.MethodTS].N == 0 {
		return ""
	}
	return fmt.Sprintf("conn %d: an 802.11 capture on the %s sender's own radio: its data frames are stamped when they went on air, so the ack/ts RTT samples leave out the time data waited in the sender's own queues, which its socket's RTT (srtt, RTO) includes (docs/metrics.md#rtt)", r.Conn.Index, d)
}

// AirFlightNote is AirNote for the window verb: at the data sender's own
// radio, bytes in flight count data from when it went on air, so data the
// sender's TCP had sent but its interface still queued is not in them,
// while the socket's FlightSize includes it (ns-3 aodv r1 node 2, flow 0,
// 20–95 s, time-weighted: 22.6 KB in flight here, a cwnd of 43.1 KB by
// the socket's tcp-events.csv).
// "" otherwise.
func AirFlightNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if tcpanalysis.RadioOf(r, d) != tcpanalysis.RadioSender {
		return ""
	}
	return fmt.Sprintf("conn %d: an 802.11 capture on the %s sender's own radio: bytes in flight count data from when it went on air, so data its TCP had sent that still waited in its interface queue is not in them, while the socket's FlightSize includes it (docs/metrics.md#bytes-in-flight)", r.Conn.Index, d)
}

// SentNote says, when the capture point is not beside the sender of
// direction d's data (tcpanalysis.OtherLeg, the rule of LegNote; a relay
// has RelayNote), that the data counted there is what reached the capture
// point: compare's "sent after t" is the highest sequence seen there, not
// the sender's progress, and tput's throughput the rate the data passed
// there; the ACKs are counted as they passed there, before they reached
// the sender (docs/metrics.md#compare). At a MANET sink (ns-3 aodv r1 node
// 10, flow 0) "sent" read as what the sender sent. "" otherwise.
func SentNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if relayed(r) {
		return ""
	}
	if _, _, _, ok := tcpanalysis.OtherLeg(r, d); !ok {
		return ""
	}
	return fmt.Sprintf("conn %d: the capture point is not beside the %s sender: the data counted here (\"sent after t\", throughput) is what reached the capture point, not what the sender had sent by then (data lost on the way is not in it, and the rest arrives later), and the ACKs are counted as they passed here, before they reached the sender; for the sender's progress, capture at the sender (docs/metrics.md#compare)", r.Conn.Index, d)
}

// RelayNote says, for a capture taken on a node that relayed connection r
// (tcpanalysis.RadioRelay), that it holds only the frames routed through
// that node: throughput and the time-sequence graph count the data that
// passed there, and goodput follows the receiver's cumulative ACKs seen
// there, which jump where the ACKs took another route (an interval can
// then show more than the link carries: ns-3 aodv r1 node 1, flow 0,
// 12.3 Mbit/s in 2 s on a 2 Mbit/s link). "" otherwise.
func RelayNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if !relayed(r) {
		return ""
	}
	return fmt.Sprintf("conn %d: the capture point is a relay (the capturing node forwarded this connection's frames): it holds only the frames routed through it, so the %s data and retransmissions here are that part of the connection's, and goodput follows the receiver's ACKs seen here, which jump where ACKs took another route; for the connection's own numbers, capture at its sender or receiver (docs/metrics.md#own-frames)", r.Conn.Index, d)
}

// RetransNote says, when the capture point is not beside the sender of
// direction d's data (tcpanalysis.OtherLeg, the rule of LegNote; a relay
// has RelayNote), that the retransmissions listed are those that reached
// the capture point, classed from what passed there: a segment lost
// before it shows once, as its retransmission, which reads as new or
// out-of-order data, not as a retransmission; the dup ACKs and SACKs that
// class a retransmission fast are seen before they reach the sender. At a
// MANET sink (ns-3 aodv r1 node 10, flow 0) rto 9 and fast 322 against the
// sender's 57 and 387 (its socket: 524). "" otherwise.
func RetransNote(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if VantageOf(r, d) != VantageAway {
		return ""
	}
	return fmt.Sprintf("conn %d: the capture point is not beside the %s sender: the retransmissions here are those that reached it, and fewer than the sender's (a segment lost before the capture point shows once, as its retransmission, which reads as out-of-order or new data); rto/fast/spurious are read from the ACKs as they passed here, before they reached the sender. For the sender's retransmissions, capture at the sender (docs/metrics.md#events)", r.Conn.Index, d)
}

// RetransTitle is the line the events figure adds to its title when the
// capture point changes what it shows (OverheardNote, RelayNote,
// RetransNote): "" otherwise.
func RetransTitle(r *tcpanalysis.ConnResult, d flows.Direction) string {
	switch VantageOf(r, d) {
	case VantageOverheard:
		return VantageTitle(r, d)
	case VantageRelay:
		return "at a relay: only the retransmissions routed through it"
	case VantageAway:
		return "as seen at the capture point, not beside the sender: retransmissions of data lost before it are missing"
	}
	return ""
}
