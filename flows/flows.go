package flows

import (
	"encoding/binary"
	"hash/maphash"
	"net/netip"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/prefault"
	"github.com/tcpviz/tcpviz/internal/seq"
)

// Direction indexes Conn.Half: AtoB is data sent by side A, the side that
// sent the SYN (or, when no SYN was seen, the sender of the first packet).
type Direction uint8

// Directions.
const (
	AtoB Direction = 0
	BtoA Direction = 1
)

// Reverse returns the other direction.
func (d Direction) Reverse() Direction { return 1 - d }

// String returns "ab" or "ba", the names used in every output.
func (d Direction) String() string {
	if d == AtoB {
		return "ab"
	}
	return "ba"
}

// Key names a connection independently of direction: Lo is the lesser
// endpoint.
type Key struct{ Lo, Hi netip.AddrPort }

// KeyOf returns the key of a segment from src to dst.
func KeyOf(src, dst netip.AddrPort) Key {
	if src.Compare(dst) <= 0 {
		return Key{src, dst}
	}
	return Key{dst, src}
}

// SynOptions are the options of a SYN or SYN-ACK that matter after the
// handshake (RFC 9293, RFC 7323, RFC 2018).
type SynOptions struct {
	MSS uint16 // bytes; 0 if absent
	// WScale is the window-scale shift as sent (not clamped), -1 if absent.
	WScale   int16
	SACKPerm bool // SACK-permitted present
	TS       bool // timestamps option present
}

func synOptionsOf(o *capture.Options) SynOptions {
	return SynOptions{MSS: o.MSS, WScale: o.WScale, SACKPerm: o.SACKPerm, TS: o.TS}
}

// WScaleSource says how a side's window-scale shift was decided
// (docs/metrics.md#window-scale).
type WScaleSource uint8

// Window-scale sources.
const (
	WScaleUnknown   WScaleSource = iota // the handshake was not captured
	WScaleHandshake                     // both SYNs seen (RFC 7323 §1.3)
	WScaleSynAck                        // the SYN-ACK alone: it carries the option only if the SYN did
	WScaleSyn                           // the SYN alone, without the option: scaling is off
	WScaleOverride                      // the user's --wscale
)

// String returns the name used in outputs: unknown, handshake, syn-ack,
// syn, override.
func (w WScaleSource) String() string {
	return [...]string{"unknown", "handshake", "syn-ack", "syn", "override"}[w]
}

// Half is one direction of a connection: what side A (for Half[AtoB]) or B
// sent, and the handshake facts of that side.
type Half struct {
	Addr netip.AddrPort // the sender of this direction: one of Conn.Key's endpoints, set once (Tracker.AddHashed's cache relies on it)

	// SynSeen reports that this side's SYN (or SYN-ACK) was captured; Syn
	// holds its options then.
	SynSeen bool
	Syn     SynOptions
	// ISN is this side's initial sequence number, valid iff ISNKnown: from
	// its SYN, or inferred from the peer's SYN-ACK acknowledgment.
	ISN      seq.Num
	ISNKnown bool
	// Base is the sequence number with relative offset 0: the ISN when known,
	// else one before the first sequence number seen from this side, so that
	// the first byte seen has offset 1 (as tshark's relative numbers).
	Base      seq.Num
	BaseKnown bool
	// WScale is the window-scale shift applied to this side's window field
	// (RFC 7323 §2.3, clamped to 14), 0 when scaling is off, or -1 when it is
	// unknown because the handshake was not captured.
	WScale int
	// WScaleFrom says how WScale was decided.
	WScaleFrom WScaleSource

	FinSeen bool  // a FIN from this side was captured
	FinRel  int64 // relative offset of that FIN, valid iff FinSeen
	RstSeen bool  // an RST from this side was captured

	// MAC is this side's own 802.11 address, valid iff MACKnown: the
	// transmitter address of its packets with the highest TTL seen (relays
	// decrement the TTL, so those frames are the ones it sent itself).
	MAC      [6]byte
	MACKnown bool

	macTTL uint8
	// lastID and idVaries follow this side's nonzero IPv4
	// identifications: a changing ID stream makes an equal ID evidence of
	// a copy.
	lastID   uint16
	idSeen   bool
	idVaries bool
	unwrap   seq.Unwrapper
	// dedup remembers this direction's last packets for copy folding
	// (dedup.go), nil until the first and after dropFold. foldN counts
	// the packets added to it (unsigned: the ring index is foldN mod
	// dedupSlots, a mask); foldBloom has bit fp>>56 set for every
	// entry's fingerprint (and for some overwritten ones, until the next
	// rebuild): most packets, which copy nothing, are told apart without
	// scanning the ring.
	dedup     *dedupRing
	foldN     uint
	foldBloom [4]uint64
}

