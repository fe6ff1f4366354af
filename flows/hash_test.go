package flows

import (
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/seq"
)

// pairHashRef is PairHash as first written: the last 32 bits of each
// address from As16, then the same mix. PairHash's IPv4 path must give the
// same values (tcpanalysis's shards and frame-index tags are its bits).
func pairHashRef(src, dst netip.AddrPort) uint64 {
	low := func(a netip.Addr) uint32 {
		b := a.As16()
		return binary.BigEndian.Uint32(b[12:])
	}
	a := uint64(low(src.Addr()))<<16 | uint64(src.Port())
	b := uint64(low(dst.Addr()))<<16 | uint64(dst.Port())
	a, b = min(a, b), max(a, b)
	return (a*0x9e3779b97f4a7c15 ^ b) * 0xbf58476d1ce4e5b9
}

// randAddrPort returns a random endpoint: IPv4, IPv6, IPv4-mapped IPv6,
// IPv6 with a zone, or the zero address, by kind mod 5.
func randAddrPort(r *rand.Rand, kind int) netip.AddrPort {
	var b16 [16]byte
	binary.BigEndian.PutUint64(b16[:8], r.Uint64())
	binary.BigEndian.PutUint64(b16[8:], r.Uint64())
	var a netip.Addr
	switch kind % 5 {
	case 0:
		a = netip.AddrFrom4([4]byte(b16[12:]))
	case 1:
		a = netip.AddrFrom16(b16)
	case 2:
		a = netip.AddrFrom16(netip.AddrFrom4([4]byte(b16[12:])).As16()) // ::ffff:a.b.c.d, not Is4
	case 3:
		a = netip.AddrFrom16(b16).WithZone("eth0")
	}
	return netip.AddrPortFrom(a, uint16(r.Uint32()))
}

func TestPairHashMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		src, dst := randAddrPort(r, i), randAddrPort(r, i/5)
		if i%7 == 0 {
			src = dst
		}
		if got, want := PairHash(src, dst), pairHashRef(src, dst); got != want {
			t.Fatalf("PairHash(%v, %v) = %#x, want %#x", src, dst, got, want)
		}
		if PairHash(src, dst) != PairHash(dst, src) {
			t.Fatalf("PairHash(%v, %v) is not symmetric", src, dst)
		}
		if b := src.Addr().As16(); AddrLow(src.Addr()) != binary.BigEndian.Uint32(b[12:]) {
			t.Fatalf("AddrLow(%v) = %#x", src.Addr(), AddrLow(src.Addr()))
		}
	}
}

// fingerprintRef is fingerprint as first written.
func fingerprintRef(s *capture.Segment) uint64 {
	a := uint64(s.Seq)<<32 | uint64(s.Ack)
	b := uint64(uint32(s.PayloadLen))<<32 | uint64(s.Flags)<<16 | uint64(s.Window)
	c := uint64(s.Checksum)<<48 | uint64(s.IPID)<<32 | uint64(s.Opts.TSval)
	h := (a ^ 0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	h = (h ^ h>>29 ^ b) * 0x94d049bb133111eb
	h = (h ^ h>>32 ^ c) * 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

func TestFingerprintMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		s := capture.Segment{
			Seq: seq.Num(r.Uint32()), Ack: seq.Num(r.Uint32()),
			PayloadLen: int(r.Int64()), Flags: capture.Flags(r.Uint32()),
			Window: uint16(r.Uint32()), Checksum: uint16(r.Uint32()), IPID: uint16(r.Uint32()),
			Opts: capture.Options{TSval: r.Uint32()},
		}
		if got, want := fingerprint(&s), fingerprintRef(&s); got != want {
			t.Fatalf("fingerprint(%+v) = %#x, want %#x", s, got, want)
		}
	}
}

// TestCacheCollisions adds the segments of many connections (IPv4, IPv6,
// mapped, zoned, endpoints shared between connections, a connection of an
// endpoint with itself, port reuse) to
// one Tracker by their PairHash and to another with one hash for every
// segment, so that all its connections share a cache slot and its hash:
// both must give every segment the same connection and direction.
func TestCacheCollisions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type pair struct{ a, b netip.AddrPort }
	var ends []netip.AddrPort // few endpoints, each in several connections
	for i := range 40 {
		ends = append(ends, randAddrPort(r, i))
	}
	var pairs []pair
	for i := range 200 {
		a, b := ends[r.IntN(len(ends))], ends[r.IntN(len(ends))]
		if i%50 == 0 {
			b = a
		}
		pairs = append(pairs, pair{a, b})
	}
	var segs []capture.Segment
	for i := range 20000 {
		p := pairs[r.IntN(len(pairs))]
		src, dst := p.a, p.b
		if r.IntN(2) == 0 {
			src, dst = dst, src
		}
		f := fA
		switch r.IntN(40) {
		case 0:
			f = fS
		case 1:
			f = fSA
		}
		s := seg(src, dst, f, r.Uint32(), r.Uint32(), r.IntN(3))
		s.Frame, s.Time, s.IPID = int64(i+1), at(0)+capture.Timestamp(i), uint16(i+1)
		segs = append(segs, s)
	}
	real, same := NewTracker(Options{WScale: -1}), NewTracker(Options{WScale: -1})
	for i := range segs {
		var p, q Packet
		s := segs[i]
		real.AddHashed(&s, PairHash(s.Src, s.Dst), &p)
		s = segs[i]
		same.AddHashed(&s, 0x0123456789abcdef, &q)
		if p.Conn == nil || q.Conn == nil || p.Conn.Index != q.Conn.Index || p.Dir != q.Dir || p.New != q.New {
			t.Fatalf("segment %d (%v → %v): %+v with its hash, %+v with one hash for all", i, s.Src, s.Dst, p, q)
		}
		if k := KeyOf(s.Src, s.Dst); q.Conn.Key != k {
			t.Fatalf("segment %d: connection %v, want %v", i, q.Conn.Key, k)
		}
		if want := q.Conn.DirOf(s.Src); q.Dir != want {
			t.Fatalf("segment %d: direction %v, want %v", i, q.Dir, want)
		}
	}
	if len(real.Conns()) != len(same.Conns()) {
		t.Fatalf("%d connections with their hashes, %d with one hash", len(real.Conns()), len(same.Conns()))
	}
}
