package flows

import (
	"time"

	"github.com/tcpviz/tcpviz/capture"
)

// Folding copies of one packet (docs/metrics.md#folded-duplicates). A
// packet is a candidate copy of one seen before in the same direction of
// the same connection when everything the sending TCP put in it is
// identical: sequence and acknowledgment numbers, payload length, flags,
// window, TCP checksum, TSval and IPv4 identification. Being identical is
// not enough: genuine duplicate ACKs are byte-identical too. A candidate is
// folded only on positive evidence that the capture saw one packet twice
// (FoldReason): a nonzero IPv4 identification repeated, the 802.11 Retry
// bit on a frame with the same transmitter and sequence control, another
// pcapng interface, a relay's copy (a lower TTL within one round trip, or
// another 802.11 transmitter), or, for a segment that occupies sequence
// space (payload, SYN, FIN), an identical timestamp in a capture whose own
// timestamps show a resolution finer than 10 µs.
const (
	dedupSlots = 16
	// relaySlots is how many of a direction's 802.11 packets a ring also
	// remembers (dedupRing.air): on a MANET
	// node's own capture the next hop's forwarded copy of a segment is
	// overheard after the node's queue, the relay's queue and contention
	// have passed, 0.18–3 s later at 2 Mbit/s (ns-3 AODV), hundreds of
	// packets after the original and far out of the 16 slots.
	relaySlots = 512
	// foldWindow bounds how far apart a copy may be from its original.
	foldWindow = 10 * time.Second
	// ifaceWindow bounds copies on two interfaces where no IP ID tells,
	// and is the least relay window (relayWindow).
	ifaceWindow = 2 * time.Millisecond
	// synRelayWindow is the relay window of a SYN or SYN-ACK before the
	// handshake has given a round-trip time: no TCP resends a SYN by timer
	// sooner than its initial RTO (1 s, RFC 6298 §2.1), nor any segment
	// sooner than its least RTO (200 ms in Linux, TCP_RTO_MIN).
	synRelayWindow = 200 * time.Millisecond
	// fineTick: a capture that stamped some packet off a multiple of this
	// has shown a timestamp resolution fine enough that two packets with
	// one timestamp are one packet (docs/metrics.md#folded-duplicates).
	fineTick = 10 * time.Microsecond
)

// FoldReason is the evidence that decided that a packet is a copy of one
// already counted (Conn.FoldedBy).
type FoldReason uint8

// Fold reasons, in the order they are tested.
const (
	FoldIPID      FoldReason = iota // the same nonzero IPv4 identification (RFC 6864: unique per packet in flight)
	FoldRetry                       // the 802.11 Retry bit on the same transmitter and sequence control: a MAC-layer retransmission of that frame
	FoldIface                       // the same packet on another pcapng interface within 2 ms
	FoldRelay                       // a relay's copy: lower TTL / hop limit within one round trip, or another 802.11 transmitter
	FoldTimestamp                   // a segment with payload, SYN or FIN at an identical timestamp in a capture shown to resolve < 10 µs
	NumFoldReasons
)

var foldNames = [NumFoldReasons]string{"ip_id", "wifi_retry", "interface", "relay", "timestamp"}

// String returns the reason's name as used in outputs.
func (r FoldReason) String() string {
	if r < NumFoldReasons {
		return foldNames[r]
	}
	return "unknown"
}

// dedupEntry is one remembered packet, in 24 bytes. Whether its IPv4
// identification identifies it is not kept: an entry whose fingerprint
// equals a packet's has that packet's identification (and IP version, being
// of the same connection).
type dedupEntry struct {
	fp     uint64
	t      capture.Timestamp
	ta     uint32 // taKey of the 802.11 transmitter address; 0 off 802.11
	seqctl uint16 // 802.11 sequence control; valid iff ta != 0
	iface  uint8  // ifaceKey of the pcapng interface
	ttl    uint8
}