// Conn is one TCP connection.
type Conn struct {
	Index int // 0-based, in order of first packet (tshark's tcp.stream)
	Key   Key
	Half  [2]Half
	// HandshakeSeen reports that both the SYN and the SYN-ACK were captured.
	HandshakeSeen bool
	First, Last   capture.Timestamp // capture times of the first and last packet
	FirstFrame    int64             // frame number of the first packet
	// Folded counts packets recognised as copies of a packet already
	// counted (see Tracker.Add) and left out of every metric; FoldedBy
	// splits it by the evidence that decided (FoldReason).
	Folded   int64
	FoldedBy [NumFoldReasons]int64
	// Overheard counts 802.11 frames of the connection that the capturing
	// node decoded but that were addressed to another node
	// (Options.Node): left out of every metric but this count and their
	// ACK numbers (the peer's statement of what it received). Copies are
	// not folded against them.
	Overheard int64
	// Reused reports that this connection started on a 4-tuple that an
	// earlier connection of the capture used (port reuse).
	Reused bool

	// The handshake's round trip as far as captured, for the relay window
	// of copy folding (relayWindow): hsRTT sums the SYN→SYN-ACK and
	// SYN-ACK→ACK times known so far; hsT is the time of the last SYN
	// (hsStage 1), then of the last SYN-ACK (hsStage 2); hsStage 3: done.
	hsStage uint8
	hsT     capture.Timestamp
	hsRTT   time.Duration
	// unlisted: the connection is no longer its 4-tuple's entry of
	// Tracker.live (a later one replaced it, or it was forgotten), so
	// Forget deletes nothing without looking the key up.
	unlisted bool
}

// relayWindow is how long after a packet a copy of it with a lower TTL is
// folded as a relay's copy (FoldRelay): the connection's round-trip time
// as the captured handshake gives it (SYN→SYN-ACK plus SYN-ACK→ACK, or
// the part captured), at least ifaceWindow; synRelayWindow for a SYN or
// SYN-ACK while no round trip is known. TCP sends nothing twice sooner
// than one round trip (docs/metrics.md#folded-duplicates).
func (c *Conn) relayWindow(s *capture.Segment) time.Duration {
	if c.hsRTT == 0 && s.Flags.Has(capture.SYN) {
		return synRelayWindow
	}
	return max(c.hsRTT, ifaceWindow)
}

// timeHandshake records the times relayWindow uses; s, sent in direction
// d, was not folded.
func (c *Conn) timeHandshake(d Direction, s *capture.Segment) {
	switch syn, ack := s.Flags.Has(capture.SYN), s.Flags.Has(capture.ACK); {
	case syn && !ack:
		if c.hsStage <= 1 {
			c.hsT, c.hsStage = s.Time, 1
		}
	case syn:
		if c.hsStage == 1 && s.Time > c.hsT {
			c.hsRTT += s.Time.Sub(c.hsT)
		}
		if c.hsStage <= 2 {
			c.hsT, c.hsStage = s.Time, 2
		}
	case c.hsStage == 2 && ack && d == AtoB && s.Time > c.hsT: // hsStage first: after the handshake it is all that is tested
		c.hsRTT += s.Time.Sub(c.hsT)
		c.hsStage = 3
	}
}

// Duration returns Last − First.
func (c *Conn) Duration() time.Duration { return c.Last.Sub(c.First) }

// DirOf returns the direction of a segment sent by src.
func (c *Conn) DirOf(src netip.AddrPort) Direction {
	if src == c.Half[AtoB].Addr {
		return AtoB
	}
	return BtoA
}

// ScaledWindow returns the receive window in bytes advertised by a segment
// sent in direction d with raw window field raw, and false when the scale is
// unknown. Windows in SYN segments are never scaled (RFC 7323 §2.2).
func (c *Conn) ScaledWindow(d Direction, raw uint16, syn bool) (int64, bool) {
	if syn {
		return int64(raw), true
	}
	ws := c.Half[d].WScale
	if ws < 0 {
		return int64(raw), false
	}
	return int64(raw) << uint(ws), true
}

