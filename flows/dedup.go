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
	foldWindow = 10 * time.Second
	// ifaceWindow bounds copies on two interfaces where no IP ID tells.
	ifaceWindow = 2 * time.Millisecond
)

// dedupEntry is 16 bytes: the fingerprint's low byte is replaced by the
// interface index (7 bits) and whether the IP ID identifies the packet.
type dedupEntry struct {
	fp uint64
	t  capture.Timestamp
}

const (
	fpMeta = 0xff
	fpIPID = 0x80
)

func entryMeta(s *capture.Segment, full uint64) uint64 {
	m := uint64(s.Iface) & 0x7f
	if !s.IPv6 && s.IPID != 0 {
		m |= fpIPID
	}
	return full&^fpMeta | m
}

// dedupRing remembers the fingerprints of the last dedupSlots packets of one
// direction. It grows to dedupSlots entries, so a short connection costs
// only what it uses.
type dedupRing struct {
	e []dedupEntry
	n int // total added
}

func fingerprint(s *capture.Segment) uint64 {
	// Three words of the fields the sender's TCP/IP stack chose, mixed with
	// multiply-xorshift steps (after splitmix64's finaliser).
	a := uint64(s.Seq)<<32 | uint64(s.Ack)
	b := uint64(uint32(s.PayloadLen))<<32 | uint64(s.Flags)<<16 | uint64(s.Window)
	c := uint64(s.Checksum)<<48 | uint64(s.IPID)<<32 | uint64(s.Opts.TSval)
	// Two multiply-fold rounds; collisions only cost a missed or wrong
	// fold if all 56 compared bits agree within the fold window.
	h := (a ^ 0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>29 ^ b) * 0x94d049bb133111eb
	h = (h ^ h>>32 ^ c) * 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

// seenFP reports whether s, whose fingerprint is full, copies a packet in the ring.
func (r *dedupRing) seenFP(s *capture.Segment, full uint64) bool {
	if r == nil {
		return false
	}
	fp := full &^ fpMeta
	iface := uint64(s.Iface) & 0x7f
	for i := range r.e {
		e := &r.e[i]
		if e.fp&^fpMeta != fp {
			continue
		}
		dt := s.Time.Sub(e.t)
		if dt < 0 {
			dt = -dt
		}
		switch {
		case dt > foldWindow:
		case e.fp&fpIPID != 0 && s.IPID != 0 && !s.IPv6:
			return true
		case s.Retry:
			return true
		case e.fp&0x7f != iface && dt <= ifaceWindow:
			return true
		case dt == 0:
			return true
		}
	}
	return false
}

// addFP remembers s, whose fingerprint is full.
func (r *dedupRing) addFP(s *capture.Segment, full uint64) {
	e := dedupEntry{fp: entryMeta(s, full), t: s.Time}
	if len(r.e) < dedupSlots {
		if r.e == nil {
			r.e = make([]dedupEntry, 0, 8)
		}
		r.e = append(r.e, e)
	} else {
		r.e[r.n%dedupSlots] = e
	}
	r.n++
}
