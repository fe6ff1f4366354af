package flows

import (
	"encoding/binary"
	"net/netip"

	"github.com/tcpviz/tcpviz/capture"
)

// Sharding. A capture's connections can be split over several Trackers by
// their 4-tuple (every packet of a 4-tuple, both directions and ICMP errors
// quoting it, to the same Tracker), each fed in capture order: tcpanalysis
// does so to use several cores on one file. A Tracker's own results depend
// on the rest of the capture only through two clocks, which the caller
// then runs for all shards at the points of the capture where a single
// Tracker would: the sweep of idle connections' copy-folding state every
// SweepEvery segments, and the moment a timestamp first shows a fine
// resolution (IsFine).

// MaxGone is how many forgotten connections' 4-tuples a Tracker remembers
// (the oldest is dropped first): a sharded caller must know when shards
// could disagree with one Tracker about a late segment.
const MaxGone = maxGone

// SweepEvery is how many segments (calls of Add) pass between two sweeps
// of a Tracker's idle connections.
const SweepEvery = sweepEvery

// IsFine reports whether capture time t is off a multiple of 10 µs: the
// first such time seen marks the capture as finely resolved
// (docs/metrics.md#folded-duplicates).
func IsFine(t capture.Timestamp) bool { return int64(t)%int64(fineTick) != 0 }

// SetShard makes t one shard of a capture's connections: it no longer
// sweeps itself every SweepEvery segments; the caller calls Sweep at the
// SweepEvery-th segment of the whole capture (before adding it) and
// MarkFine at the first segment of the capture whose time IsFine (before
// adding it).
func (t *Tracker) SetShard() { t.shard = true }

// Sweep releases the copy-folding state of connections idle at now, as a
// Tracker does by itself every SweepEvery segments (see SetShard).
func (t *Tracker) Sweep(now capture.Timestamp) { t.sweep(now) }

// MarkFine marks the capture as finely resolved (see SetShard and IsFine).
func (t *Tracker) MarkFine() { t.fine = true }

// AddrLow returns the last 32 bits of a, for hashing: an IPv4 address
// whole. It is cheaper than indexing a.As16(), whose 16-byte copy stalls
// the store-to-load forwarding of the CPU.
func AddrLow(a netip.Addr) uint32 {
	if a.Is4() {
		b := a.As4()
		return binary.BigEndian.Uint32(b[:])
	}
	b := a.As16()
	return binary.BigEndian.Uint32(b[12:])
}
