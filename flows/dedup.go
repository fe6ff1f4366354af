package flows

import (
	"time"

	"github.com/tcpviz/tcpviz/capture"
)

// Folding copies of one packet. A packet is a copy of one seen before in the
// same direction of the same connection when everything the sending TCP put
// in it is identical: IPv4 identification, sequence and acknowledgment
// numbers, payload length, flags, window, TCP checksum and TSval. TTL and
// link-layer fields may differ (a relay decrements the TTL, 802.11 sets the
// Retry bit). A real retransmission differs: its IP ID is new (and its TSval
// usually too). Where the IP ID cannot tell (IPv6, or IPv4 ID 0), only an
// 802.11 retry, a copy on another pcapng interface or an identical timestamp
// is folded, so a burst of genuine duplicate ACKs is never folded.
const (
	dedupSlots = 32
	// foldWindow bounds how far apart a copy may be from its original.
	foldWindow = 2 * time.Second
	// ifaceWindow bounds copies on two interfaces where no IP ID tells.
	ifaceWindow = 2 * time.Millisecond
)

type dedupEntry struct {
	fp    uint64
	t     capture.Timestamp
	iface int
	ipid  bool // the IP ID identifies the packet
}

// dedupRing remembers the fingerprints of the last dedupSlots packets of one
// direction.
type dedupRing struct {
	e [dedupSlots]dedupEntry
	n int // total added
}

func fingerprint(s *capture.Segment) uint64 {
	// FNV-1a over the fields the sender's TCP/IP stack chose.
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		for i := 0; i < 8; i++ {
			h ^= v & 0xff
			h *= 1099511628211
			v >>= 8
		}
	}
	mix(uint64(s.Seq)<<32 | uint64(s.Ack))
	mix(uint64(s.PayloadLen)<<32 | uint64(s.Flags)<<16 | uint64(s.Window))
	mix(uint64(s.Checksum)<<48 | uint64(s.IPID)<<32 | uint64(s.Opts.TSval))
	return h
}

func (r *dedupRing) seen(s *capture.Segment) bool {
	if r == nil {
		return false
	}
	fp := fingerprint(s)
	n := min(r.n, dedupSlots)
	for i := 0; i < n; i++ {
		e := &r.e[i]
		if e.fp != fp {
			continue
		}
		dt := s.Time.Sub(e.t)
		if dt < 0 {
			dt = -dt
		}
		switch {
		case dt > foldWindow:
		case e.ipid && s.IPID != 0 && !s.IPv6:
			return true
		case s.Retry:
			return true
		case s.Iface != e.iface && dt <= ifaceWindow:
			return true
		case dt == 0:
			return true
		}
	}
	return false
}

func (r *dedupRing) add(s *capture.Segment) {
	r.e[r.n%dedupSlots] = dedupEntry{fp: fingerprint(s), t: s.Time, iface: s.Iface, ipid: !s.IPv6 && s.IPID != 0}
	r.n++
}
