package pcaptest

import (
	"net/netip"
	"sort"
	"time"
)

// SimOptions describe a bulk transfer for Simulate: a client sends Segments
// segments of MSS bytes to a server over a path with a fixed one-way delay,
// and the capture point sits at the client (the sender).
type SimOptions struct {
	Client, Server netip.AddrPort
	Start          time.Time
	OneWay         time.Duration // one-way delay; the RTT is twice this
	MSS            int           // payload bytes per segment; default 1448
	Segments       int           // number of data segments to send
	InitCwnd       int           // initial congestion window in segments; default 10
	// Lose lists transmissions the path drops: segment index (0-based) →
	// which transmissions of it are lost (1 = the first, 2 = the first
	// retransmission, …).
	Lose map[int][]int
	// DelAck is the receiver's delayed-ACK timeout; it ACKs every second
	// full segment at once and out-of-order data at once (RFC 9293 §3.8.6.3).
	// 0 means 40 ms.
	DelAck time.Duration
	// RTO is the retransmission timeout before backoff; 0 means 1 s
	// (RFC 6298 §2.4).
	RTO time.Duration
	// SerDelay is the sender's spacing between back-to-back segments;
	// 0 means 1 ms.
	SerDelay time.Duration
	// ServerHops is the number of routers between the server and the
	// capture at the client: the server's packets arrive with TTL 64 −
	// ServerHops (the client's leave with 64). 0: the server is on the
	// client's link.
	ServerHops int
}

