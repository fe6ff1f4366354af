package capture

import (
	"encoding/binary"
	"net/netip"

	"github.com/tcpviz/tcpviz/internal/seq"
)

// ICMPKind names an ICMP error that quotes a TCP segment (RFC 792,
// RFC 1191, RFC 4443). ICMPNone marks an ordinary TCP segment.
type ICMPKind uint8

// ICMP error kinds tcpviz reports as events of the quoted connection.
const (
	ICMPNone ICMPKind = iota
	// ICMPFragNeeded: "fragmentation needed and DF set" (ICMPv4 type 3
	// code 4, RFC 1191) or ICMPv6 "packet too big" (type 2, RFC 8201):
	// path-MTU discovery; a PMTU black hole when it never arrives.
	ICMPFragNeeded
	// ICMPUnreachable: any other destination unreachable (ICMPv4 type 3,
	// ICMPv6 type 1): no route, host or port unreachable, prohibited.
	ICMPUnreachable
	// ICMPTimeExceeded: TTL / hop limit exceeded in transit (ICMPv4 type
	// 11, ICMPv6 type 3): a routing loop.
	ICMPTimeExceeded
)

// String returns the kind's event name.
func (k ICMPKind) String() string {
	switch k {
	case ICMPFragNeeded:
		return "icmp_frag_needed"
	case ICMPUnreachable:
		return "icmp_unreachable"
	case ICMPTimeExceeded:
		return "icmp_time_exceeded"
	}
	return ""
}

// icmp decodes an ICMP (v6 when v6) message b. An error that quotes an IP
// packet carrying TCP fills d.s with the quoted segment's endpoints (in the
// quoted packet's direction), sequence number and the ICMP facts, and
// returns vICMP; anything else is vNonTCP.
func (d *decoder) icmp(b []byte, v6 bool, from netip.Addr) verdict {
	if len(b) < 8 {
		return vNonTCP
	}
	typ, code := b[0], b[1]
	var kind ICMPKind
	var mtu uint32
	switch {
	case !v6 && typ == 3 && code == 4:
		kind, mtu = ICMPFragNeeded, uint32(binary.BigEndian.Uint16(b[6:]))
	case !v6 && typ == 3:
		kind = ICMPUnreachable
	case !v6 && typ == 11:
		kind = ICMPTimeExceeded
	case v6 && typ == 2:
		kind, mtu = ICMPFragNeeded, binary.BigEndian.Uint32(b[4:])
	case v6 && typ == 1:
		kind = ICMPUnreachable
	case v6 && typ == 3:
		kind = ICMPTimeExceeded
	default:
		return vNonTCP
	}
	q := b[8:]
	var src, dst netip.Addr
	var t []byte
	switch {
	case len(q) >= 20 && q[0]>>4 == 4:
		ihl := int(q[0]&0x0f) * 4
		if ihl < 20 || len(q) < ihl+8 || q[9] != 6 {
			return vNonTCP
		}
		src, dst = netip.AddrFrom4([4]byte(q[12:16])), netip.AddrFrom4([4]byte(q[16:20]))
		t = q[ihl:]
	case len(q) >= 48 && q[0]>>4 == 6:
		if q[6] != 6 { // extension headers in a quote: not followed
			return vNonTCP
		}
		src, dst = netip.AddrFrom16([16]byte(q[8:24])), netip.AddrFrom16([16]byte(q[24:40]))
		t = q[40:]
	default:
		return vNonTCP
	}
	s := d.s
	s.Src = netip.AddrPortFrom(src, binary.BigEndian.Uint16(t[0:]))
	s.Dst = netip.AddrPortFrom(dst, binary.BigEndian.Uint16(t[2:]))
	s.Seq = seq.Num(binary.BigEndian.Uint32(t[4:]))
	s.Ack, s.Flags, s.Window, s.Checksum, s.HdrLen, s.PayloadLen = 0, 0, 0, 0, 0, 0
	s.Opts = Options{WScale: -1}
	s.ICMP, s.ICMPFrom, s.ICMPMTU = kind, from, mtu
	return vICMP
}
