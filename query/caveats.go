package query

import (
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Vantage is where a capture point sits for one data direction of a
// connection, as far as it changes what that capture's numbers mean: the
// one classification behind the vantage notes and title lines of this
// file's siblings (OverheardNote, RelayNote, LegNote, SentNote,
// InFlightNote, AirNote; VantageTitle, RTTTitle, InFlightTitle), by their
// rules (tcpanalysis.OnlyOverheard, RadioOf, OtherLeg), for listings that
// name it in a word (the report's connection picker)
// (docs/metrics.md#own-frames, #rtt, #bytes-in-flight).
type Vantage uint8

const (
	// VantageNone: no vantage note applies: the capture point is beside
	// the sender by the RTT rule (tcpanalysis.OtherLeg), or nothing tells
	// (no ack or ts RTT sample and no transmission of the capturing
	// 802.11 radio).
	VantageNone Vantage = iota
	// VantageSenderRadio: an 802.11 capture on the sender's own radio
	// (tcpanalysis.RadioSender): its RTT samples and bytes in flight leave
	// out the sender's queues (AirNote, AirFlightNote).
	VantageSenderRadio
	// VantageAway: the capture point is not beside the sender (at the
	// receiver, or between the two; tcpanalysis.OtherLeg): RTT samples
	// time only part of the path, "sent" and bytes in flight are the
	// capture point's (LegNote, SentNote, InFlightNote).
	VantageAway
	// VantageRelay: the capturing node forwarded the connection's frames
	// (tcpanalysis.RadioRelay): it holds only the frames routed through
	// it; its progress and goodput are not the connection's (RelayNote).
	VantageRelay
	// VantageOverheard: the capturing node only overheard the connection
	// (tcpanalysis.OnlyOverheard): nothing of it is its own; its acked and
	// goodput bytes come from overheard ACKs (OverheardNote).
	VantageOverheard
)

// VantageOf classes the capture point of connection r for data direction
// d: a node that only overheard r first, then a relay, then a capture
// point not beside the sender, then the sender's own radio; VantageNone
// otherwise.
func VantageOf(r *tcpanalysis.ConnResult, d flows.Direction) Vantage {
	switch {
	case tcpanalysis.OnlyOverheard(r):
		return VantageOverheard
	case relayed(r):
		return VantageRelay
	}
	if _, _, _, ok := tcpanalysis.OtherLeg(r, d); ok {
		return VantageAway
	}
	if tcpanalysis.RadioOf(r, d) == tcpanalysis.RadioSender {
		return VantageSenderRadio
	}
	return VantageNone
}

// String names v in a word or three: "overheard only", "relay", "not
// beside the sender", "sender's radio"; "none" for VantageNone.
func (v Vantage) String() string {
	switch v {
	case VantageSenderRadio:
		return "sender's radio"
	case VantageAway:
		return "not beside the sender"
	case VantageRelay:
		return "relay"
	case VantageOverheard:
		return "overheard only"
	}
	return "none"
}

// OwnNumbers reports whether the connection's progress and goodput read
// at this vantage are the connection's: not at a relay (only the frames
// routed through it, goodput following the ACKs that passed it) nor at a
// node that only overheard it. Where false, compare's progress and
// goodput rows show "–" (compare.Summary), and so does the report.
func (v Vantage) OwnNumbers() bool { return v != VantageRelay && v != VantageOverheard }

// Output is a per-connection output whose numbers depend on where the
// capture was taken: a verb with its figure, and the report's panel of
// the same series.
type Output uint8

const (
	OutSeq    Output = iota // seq: the time-sequence (Stevens) graph
	OutRTT                  // rtt: RTT samples of the data direction
	OutRate                 // tput: throughput and goodput over time
	OutWindow               // window: receive window and bytes in flight
	OutEvents               // retrans: retransmissions and other events
)

// Caveats are what a verb says about the vantage of its output for one
// connection and data direction, each sentence from this package's note
// and title functions: Notes as it prints them after "note: ", Warnings
// after "warning: ", Titles as the lines its figure's title adds. The
// report shows the same beside the panel of the same series.
type Caveats struct {
	Titles, Notes, Warnings []string
}

// Empty reports whether c says nothing.
func (c Caveats) Empty() bool { return len(c.Titles)+len(c.Notes)+len(c.Warnings) == 0 }

// Caveats returns what output o says about the vantage of v's connection
// in v's direction (docs/metrics.md#own-frames, #rtt, #bytes-in-flight,
// #compare), in the order the verb prints it:
//
//   - OutSeq: OverheardNote, RelayNote; the figure VantageTitle;
//   - OutEvents: OverheardNote, RelayNote, RetransNote; the figure
//     RetransTitle;
//   - OutRTT: OverheardNote, LegNote, AirNote; the figure RTTTitle;
//   - OutRate: OverheardNote, RelayNote, SentNote; the figure
//     VantageTitle;
//   - OutWindow: OverheardNote, InFlightNote, AirFlightNote, the warning
//     FlightOverWindow; the figure the same in a line, InFlightTitle.
//
// The split-TCP PEP's note (pep.DetectIn's) is package pep's: the seq, rtt,
// tput and window verbs print it after these. OutWindow's warning needs
// v's window points (FlightOverWindow).
func (v *View) Caveats(o Output) Caveats {
	r, d := v.Conn, v.Dir
	var c Caveats
	add := func(to *[]string, s ...string) {
		for _, x := range s {
			if x != "" {
				*to = append(*to, x)
			}
		}
	}
	add(&c.Notes, OverheardNote(r, d))
	switch o {
	case OutSeq:
		add(&c.Notes, RelayNote(r, d))
		add(&c.Titles, VantageTitle(r, d))
	case OutEvents:
		add(&c.Notes, RelayNote(r, d), RetransNote(r, d))
		add(&c.Titles, RetransTitle(r, d))
	case OutRTT:
		add(&c.Notes, LegNote(r, d), AirNote(r, d))
		add(&c.Titles, RTTTitle(r, d))
	case OutRate:
		add(&c.Notes, RelayNote(r, d), SentNote(r, d))
		add(&c.Titles, VantageTitle(r, d))
	case OutWindow:
		add(&c.Notes, InFlightNote(r, d), AirFlightNote(r, d))
		n, worst := v.flightOver() // one pass over the window points for both
		add(&c.Warnings, v.flightOverWindow(n, worst))
		add(&c.Titles, flightOverWindowTitle(n, worst), InFlightTitle(r, d))
	}
	return c
}
