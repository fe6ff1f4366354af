package tcpanalysis

import (
	"strconv"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
)

// Class is an event class (docs/metrics.md#events).
type Class uint8

// Event classes. Each is defined in docs/metrics.md#events.
const (
	RTO         Class = iota // retransmission not preceded by fast-retransmit signals, in a capture that shows the receiver's packets
	Fast                     // retransmission after ≥ 3 duplicate ACKs or a SACK that reveals the loss
	Spurious                 // retransmission of bytes all already acknowledged
	OutOfOrder               // never-seen bytes below the highest byte, within one RTT of the gap opening
	LostSegment              // a gap: the segment starts above the highest byte seen (previous segment not captured)
	DupAck                   // duplicate ACK
	ZeroWindow               // receive window 0 advertised
	ZWProbe                  // zero-window probe
	KeepAlive                // keep-alive (SND.NXT − 1, 0 or 1 byte)
	WindowFull               // segment fills the receiver's advertised window exactly
	// ICMPFragNeeded: an ICMP "fragmentation needed" / ICMPv6 "packet too
	// big" quoting a segment of this direction (path-MTU discovery,
	// RFC 1191, RFC 8201); Len holds the next-hop MTU in bytes.
	ICMPFragNeeded
	// ICMPUnreachable: an ICMP destination unreachable quoting a segment
	// of this direction.
	ICMPUnreachable
	// ICMPTimeExceeded: TTL / hop limit exceeded in transit for a segment
	// of this direction (a routing loop).
	ICMPTimeExceeded
	// PMTU: a retransmission of bytes first sent in a segment that an
	// ICMP "fragmentation needed" / ICMPv6 "packet too big" (captured
	// before it) quoted as too big for the path: path-MTU discovery
	// resends them at the smaller size without waiting for the timer or
	// duplicate ACKs (RFC 1191 §6.5, RFC 8201; Linux tcp_simple_retransmit).
	PMTU
	// RetxUnknown: a retransmission that no duplicate ACK or SACK
	// preceded in the capture, where the capture cannot show that none
	// came: it holds no packet of the receiver before it, or the
	// retransmission echoes a TSval of the receiver the capture never saw
	// (Evidence says which). rto or fast: unknown.
	RetxUnknown
	numClasses
)

var classNames = [numClasses]string{"rto", "fast", "spurious", "out_of_order", "lost_segment", "dup_ack", "zero_window", "zw_probe", "keepalive", "window_full", "icmp_frag_needed", "icmp_unreachable", "icmp_time_exceeded", "pmtu", "unknown"}

// String returns the class name used in every output ("unknown" is
// RetxUnknown's; a value out of range is "class(N)").
func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// classOrder is the output order: the retransmission classes first.
var classOrder = [numClasses]Class{RTO, Fast, Spurious, PMTU, RetxUnknown, OutOfOrder, LostSegment, DupAck, ZeroWindow, ZWProbe, KeepAlive, WindowFull, ICMPFragNeeded, ICMPUnreachable, ICMPTimeExceeded}

// Classes returns every class in output order (the retransmission classes
// rto, fast, spurious, pmtu, unknown first, then the others).
func Classes() []Class {
	out := classOrder
	return out[:]
}

// IsRetransmission reports whether c counts as a retransmission.
func (c Class) IsRetransmission() bool {
	return c == RTO || c == Fast || c == Spurious || c == PMTU || c == RetxUnknown
}

// Event is one classified packet. Dir is the direction of the data the
// event is about: a dup ACK or zero window sent by b about a's data has Dir
// AtoB.
type Event struct {
	Time  capture.Timestamp
	Frame int64
	Dir   flows.Direction
	Class Class
	Seq   int64 // relative sequence offset of the segment (data events) or the ACK (ACK events)
	Len   int   // payload bytes (data events)
	// Original is the frame number of the earlier transmission a
	// retransmission repeats (0 if not captured).
	Original int64
	// Evidence is what decided the class (docs/metrics.md#evidence).
	Evidence Evidence
}

// Evidence names what in the capture decided a verdict: an event's class
// or a handshake RTT's pairing (docs/metrics.md#evidence).
type Evidence uint8