// Options configure a Tracker.
type Options struct {
	// WScale, when ≥ 0, is the window-scale shift to assume for both sides
	// of connections whose handshake was not captured (the CLI's --wscale).
	// -1 (or any negative value) leaves such shifts unknown.
	WScale int
	// NoFold turns off the folding of duplicate copies.
	NoFold bool
	// NoList stops the tracker from listing its connections (Conns returns
	// nil): for a caller that streams results and Forgets the connections
	// it is done with, so that memory does not grow with their number.
	NoList bool
	// Node, when known (capture.Node.Known), is the node an 802.11
	// capture was taken on: its frames addressed to another node's MAC
	// are overheard (capture.ReceptionOverheard) and are not this node's
	// traffic. Such a frame is attributed to its connection (it may open
	// it; its time spans the connection; a SYN's options and ISN are the
	// endpoint's own choice; it numbers the sequence spaces) and counted
	// in Conn.Overheard, but it is never a copy's original, never folded,
	// and every other metric leaves it out (Packet.Overheard;
	// docs/metrics.md#own-frames). Nil: every frame is the node's, as
	// when the capture cannot tell.
	Node *capture.Node
}

// Packet is what Tracker.Add returns for one segment.
type Packet struct {
	Conn *Conn
	Dir  Direction
	// Dup reports that the segment is a copy of a packet already seen (an
	// 802.11 retry, a relayed copy, a second interface); it is counted in
	// Conn.Folded and must be left out of metrics. Only Seq and End are set
	// for a copy.
	Dup bool
	// New reports that this segment opened Conn.
	New bool
	// Overheard reports an 802.11 frame the capturing node only overheard
	// (Options.Node): counted in Conn.Overheard and left out of every
	// metric, like a copy. Only Seq, End, Ack and AckValid are set: what
	// the frame's sender acknowledged is still evidence.
	Overheard bool
	// Late reports a segment on the 4-tuple of a connection the tracker
	// forgot (it was over) that is not a new SYN: Conn is nil, and it is
	// left out of every metric (counted in Tracker.Late).
	Late bool
	// Seq and End are the segment's relative offsets in its direction's
	// sequence space (End = Seq + SeqLen); Seq 0 is the ISN.
	Seq, End int64
	// Ack is the relative offset of the acknowledgment number in the
	// reverse direction's sequence space, valid iff AckValid (ACK flag set
	// and that direction's base known).
	Ack      int64
	AckValid bool
}

// Tracker groups segments into connections. The zero value is not usable;
// call NewTracker.
type Tracker struct {
	opts  Options
	cache [1 << cacheBits]cacheEntry // direct-mapped front of live: most lookups skip hashing the key
	live  map[Key]*Conn
	conns []*Conn
	n     int // connections opened so far: the next index
	added int // segments added, for the periodic sweep
	// fine reports that the capture resolves time finer than fineTick:
	// the reader says so (capture.Segment.FineTime, from its pre-scan of
	// a file) or some timestamp seen so far is off a multiple of fineTick
	// (see dedup.go).
	fine bool
	// shard: the Tracker holds one shard of a capture's connections and
	// its caller sweeps it (shard.go).
	shard bool
	// gone remembers the 4-tuples of forgotten connections for a while
	// (at most maxGone, none older than goneAge), so that a late segment
	// of one is told apart from a new connection: by a 64-bit hash of the
	// 4-tuple (goneSeed; a collision needs a segment without SYN on
	// another 4-tuple with no live connection, with odds about
	// maxGone / 2^64), 16 bytes each in the map. goneQ is their order, a
	// ring of maxGone hashes from goneHead.
	gone     map[uint64]capture.Timestamp
	goneQ    []uint64
	goneHead int
	goneSeed maphash.Seed
	// Late counts segments that arrived on the 4-tuple of a forgotten
	// connection and were not a new SYN: left out (Packet.Late).
	Late int64
	// rings are copy-folding rings of connections that are over or idle,
	// emptied, for the next connections (at most maxFreeRings).
	rings []*dedupRing
	// free are forgotten connections given back for reuse (Recycle).
	free []*Conn
	// ringLow, valid iff ringLowOK, is a lower bound of Last over the
	// live connections that hold a copy-folding ring: a sweep at a time
	// less than foldWindow past it has nothing to drop, and skips the
	// walk over every live connection (sweep).
	ringLow   capture.Timestamp
	ringLowOK bool
}