// Simulate runs a small, deterministic model of a SACK TCP sender (slow
// start, one fast retransmit per recovery after three duplicate ACKs, an RTO
// timer that is not restarted by that retransmission, backoff; RFC 5681 and
// RFC 6298, simplified) and a delayed-ACK receiver,
// and returns the handshake, data, ACKs and FIN exchange in the order a
// capture at the client sees them. The result is for tests and demos whose
// RTT, losses and retransmissions are known by construction.
func Simulate(o SimOptions) []Segment {
	if o.MSS == 0 {
		o.MSS = 1448
	}
	if o.InitCwnd == 0 {
		o.InitCwnd = 10
	}
	if o.DelAck == 0 {
		o.DelAck = 40 * time.Millisecond
	}
	if o.RTO == 0 {
		o.RTO = time.Second
	}
	if o.SerDelay == 0 {
		o.SerDelay = time.Millisecond
	}
	c := NewConn(o.Client, o.Server, 1000, 5000)
	c.SynOpts(C2S, SynOptions{MSS: uint16(o.MSS), WS: true, WScale: 7, SACKPerm: true, TS: true})
	c.SynOpts(S2C, SynOptions{MSS: uint16(o.MSS), WS: true, WScale: 7, SACKPerm: true, TS: true})
	rtt := 2 * o.OneWay
	out := c.Handshake(o.Start, rtt)
	const win = 2048 // × 128 = 256 KiB advertised by the server

	type arrival struct {
		t     time.Time
		seg   int
		tsval uint32
	}
	var (
		now        = o.Start.Add(rtt)
		attempts   = make([]int, o.Segments)
		sent       = 0 // highest segment index sent + 1
		una        = 0 // first unacknowledged segment
		cwnd       = float64(o.InitCwnd)
		ssthresh   = 1e9
		dupacks    = 0
		inRecovery = false
		recover    = 0
		rtoAt      time.Time
		backoff    = 1
		rcvd       = make([]bool, o.Segments)
		rcvNxt     = 0
		pending    []arrival // data in flight to the server
		acks       []Segment // ACKs in flight to the client, by arrival time
		unacked    = 0       // full segments received but not yet ACKed
		delackAt   time.Time
	)
	sacked := func() [][2]uint32 { // SACK blocks the receiver reports
		var b [][2]uint32
		for i := rcvNxt; i < o.Segments; i++ {
			if rcvd[i] && (i == 0 || !rcvd[i-1] || i == rcvNxt) {
				j := i
				for j < o.Segments && rcvd[j] {
					j++
				}
				b = append(b, [2]uint32{uint32(1 + i*o.MSS), uint32(1 + j*o.MSS)})
				i = j
			}
		}
		if len(b) > 3 {
			b = b[:3]
		}
		return b
	}
	send := func(i int) {
		attempts[i]++
		out = append(out, Segment{})
		s := c.DataAt(now, C2S, uint32(1+i*o.MSS), o.MSS)
		out[len(out)-1] = s
		lost := false
		for _, a := range o.Lose[i] {
			if a == attempts[i] {
				lost = true
			}
		}
		if !lost {
			pending = append(pending, arrival{now.Add(o.OneWay), i, s.TSval})
		}
		if rtoAt.IsZero() {
			rtoAt = now.Add(o.RTO * time.Duration(backoff))
		}
		now = now.Add(o.SerDelay)
	}
	var echo uint32 // TSval the receiver echoes next (RFC 7323 §4.3: the oldest unacknowledged)
	serverAck := func(t time.Time) {
		s := c.Ack(t.Add(o.OneWay), S2C, uint32(1+rcvNxt*o.MSS), win, sacked()...)
		s.TSecr = echo
		acks = append(acks, s)
		unacked = 0
		delackAt = time.Time{}
	}
	for steps := 0; una < o.Segments && steps < 1_000_000; steps++ {
		// Send what the window allows.
		for sent < o.Segments && float64(sent-una) < cwnd {
			send(sent)
			sent++
		}
		// Next event: a data arrival at the server, an ACK at the client,
		// the delayed-ACK timer or the RTO.
		next := rtoAt
		kind := 0
		if len(pending) > 0 && pending[0].t.Before(next) {
			next, kind = pending[0].t, 1
		}
		if !delackAt.IsZero() && delackAt.Before(next) {
			next, kind = delackAt, 2
		}
		if len(acks) > 0 && acks[0].T.Before(next) {
			next, kind = acks[0].T, 3
		}
		if next.After(now) {
			now = next
		}
		switch kind {
		case 0: // RTO: retransmit the first unacknowledged segment
			ssthresh = max(cwnd/2, 2)
			cwnd = 1
			backoff *= 2
			rtoAt = time.Time{}
			inRecovery = false
			dupacks = 0
			send(una)
		case 1:
			a := pending[0]
			pending = pending[1:]
			rcvd[a.seg] = true
			inOrder := a.seg == rcvNxt
			if unacked == 0 || !inOrder {
				echo = a.tsval
			}
			for rcvNxt < o.Segments && rcvd[rcvNxt] {
				rcvNxt++
			}
			unacked++
			if !inOrder || unacked >= 2 || len(sacked()) > 0 {
				serverAck(a.t)
			} else if delackAt.IsZero() {
				delackAt = a.t.Add(o.DelAck)
			}
		case 2:
			serverAck(delackAt)
		case 3:
			s := acks[0]
			acks = acks[1:]
			out = append(out, s)
			ackSeg := (int(s.Ack-c.ISN[C2S]) - 1) / o.MSS
			if ackSeg > una {
				una = ackSeg
				dupacks = 0
				backoff = 1
				rtoAt = time.Time{}
				if una < sent {
					rtoAt = now.Add(o.RTO)
				}
				if inRecovery {
					if una >= recover {
						inRecovery = false
						cwnd = ssthresh
					}
				} else if cwnd < ssthresh {
					cwnd++
				} else {
					cwnd += 1 / cwnd
				}
			} else if una < sent {
				dupacks++
				if dupacks == 3 && !inRecovery {
					inRecovery = true
					recover = sent
					ssthresh = max(cwnd/2, 2)
					cwnd = ssthresh + 3
					send(una)
				}
			}
		}
		sort.SliceStable(acks, func(i, j int) bool { return acks[i].T.Before(acks[j].T) })
	}
	now = now.Add(o.SerDelay)
	out = append(out, c.Fin(now, C2S))
	c.ack[S2C] = c.next[C2S]
	out = append(out, c.Fin(now.Add(rtt), S2C))
	out = append(out, c.Ack(now.Add(rtt), C2S, c.Next(S2C), c.Window[C2S]))
	sort.SliceStable(out, func(i, j int) bool { return out[i].T.Before(out[j].T) })
	// The client echoes the TSval of the last server segment it has
	// received by then (RFC 7323 §4.3).
	var last uint32
	for i := range out {
		if out[i].Dir == S2C {
			last = out[i].TSval
			if o.ServerHops > 0 {
				out[i].TTL = uint8(64 - o.ServerHops)
			}
		} else if i > 0 && out[i].TS {
			out[i].TSecr = last
		}
	}
	return out
}

// DemoCaptures returns the synthetic captures the project ships in
// testdata/synthetic, by file name: a 600 ms-RTT (GEO satellite) bulk
// transfer seen at the sender, with one loss repaired by fast retransmit
// and one repaired only by an RTO.
func DemoCaptures() map[string][]Segment {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return map[string][]Segment{
		"geo-600ms-loss.pcap": Simulate(SimOptions{
			Client:   netip.MustParseAddrPort("10.0.0.1:40000"),
			Server:   netip.MustParseAddrPort("10.0.1.1:5201"),
			Start:    t0,
			OneWay:   300 * time.Millisecond,
			Segments: 400,
			Lose:     map[int][]int{45: {1}, 210: {1, 2}},
			// One router, as the testbed's client sees its server
			// without a PEP (TTL 63): 10.0.1.1 is not on 10.0.0.1's
			// link.
			ServerHops: 1,
		}),
	}
}
