package pcaptest

import (
	"net/netip"
	"time"
)

// Dir is the direction of a segment in a Conn.
type Dir uint8

const (
	C2S Dir = iota // client to server; the client sends the first SYN
	S2C            // server to client
)

// Reverse returns the other direction.
func (d Dir) Reverse() Dir { return 1 - d }

// SynOptions are the options one side puts on its SYN. The zero value
// carries no options.
type SynOptions struct {
	MSS      uint16 // bytes; 0 = absent
	WS       bool   // window scale option present
	WScale   uint8  // shift count; valid iff WS
	SACKPerm bool   // SACK-permitted present
	// TS offers timestamps. If both SYNs carry TS, every later segment
	// carries TSval/TSecr too (RFC 7323 §3.2).
	TS bool
}

// Segment is one TCP segment of a Conn with its capture time and direction.
// It embeds TCP, so seg.IP() builds its packet.
type Segment struct {
	T   time.Time
	Dir Dir
	TCP
}

// Conn scripts a TCP dialogue whose numbers are easy to check by hand.
// Relative sequence numbers count from the ISN as tshark shows them: the
// SYN is relative 0 and data byte 1 is ISN+1.
//
// Conn only computes header fields; it does not model delivery. The ACK
// number a side sends is the last one given to Ack (1 after Syn/Handshake),
// data segments piggyback it, and the TSecr a side sends is the last TSval
// the other side sent. IPv4 ids count up from 1 per direction, DF is set.
type Conn struct {
	Client, Server netip.AddrPort
	ISN            [2]uint32     // indexed by Dir
	Opts           [2]SynOptions // SYN options, indexed by Dir; set with SynOpts
	// Window is the raw window field each side sends, indexed by Dir.
	// NewConn sets 65535; Ack updates it.
	Window [2]uint16
	// TSBase is the TSval each side sends at the Conn's first segment;
	// TSval then grows by one per millisecond of capture time. NewConn sets
	// 1000 (client) and 5000 (server).
	TSBase [2]uint32

	next   [2]uint32 // next relative sequence number to send
	ack    [2]uint32 // relative ack number each side sends
	lastTS [2]uint32 // last TSval sent
	ipid   [2]uint16
	epoch  time.Time
	begun  bool
}

// NewConn returns a Conn between client and server (same address family)
// with the given initial sequence numbers, no SYN options, window 65535.
func NewConn(client, server netip.AddrPort, isnC, isnS uint32) *Conn {
	return &Conn{
		Client: client, Server: server,
		ISN:    [2]uint32{isnC, isnS},
		Window: [2]uint16{65535, 65535},
		TSBase: [2]uint32{1000, 5000},
	}
}

// SynOpts sets the options that side d puts on its SYN.
func (c *Conn) SynOpts(d Dir, o SynOptions) { c.Opts[d] = o }

// Next returns the relative sequence number of the next new byte side d
// sends: 1 after the handshake, 1+n after n bytes.
func (c *Conn) Next(d Dir) uint32 { return c.next[d] }

// Seq returns the absolute sequence number of relative number rel of side d.
func (c *Conn) Seq(d Dir, rel uint32) uint32 { return c.ISN[d] + rel }

// tsOn reports whether both SYNs offered timestamps.
func (c *Conn) tsOn() bool { return c.Opts[C2S].TS && c.Opts[S2C].TS }

// seg builds the common part of a segment from side d at time t.
func (c *Conn) seg(t time.Time, d Dir, flags Flags, relSeq uint32) Segment {
	if !c.begun {
		c.epoch, c.begun = t, true
	}
	src, dst := c.Client, c.Server
	if d == S2C {
		src, dst = dst, src
	}
	c.ipid[d]++
	s := Segment{T: t, Dir: d, TCP: TCP{
		Src: src, Dst: dst,
		Seq:    c.Seq(d, relSeq),
		Flags:  flags,
		Window: c.Window[d],
		IPID:   c.ipid[d],
		DF:     true,
	}}
	if flags&ACK != 0 {
		s.Ack = c.Seq(d.Reverse(), c.ack[d])
	}
	if c.tsOn() || (flags&SYN != 0 && c.Opts[d].TS) {
		s.TS = true
		s.TSval = c.TSBase[d] + uint32(t.Sub(c.epoch)/time.Millisecond)
		s.TSecr = c.lastTS[d.Reverse()]
		c.lastTS[d] = s.TSval
	}
	return s
}

// Syn returns the SYN (C2S) or SYN-ACK (S2C) at time t, with the side's
// SynOptions and sequence number ISN. A SYN-ACK acknowledges the SYN
// (relative ack 1). Calling it again yields an identical retransmission.
func (c *Conn) Syn(t time.Time, d Dir) Segment {
	flags := SYN
	if d == S2C {
		flags |= ACK
		c.ack[d] = 1
	}
	s := c.seg(t, d, flags, 0)
	o := c.Opts[d]
	s.MSS, s.WS, s.WScale, s.SACKPerm = o.MSS, o.WS, o.WScale, o.SACKPerm
	if d == C2S {
		s.TSecr = 0
	}
	c.next[d] = 1
	return s
}

// Handshake returns SYN at t0, SYN-ACK at t0+rtt and the client's ACK at
// t0+rtt: the times a capture at the client sees.
func (c *Conn) Handshake(t0 time.Time, rtt time.Duration) []Segment {
	return []Segment{
		c.Syn(t0, C2S),
		c.Syn(t0.Add(rtt), S2C),
		c.Ack(t0.Add(rtt), C2S, 1, c.Window[C2S]),
	}
}

// Data returns the next n new bytes from side d at time t (flags ACK|PSH)
// and advances Next(d) by n.
func (c *Conn) Data(t time.Time, d Dir, n int) Segment {
	return c.DataAt(t, d, c.next[d], n)
}

// DataAt returns n bytes from side d starting at relative sequence number
// relSeq (flags ACK|PSH): a retransmission if relSeq < Next(d). Next(d)
// moves to relSeq+n if that is beyond it.
func (c *Conn) DataAt(t time.Time, d Dir, relSeq uint32, n int) Segment {
	s := c.seg(t, d, ACK|PSH, relSeq)
	s.PayloadLen = n
	if end := relSeq + uint32(n); int32(end-c.next[d]) > 0 {
		c.next[d] = end
	}
	return s
}

// Ack returns a pure ACK from side d at time t acknowledging relative
// number relAck of the other side and advertising window (raw field; 0 is
// a zero window). sack are SACK blocks as relative [left, right) edges.
// Later segments from d carry the same ack number and window.
func (c *Conn) Ack(t time.Time, d Dir, relAck uint32, window uint16, sack ...[2]uint32) Segment {
	c.ack[d] = relAck
	c.Window[d] = window
	s := c.seg(t, d, ACK, c.next[d])
	for _, b := range sack {
		o := d.Reverse()
		s.SACK = append(s.SACK, [2]uint32{c.Seq(o, b[0]), c.Seq(o, b[1])})
	}
	return s
}

// Fin returns FIN|ACK from side d at time t at Next(d), and advances
// Next(d) by one.
func (c *Conn) Fin(t time.Time, d Dir) Segment {
	s := c.seg(t, d, FIN|ACK, c.next[d])
	c.next[d]++
	return s
}

// Rst returns RST|ACK from side d at time t at Next(d).
func (c *Conn) Rst(t time.Time, d Dir) Segment {
	return c.seg(t, d, RST|ACK, c.next[d])
}