// Recycle gives t back c, a connection t forgot (Forget) that its caller
// no longer references, to be reused for a later connection (at most
// maxFreeRings are kept). tcpanalysis does so for the results OnDone is
// done with (tcpanalysis.Options.ReuseResults).
func (t *Tracker) Recycle(c *Conn) {
	if len(t.free) < maxFreeRings {
		t.free = append(t.free, c)
	}
}

// maxFreeRings bounds the emptied copy-folding rings a Tracker keeps.
const maxFreeRings = 4096

// dropFold releases c's copy-folding rings into t's free list: c is
// forgotten, idle past foldWindow, or replaced on its 4-tuple, and no later
// packet is folded against them.
func (t *Tracker) dropFold(c *Conn) {
	for i := range c.Half {
		if r := c.Half[i].dedup; r != nil {
			c.Half[i].dedup, c.Half[i].foldN, c.Half[i].foldBloom = nil, 0, [4]uint64{}
			if len(t.rings) < maxFreeRings {
				r.air = nil // the entries are past foldN; air, if any, is left to the collector
				t.rings = append(t.rings, r)
			}
		}
	}
}

// newRing returns an empty copy-folding ring.
func (t *Tracker) newRing() *dedupRing {
	if n := len(t.rings); n > 0 {
		r := t.rings[n-1]
		t.rings[n-1] = nil
		t.rings = t.rings[:n-1]
		return r
	}
	return prefault.New(&dedupRing{})
}

// maxGone and goneAge bound the forgotten 4-tuples remembered: a segment
// of a connection more than goneAge after it was forgotten (twice Linux's
// 60 s TIME-WAIT), or after maxGone later connections were forgotten,
// opens a new connection instead.
const (
	maxGone = 1 << 16
	goneAge = 120 * time.Second
)

// cacheBits is log2 of the slots of Tracker.cache.
const cacheBits = 10

// cacheEntry is a slot of Tracker.cache: a live connection and the
// PairHash of its endpoints, 16 bytes (the 1 024 slots fit a core's
// first-level cache; a hit is confirmed on the addresses of c's sides,
// Half.Addr, which also give the segment's direction, in the cache lines
// the segment's processing reads next anyway).
type cacheEntry struct {
	h uint64
	c *Conn
}

// cacheSlotOf is the cache slot of the connection between src and dst.
func cacheSlotOf(src, dst netip.AddrPort) int { return int(PairHash(src, dst) >> (64 - cacheBits)) }

// PairHash returns a 64-bit hash of a segment's endpoints that is the same
// for both directions: the endpoints (the last 32 bits of each address,
// AddrLow, and the port) are ordered, then mixed. Its top cacheBits bits
// pick a Tracker's cache slot (AddHashed); tcpanalysis takes its shards
// from other bits of the same hash. (XOR of the two endpoints, symmetric
// too, maps every client of a load generator whose address XOR its
// server's is the same, on the same port, to one slot: 10.1.0.5↔10.2.0.1
// and 10.1.0.6↔10.2.0.2. On the short benchmark capture 40 % of lookups
// then missed the cache.)
//
// Two IPv4 addresses, nearly every segment, take a path without calls:
// AddrLow, too costly for the compiler to inline, cost about half of
// the hash's instructions.
func PairHash(src, dst netip.AddrPort) uint64 {
	sa, da := src.Addr(), dst.Addr()
	if !sa.Is4() || !da.Is4() {
		return pairHashAny(src, dst)
	}
	return mixPair(addrLow4(sa), src.Port(), addrLow4(da), dst.Port())
}

// addrLow4 is AddrLow of an IPv4 address.
func addrLow4(a netip.Addr) uint32 {
	b := a.As4()
	return binary.BigEndian.Uint32(b[:])
}

// pairHashAny is PairHash for any addresses (IPv6, or one of each).
//
//go:noinline
func pairHashAny(src, dst netip.AddrPort) uint64 {
	return mixPair(AddrLow(src.Addr()), src.Port(), AddrLow(dst.Addr()), dst.Port())
}

// mixPair is PairHash of the endpoints with address bits x and y (AddrLow)
// and ports xp and yp.
func mixPair(x uint32, xp uint16, y uint32, yp uint16) uint64 {
	a := uint64(x)<<16 | uint64(xp)
	b := uint64(y)<<16 | uint64(yp)
	a, b = min(a, b), max(a, b)
	return (a*0x9e3779b97f4a7c15 ^ b) * 0xbf58476d1ce4e5b9
}