// taKey is a 32-bit digest of s's 802.11 transmitter address, never 0, or
// 0 off 802.11. Two addresses share a digest with a chance of 2^-32.
func taKey(s *capture.Segment) uint32 {
	if !s.WiFi {
		return 0
	}
	a := s.TA
	x := uint64(a[0])<<40 | uint64(a[1])<<32 | uint64(a[2])<<24 | uint64(a[3])<<16 | uint64(a[4])<<8 | uint64(a[5])
	x = (x ^ x>>29) * 0xbf58476d1ce4e5b9
	x ^= x >> 32
	if k := uint32(x); k != 0 {
		return k
	}
	return 1
}

// ifaceKey is a pcapng interface index in one byte: indexes past 255
// share 255, so two of them never count as different interfaces (no fold
// on that evidence alone).
func ifaceKey(i int) uint8 { return uint8(min(max(i, 0), 255)) }

// dedupRing remembers the last dedupSlots packets of one direction, in one
// object of 392 bytes: the entries inline, without a pointer to chase to a
// separate array. How many were added and their bloom bits are in the
// direction's Half (foldN, foldBloom), which the packet's processing reads
// anyway: most packets are told apart and added touching only the line of
// the entry they overwrite (docs/performance.md, session 14). Rings are
// recycled (Tracker.dropFold, newRing), so a connection's costs no
// allocation.
type dedupRing struct {
	// air remembers, beyond the ring, the last relaySlots 802.11 packets
	// (nil until the first): where each fingerprint was last put (at), in
	// a circular buffer. A segment that occupies sequence space found
	// there is folded on the ring's evidence; a pure ACK only on its IPv4
	// identification, as genuine duplicate ACKs are byte-identical but
	// for it.
	air *airMemory
	e   [dedupSlots]dedupEntry // e[:min(foldN, dedupSlots)] are valid
}

// held is how many entries of h's ring are valid.
func (h *Half) held() int { return int(min(h.foldN, dedupSlots)) }

// airMemory is dedupRing.air.
type airMemory struct {
	e  []dedupEntry
	n  int
	at map[uint64]int32 // fingerprint → index in e of its latest entry
}

func (m *airMemory) add(e dedupEntry) {
	if len(m.e) < relaySlots {
		m.e = append(m.e, e)
		m.at[e.fp] = int32(len(m.e) - 1)
	} else {
		i := m.n % relaySlots
		if old := m.e[i].fp; m.at[old] == int32(i) {
			delete(m.at, old)
		}
		m.e[i] = e
		m.at[e.fp] = int32(i)
	}
	m.n++
}

func bloomBit(fp uint64) (int, uint64) { return int(fp >> 62), 1 << (fp >> 56 & 63) }

