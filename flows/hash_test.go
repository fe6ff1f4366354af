package flows

import (
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"testing"
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