// sweepEvery is how many segments pass between releases of the copy-folding
// state of idle connections.
const sweepEvery = 1 << 16

// NewTracker returns an empty Tracker.
func NewTracker(opts Options) *Tracker {
	return &Tracker{opts: opts, live: make(map[Key]*Conn)}
}

// Conns returns every connection seen so far, in index order (nil with
// Options.NoList).
func (t *Tracker) Conns() []*Conn { return t.conns }

// Forget removes c from the tracker, for a connection that is over
// (tcpanalysis decides when, docs/robustness.md#finished-connections): its
// 4-tuple no longer leads to it, so a later segment on that 4-tuple opens
// a new connection, and its copy-folding state is dropped. c itself is
// left as it is.
func (t *Tracker) Forget(c *Conn) {
	if !c.unlisted {
		c.unlisted = true
		delete(t.live, c.Key)
		if t.gone == nil {
			t.gone = make(map[uint64]capture.Timestamp)
			t.goneSeed = maphash.MakeSeed()
		}
		h := maphash.Comparable(t.goneSeed, c.Key)
		if _, ok := t.gone[h]; !ok {
			if len(t.goneQ) < maxGone {
				t.goneQ = append(t.goneQ, h)
			} else {
				delete(t.gone, t.goneQ[t.goneHead])
				t.goneQ[t.goneHead] = h
				t.goneHead = (t.goneHead + 1) % maxGone
			}
		}
		t.gone[h] = c.Last
	}
	if slot := &t.cache[cacheSlotOf(c.Key.Lo, c.Key.Hi)]; slot.c == c {
		*slot = cacheEntry{}
	}
	t.dropFold(c)
}

// Live returns the number of connections the tracker can still add
// segments to (opened and not forgotten).
func (t *Tracker) Live() int { return len(t.live) }

// Add assigns s to its connection and returns where it belongs. s must be
// a TCP segment (s.ICMP == capture.ICMPNone); ICMP errors quoting a
// segment go to Lookup.
func (t *Tracker) Add(s *capture.Segment) Packet {
	var p Packet
	t.AddTo(s, &p)
	return p
}

// AddTo is Add writing its result into *p: the same, without copying the
// Packet out (the per-packet path of tcpanalysis).
func (t *Tracker) AddTo(s *capture.Segment, p *Packet) { t.AddHashed(s, PairHash(s.Src, s.Dst), p) }