func fingerprint(s *capture.Segment) uint64 {
	// Three words of the fields the sender's TCP/IP stack chose, mixed with
	// multiply-xorshift steps (after splitmix64's finaliser), written in
	// few enough terms for the compiler to inline the function.
	h := (uint64(s.Seq)<<32 | uint64(s.Ack) ^ 0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>29 ^ uint64(uint32(s.PayloadLen))<<32 ^ uint64(s.Flags)<<16 ^ uint64(s.Window)) * 0x94d049bb133111eb
	h = (h ^ h>>32 ^ uint64(s.Checksum)<<48 ^ uint64(s.IPID)<<32 ^ uint64(s.Opts.TSval)) * 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

// mayHold reports whether h's ring may hold a packet s, whose fingerprint
// is fp, copies: false for most packets, told by the bloom bits alone
// without seenFP's call (a nil ring holds nothing).
func (h *Half) mayHold(s *capture.Segment, fp uint64) bool {
	if h.dedup == nil {
		return false
	}
	w, b := bloomBit(fp)
	return h.foldBloom[w]&b != 0 || s.WiFi && h.dedup.air != nil
}

// seenFP reports whether s, whose fingerprint is fp, copies a packet in
// the ring, and the evidence. fine reports that the capture has shown a
// timestamp resolution finer than fineTick; idVaries that the IPv4
// identification of this direction was seen to change between packets;
// c is the packet's connection (for its relay window, Conn.relayWindow).
func (h *Half) seenFP(s *capture.Segment, fp uint64, fine, idVaries bool, c *Conn) (FoldReason, bool) {
	r := h.dedup
	if r == nil {
		return 0, false
	}
	inRing := true
	if w, b := bloomBit(fp); h.foldBloom[w]&b == 0 {
		if r.air == nil || !s.WiFi {
			return 0, false
		}
		inRing = false // only air may hold it
	}
	// The identification tells packets apart if it is nonzero and either
	// the datagram may be fragmented (RFC 791: unique per datagram) or
	// the sender's IDs are seen to change (RFC 6864: an atomic, DF,
	// datagram's ID may be a constant).
	ipid := !s.IPv6 && s.IPID != 0 && (!s.DF || idVaries)
	ta := taKey(s)
	// Two pure ACKs may be sent within a microsecond (duplicate ACKs for a
	// batch of segments, RFC 5681 §4.2); a segment that occupies sequence
	// space is not sent twice so soon: only its timestamp may tell.
	stampTells := s.PayloadLen > 0 || s.Flags&(capture.SYN|capture.FIN) != 0
	if inRing {
		es := r.e[:h.held()]
		for i := range es {
			if es[i].fp != fp {
				continue
			}
			if why, ok := match(&es[i], s, ipid, ta, fine, stampTells, c); ok {
				return why, true
			}
		}
	}
	if r.air != nil && s.WiFi {
		if i, ok := r.air.at[fp]; ok {
			if stampTells {
				return match(&r.air.e[i], s, ipid, ta, fine, stampTells, c)
			}
			// A pure ACK that far back is folded on its IPv4
			// identification alone: genuine duplicate ACKs are
			// byte-identical but for it, and another transmitter may
			// be a route change between two of them.
			if e := &r.air.e[i]; ipid && max(s.Time.Sub(e.t), e.t.Sub(s.Time)) <= foldWindow {
				return FoldIPID, true
			}
		}
	}
	return 0, false
}

// match reports whether s copies the remembered packet e of the same
// fingerprint, and the evidence (seenFP's rules, in FoldReason's order).
func match(e *dedupEntry, s *capture.Segment, ipid bool, ta uint32, fine, stampTells bool, c *Conn) (FoldReason, bool) {
	dt := s.Time.Sub(e.t)
	if dt < 0 {
		dt = -dt
	}
	switch {
	case dt > foldWindow:
	case ipid:
		return FoldIPID, true
	case s.Retry && ta != 0 && e.ta == ta && e.seqctl == s.SeqCtl:
		// A MAC retry repeats the frame of the same transmitter with
		// the same sequence number and fragment number; Retry on
		// another sequence number is a new MSDU whose first attempt
		// the monitor missed (a TCP retransmission, or a new dup ACK).
		return FoldRetry, true
	case e.iface != ifaceKey(s.Iface) && dt <= ifaceWindow:
		return FoldIface, true
	case ta != 0 && e.ta != 0 && e.ta != ta:
		// Another 802.11 transmitter sent the same packet: a relay.
		return FoldRelay, true
	case s.TTL < e.ttl && fine && dt <= c.relayWindow(s):
		// The same packet again, one or more hops on, within one round
		// trip in a capture that resolves time finely: a router seen
		// on both sides. TCP resends nothing sooner than a round trip
		// (an RTO exceeds the RTT; a fast retransmission waits for
		// ACKs). (At coarse resolution a lower TTL may as well be a
		// route change between genuine duplicate ACKs.)
		return FoldRelay, true
	case dt == 0 && fine && stampTells:
		return FoldTimestamp, true
	}
	return 0, false
}

// addAir gives e, of the 802.11 segment s, its transmitter and remembers
// it in the ring's air memory (Tracker.AddHashed adds every packet to its
// direction's ring).
//
//go:noinline
func (r *dedupRing) addAir(e *dedupEntry, s *capture.Segment) {
	e.ta = taKey(s)
	if r.air == nil {
		r.air = &airMemory{at: map[uint64]int32{}}
	}
	r.air.add(*e)
}

// rebuildBloom sets the bloom bits of h's ring's entries only: after a
// full turn, the overwritten fingerprints are forgotten.
//
//go:noinline
func (h *Half) rebuildBloom() {
	h.foldBloom = [4]uint64{}
	r := h.dedup
	for i := range r.e { // not range over the entries: that copies each
		w, b := bloomBit(r.e[i].fp)
		h.foldBloom[w] |= b
	}
}