// Evidence kinds. EvNone is the zero value: the class needs no deciding
// (a duplicate ACK, a zero window).
const (
	EvNone Evidence = iota
	// EvAcked: the bytes were all acknowledged before the retransmission
	// was captured (a receiver-side view; Wireshark's rule).
	EvAcked
	// EvDupAcks: ≥ 3 duplicate ACKs preceded it (RFC 5681 §3.2).
	EvDupAcks
	// EvSACK: a SACK block above the cumulative ACK revealed the hole
	// (RFC 6675).
	EvSACK
	// EvNoSignal: no duplicate ACK or SACK preceded it, in a capture that
	// shows the receiver's packets around it: the retransmission timer
	// (RFC 6298).
	EvNoSignal
	// EvTSecr: the first ACK covering the retransmission echoes a TSval
	// older than the retransmission's: the original arrived (Eifel,
	// RFC 3522).
	EvTSecr
	// EvDSACK: the receiver reported the bytes twice in a D-SACK block
	// (RFC 2883, RFC 3708).
	EvDSACK
	// EvTSval: the segment's TSval (RFC 7323) is older than one already
	// sent in its direction (a delayed original), or fresh (a real
	// retransmission of bytes the capture never saw).
	EvTSval
	// EvOneRTT: never-seen bytes below the highest byte arrived within one
	// RTT of the gap opening (reordering), or later (a retransmission whose
	// first copy the capture missed); no TSval to tell.
	EvOneRTT
	// EvRepeat: the hole was already fast-retransmitted since the ACK last
	// moved: only the retransmission timer sends it again (RFC 6675 §5.1).
	EvRepeat
	// EvSingle: the handshake segment was sent once: its answer is
	// unambiguous.
	EvSingle
	// EvAmbiguous: the SYN or SYN-ACK was sent more than once and no
	// TSecr says which copy was answered: no RTT sample (Karn, RFC 6298 §3).
	EvAmbiguous
	// EvZeroWindow: sent while the peer advertised a zero window
	// (RFC 9293 §3.8.6.1).
	EvZeroWindow
	// EvSeqNxtMinus1: 0 or 1 byte at SND.NXT − 1 with everything
	// acknowledged and the window open (RFC 9293 §3.8.4).
	EvSeqNxtMinus1
	// EvICMPFragNeeded: an ICMP fragmentation-needed / packet-too-big
	// quoting the segment that first carried these bytes was captured
	// before the retransmission (RFC 1191, RFC 8201).
	EvICMPFragNeeded
	// EvOptions: the SYN was sent more than once and only one copy offered
	// the options (window scale, SACK-permitted, timestamps) the SYN-ACK
	// carries, which it may carry only in answer to a SYN that offered
	// them (RFC 7323 §2.2, RFC 2018 §2): that copy was answered.
	EvOptions
	// EvAckedOverheard: the bytes were all acknowledged before the
	// retransmission, by an ACK the capturing 802.11 node overheard on
	// its way to another node (docs/metrics.md#own-frames): the receiver
	// held them, though the ACK had not reached this node.
	EvAckedOverheard
	// EvNoReverse: class RetxUnknown: no packet of the receiver was
	// captured before the retransmission (a one-way capture, asymmetric
	// routing, a capture begun in mid-connection), so the absence of
	// duplicate ACKs and SACKs shows nothing.
	EvNoReverse
	// EvReverseMissed: class RetxUnknown: the retransmission's TSecr
	// echoes a TSval of the receiver newer than any the capture holds
	// (RFC 7323 §4.3): the sender heard from the receiver after the
	// capture last did, and duplicate ACKs or SACKs may be among what the
	// capture missed.
	EvReverseMissed
	numEvidence
)

var evidenceNames = [numEvidence]string{"", "acked", "dup_acks", "sack", "no_signal", "tsecr", "dsack", "tsval", "one_rtt", "repeat", "single", "ambiguous", "zero_window", "snd_nxt_minus_1", "icmp_frag_needed", "options", "acked_overheard", "no_reverse", "reverse_missed"}

// String returns the evidence name used in every output ("" for EvNone).
func (e Evidence) String() string {
	if e < numEvidence {
		return evidenceNames[e]
	}
	return "unknown"
}

// Method is how an RTT sample was taken (docs/metrics.md#rtt).
type Method uint8

// RTT methods.
const (
	// MethodACK: data segment to the ACK that first covers exactly its end,
	// with Karn's rule (RFC 6298 §3), as tcptrace does.
	MethodACK Method = iota
	// MethodTS: TSval first seen to its first echo in TSecr (RFC 7323), as
	// pping does.
	MethodTS
	// MethodHandshake: SYN to SYN-ACK (Dir AtoB) and SYN-ACK to the ACK
	// that completes the handshake (Dir BtoA).
	MethodHandshake
)

func (m Method) String() string {
	return [...]string{"ack", "ts", "handshake"}[m]
}

// RTTSample is one round-trip time measured at the capture point. Dir is
// the direction of the data (or TSval, or SYN) being timed; Time and Frame
// are those of the packet that closes the sample.
type RTTSample struct {
	Time   capture.Timestamp
	Frame  int64
	Dir    flows.Direction
	Method Method
	RTT    time.Duration
}

// ZeroWindowPeriod is a time during which the receiver of Dir's data
// advertised a zero window: from the first zero-window ACK to the first ACK
// that reopened it (End 0 if the capture ended first).
type ZeroWindowPeriod struct {
	Dir                  flows.Direction
	Start, End           capture.Timestamp
	StartFrame, EndFrame int64
}

// WindowPoint samples the sender's view of direction Dir's window at a
// packet: the receive window the peer last advertised, and bytes in flight.
type WindowPoint struct {
	Time  capture.Timestamp
	Frame int64
	// Rwnd is the peer's advertised receive window in bytes, valid iff
	// RwndKnown (the window scale is known).
	Rwnd int64
	// InFlight is the highest sequence sent minus the highest ACK seen, as
	// tshark's tcp.analysis.bytes_in_flight; InFlightSACK subtracts the
	// bytes the peer SACKed above the ACK (the pipe of RFC 6675, without
	// loss marking). Bytes; valid iff an ACK was seen (FlightValid).
	InFlight, InFlightSACK int64
	// The two flags last, so that a point takes 48 bytes, not 56.
	RwndKnown, FlightValid bool
}