// AddHashed is AddTo for a caller that has hash = PairHash(s.Src, s.Dst)
// already (tcpanalysis's reader computes it to pick the shard).
func (t *Tracker) AddHashed(s *capture.Segment, hash uint64, p *Packet) {
	t.added++
	if t.added%sweepEvery == 0 && !t.shard {
		t.sweep(s.Time)
	}
	// The cache slot's connection, if it is this 4-tuple's, and the
	// direction, told by one comparison of the endpoints with its sides'
	// (Half.Addr: the key's two endpoints, in the connection's order).
	slot := &t.cache[hash>>(64-cacheBits)]
	c, d := slot.c, AtoB
	switch {
	case c == nil || slot.h != hash:
		c = nil
	case c.Half[AtoB].Addr == s.Src && c.Half[BtoA].Addr == s.Dst:
	case c.Half[BtoA].Addr == s.Src && c.Half[AtoB].Addr == s.Dst:
		d = BtoA
	default:
		c = nil
	}
	isNew := false
	if c == nil || s.Flags&(capture.SYN|capture.ACK) == capture.SYN {
		// A cache miss, or a SYN, which may open a new connection on a
		// live 4-tuple.
		if c, isNew = t.find(s, hash, slot, c); c == nil {
			*p = Packet{Late: true}
			return
		}
		d = c.DirOf(s.Src)
	}
	*p = Packet{Conn: c, Dir: d, New: isNew}
	if t.opts.Node != nil && t.opts.Node.Reception(s) == capture.ReceptionOverheard {
		t.overheard(c, d, s, p)
		return
	}
	if s.WiFi {
		if h := &c.Half[d]; !h.MACKnown || s.TTL > h.macTTL {
			h.MAC, h.MACKnown, h.macTTL = s.TA, true, s.TTL
		}
	}
	if !t.fine && (s.FineTime || int64(s.Time)%int64(fineTick) != 0) {
		t.fine = true
	}
	var fp uint64
	if !t.opts.NoFold {
		fp = fingerprint(s)
	}
	if h := &c.Half[d]; !t.opts.NoFold && !isNew && h.mayHold(s, fp) {
		if why, dup := h.seenFP(s, fp, t.fine, h.idVaries, c); dup {
			c.Folded++
			c.FoldedBy[why]++
			if s.Time > c.Last {
				c.Last = s.Time
			}
			p.Dup = true
			if h := &c.Half[d]; h.BaseKnown {
				p.Seq = h.unwrap.Peek(s.Seq)
				p.End = p.Seq + int64(s.SeqLen())
			}
			return
		}
	}
	if h := &c.Half[d]; !s.IPv6 && s.IPID != 0 { // ID 0 (DF SYN-ACKs, some stacks) says nothing
		if !h.idVaries && h.idSeen && s.IPID != h.lastID { // once it varies, only the first test runs
			h.idVaries = true
		}
		h.lastID, h.idSeen = s.IPID, true
	}
	if !t.opts.NoFold {
		h := &c.Half[d]
		r := h.dedup
		if r == nil {
			r = t.newRing()
			h.dedup = r
			if !t.ringLowOK || s.Time < t.ringLow { // c.Last is s.Time or later from here on
				t.ringLow, t.ringLowOK = s.Time, true
			}
		}
		// The ring remembers s (whose fingerprint is fp), in the entry
		// it overwrites: written out here, as the compiler would not
		// inline it; the rare branches (802.11, the bloom bits' rebuild
		// once a turn) are calls.
		e := &r.e[h.foldN%dedupSlots]
		*e = dedupEntry{fp: fp, t: s.Time, seqctl: s.SeqCtl, iface: ifaceKey(s.Iface), ttl: s.TTL}
		if s.WiFi {
			r.addAir(e, s)
		}
		h.foldN++
		if h.foldN%dedupSlots == 0 {
			h.rebuildBloom()
		} else {
			w, b := bloomBit(fp)
			h.foldBloom[w] |= b
		}
	}
	if s.Time > c.Last {
		c.Last = s.Time
	}
	if s.Time < c.First {
		c.First = s.Time
	}
	if s.Flags.Has(capture.SYN) || c.hsStage == 2 { // else timeHandshake has nothing to do
		c.timeHandshake(d, s)
	}
	if s.Flags.Has(capture.SYN) {
		t.handshake(c, d, s)
	}
	// c.offsets(d, s, p), written out: the compiler would not inline it.
	h := &c.Half[d]
	h.number(s.Seq)
	p.Seq = h.unwrap.Unwrap(s.Seq)
	p.End = p.Seq + int64(s.SeqLen())
	if s.Flags.Has(capture.ACK) {
		r := &c.Half[d.Reverse()]
		r.number(s.Ack)
		p.Ack, p.AckValid = r.unwrap.Peek(s.Ack), true
	}
	if s.Flags.Has(capture.FIN) {
		if !h.FinSeen {
			h.FinRel = p.Seq + int64(s.PayloadLen)
		}
		h.FinSeen = true
	}
	if s.Flags.Has(capture.RST) {
		h.RstSeen = true
	}
}

// find returns the connection s belongs to, for AddHashed's segments that
// are not a cache hit without SYN: sc is the cache slot's connection when
// it is s's 4-tuple's, else nil; slot is that cache slot, hash
// PairHash(s.Src, s.Dst). isNew reports that s opened the connection (a
// first segment, or a SYN that starts a new connection on the 4-tuple:
// port reuse); c is nil for a late segment of a forgotten connection,
// counted in t.Late.
func (t *Tracker) find(s *capture.Segment, hash uint64, slot *cacheEntry, sc *Conn) (c *Conn, isNew bool) {
	var k Key
	if c = sc; c != nil {
		// The slot's key is KeyOf(s.Src, s.Dst): no need to order the
		// endpoints.
		k = c.Key
	} else {
		k = KeyOf(s.Src, s.Dst)
		c = t.live[k]
		if c != nil {
			*slot = cacheEntry{hash, c}
		}
	}
	old := c // the live connection on k, if any
	syn := s.Flags.Has(capture.SYN) && !s.Flags.Has(capture.ACK)
	if c != nil && syn && startsNew(c, s) {
		c = nil
	}
	if c != nil {
		return c, false
	}
	if !syn && t.gone != nil {
		if at, ok := t.gone[maphash.Comparable(t.goneSeed, k)]; ok && s.Time.Sub(at) <= goneAge {
			// A late segment of a connection that is over (a FIN
			// retransmitted after the last ACK, data after an RST): not
			// a new connection, as tshark's tcp.stream would not make
			// one; left out and counted.
			t.Late++
			return nil, false
		}
	}
	c = t.newConn(k, s)
	if old != nil {
		// Port reuse. Every later packet on k joins c, so old's
		// copy-folding state is never looked at again: release it.
		c.Reused = true
		old.unlisted = true
		t.dropFold(old)
	}
	t.live[k] = c
	*slot = cacheEntry{hash, c}
	return c, true
}

// offsets gives p the relative offsets of s, sent in direction d of c
// (p.Seq, p.End and, with ACK, p.Ack), numbering a sequence space from the
// first number the capture holds of it: its first segment's sequence
// number, or, with nothing seen from the peer yet, the ACK, which marks
// its offset 1.
func (c *Conn) offsets(d Direction, s *capture.Segment, p *Packet) {
	h := &c.Half[d]
	h.number(s.Seq)
	p.Seq = h.unwrap.Unwrap(s.Seq)
	p.End = p.Seq + int64(s.SeqLen())
	if s.Flags.Has(capture.ACK) {
		r := &c.Half[d.Reverse()]
		r.number(s.Ack)
		p.Ack, p.AckValid = r.unwrap.Peek(s.Ack), true
	}
}

// number sets h's numbering so that first is offset 1, unless it is set.
func (h *Half) number(first seq.Num) {
	if !h.BaseKnown {
		h.Base = first - 1
		h.BaseKnown = true
		h.unwrap = seq.NewUnwrapper(h.Base)
	}
}

// overheard adds s, sent in direction d of c, as a frame the node only
// overheard (Options.Node): counted, and kept for what it tells about the
// connection whoever received it — its time (First, Last: the span of
// the connection on the air), its SYN facts (the ISN tells a SYN sent
// again from a new connection; the options are the endpoint's) and the
// numbering of its sequence spaces (relative offsets count from the first
// number the capture holds, overheard or not) — and its offsets given
// (p.Seq, p.End, p.Ack); nothing else.
func (t *Tracker) overheard(c *Conn, d Direction, s *capture.Segment, p *Packet) {
	c.Overheard++
	p.Overheard = true
	c.First, c.Last = min(c.First, s.Time), max(c.Last, s.Time)
	if s.Flags.Has(capture.SYN) {
		t.handshake(c, d, s)
	}
	c.offsets(d, s, p)
}

// Lookup returns the live connection a segment from s.Src to s.Dst belongs
// to and its direction, without adding anything: for ICMP errors that quote
// a segment of a connection (capture.Segment.ICMP). ok is false when no
// connection of the capture uses that 4-tuple.
func (t *Tracker) Lookup(s *capture.Segment) (c *Conn, d Direction, ok bool) {
	c = t.live[KeyOf(s.Src, s.Dst)]
	if c == nil {
		return nil, 0, false
	}
	return c, c.DirOf(s.Src), true
}

// RelSeq returns sequence number n of direction d as a relative offset
// (0 = ISN), and false when the direction's base is not known yet.
func (c *Conn) RelSeq(d Direction, n seq.Num) (int64, bool) {
	h := &c.Half[d]
	if !h.BaseKnown {
		return 0, false
	}
	return h.unwrap.Peek(n), true
}

// ReleaseFold drops c's copy-folding state: for a connection that is over
// (tcpanalysis calls it when it releases a closed connection, and for every
// connection at the end of the capture). A later packet of c can then no
// longer be folded against what came before it.
func (c *Conn) ReleaseFold() { c.Half[AtoB].dedup, c.Half[BtoA].dedup = nil, nil }

// startsNew reports whether a SYN (without ACK) on an existing connection's
// 4-tuple opens a new connection: yes unless it repeats the SYN this
// connection started with (a SYN retransmission).
func startsNew(c *Conn, s *capture.Segment) bool {
	d := c.DirOf(s.Src)
	h := &c.Half[d]
	if d == AtoB && h.ISNKnown && h.ISN == s.Seq {
		return false
	}
	return true
}

func (t *Tracker) newConn(k Key, s *capture.Segment) *Conn {
	var c *Conn
	if n := len(t.free); n > 0 {
		c = t.free[n-1]
		t.free[n-1] = nil
		t.free = t.free[:n-1]
		*c = Conn{Index: t.n, Key: k, First: s.Time, Last: s.Time, FirstFrame: s.Frame}
	} else {
		c = prefault.New(&Conn{Index: t.n, Key: k, First: s.Time, Last: s.Time, FirstFrame: s.Frame})
	}
	t.n++
	a, b := s.Src, s.Dst
	if s.Flags.Has(capture.SYN) && s.Flags.Has(capture.ACK) {
		a, b = b, a // a SYN-ACK first: its receiver sent the SYN
	}
	c.Half[AtoB].Addr, c.Half[BtoA].Addr = a, b
	for i := range c.Half {
		c.Half[i].WScale = -1
		c.Half[i].WScaleFrom = WScaleUnknown
	}
	t.applyOverride(c)
	if !t.opts.NoList {
		t.conns = append(t.conns, c)
	}
	return c
}

func (t *Tracker) applyOverride(c *Conn) {
	if t.opts.WScale < 0 {
		return
	}
	for i := range c.Half {
		if c.Half[i].WScaleFrom == WScaleUnknown {
			c.Half[i].WScale = min(t.opts.WScale, 14)
			c.Half[i].WScaleFrom = WScaleOverride
		}
	}
}

// handshake records SYN facts and decides the window scale (RFC 7323 §1.3:
// scaling is on only if both SYNs carry the option; a SYN-ACK carries it only
// if the SYN did).
func (t *Tracker) handshake(c *Conn, d Direction, s *capture.Segment) {
	if !s.Flags.Has(capture.SYN) {
		return
	}
	h := &c.Half[d]
	if !h.SynSeen {
		h.SynSeen = true
		h.Syn = synOptionsOf(&s.Opts)
		h.ISN, h.ISNKnown = s.Seq, true
		h.Base, h.BaseKnown = s.Seq, true
		h.unwrap = seq.NewUnwrapper(s.Seq)
	}
	if s.Flags.Has(capture.ACK) {
		// The SYN-ACK acknowledges the peer's ISN + 1.
		r := &c.Half[d.Reverse()]
		if !r.ISNKnown {
			r.ISN, r.ISNKnown = s.Ack-1, true
			r.Base, r.BaseKnown = s.Ack-1, true
			r.unwrap = seq.NewUnwrapper(s.Ack - 1)
		}
	}
	a, b := &c.Half[AtoB], &c.Half[BtoA]
	c.HandshakeSeen = a.SynSeen && b.SynSeen
	set := func(h *Half, ws int, from WScaleSource) {
		h.WScale, h.WScaleFrom = ws, from
	}
	switch {
	case a.SynSeen && b.SynSeen:
		if a.Syn.WScale >= 0 && b.Syn.WScale >= 0 {
			set(a, clampWS(a.Syn.WScale), WScaleHandshake)
			set(b, clampWS(b.Syn.WScale), WScaleHandshake)
		} else {
			set(a, 0, WScaleHandshake)
			set(b, 0, WScaleHandshake)
		}
	case b.SynSeen: // SYN-ACK without the SYN
		if b.Syn.WScale < 0 {
			set(a, 0, WScaleSynAck)
			set(b, 0, WScaleSynAck)
		} else {
			set(b, clampWS(b.Syn.WScale), WScaleSynAck)
		}
	case a.SynSeen && a.Syn.WScale < 0:
		set(a, 0, WScaleSyn)
		set(b, 0, WScaleSyn)
	}
	t.applyOverride(c)
}

func clampWS(ws int16) int {
	if ws > 14 {
		return 14 // RFC 7323 §2.3: treat larger shifts as 14
	}
	return int(ws)
}

// sweep releases the copy-folding state of connections idle for longer than
// foldWindow: no later packet can be folded against it, so memory stays
// bounded by the connections active at once.
func (t *Tracker) sweep(now capture.Timestamp) {
	if !t.ringLowOK || now.Sub(t.ringLow) <= foldWindow {
		return // no ring's connection has been idle that long
	}
	t.ringLowOK = false
	for _, c := range t.live {
		if now.Sub(c.Last) > foldWindow {
			t.dropFold(c)
		} else if (c.Half[0].dedup != nil || c.Half[1].dedup != nil) && (!t.ringLowOK || c.Last < t.ringLow) {
			t.ringLow, t.ringLowOK = c.Last, true
		}
	}
}
