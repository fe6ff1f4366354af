package capture

import (
	"encoding/binary"
	"net/netip"

	"github.com/tcpviz/tcpviz/internal/seq"
)

// Link types tcpviz decodes (numbers from the tcpdump.org link-type registry).
const (
	LinkNull       = 0   // BSD loopback: 4-byte address family in host byte order
	LinkEthernet   = 1   // Ethernet II (802.1Q, 802.1ad, MPLS, PPPoE inside)
	LinkPPP        = 9   // PPP; ns-3 writes a bare 2-byte protocol field
	LinkRaw        = 101 // raw IPv4 or IPv6, by the version nibble
	LinkRawAlt     = 12  // DLT_RAW as some systems number it
	LinkRawAlt2    = 14  // DLT_RAW as OpenBSD numbers it
	LinkLoop       = 108 // OpenBSD loopback: family in network byte order
	LinkLinuxSLL   = 113 // Linux cooked capture v1
	LinkIEEE80211  = 105 // IEEE 802.11 without radio header
	LinkPrism      = 119 // 802.11 with a Prism monitor-mode header
	LinkRadiotap   = 127 // 802.11 with a radiotap header
	LinkAVS        = 163 // 802.11 with an AVS monitor-mode header
	LinkIPv4       = 228 // raw IPv4
	LinkIPv6       = 229 // raw IPv6
	LinkNFLOG      = 239 // Linux netfilter NFLOG
	LinkIPoIB      = 242 // IP over InfiniBand, 44-byte pseudo-header (tcpdump)
	LinkLinuxSLL2  = 276 // Linux cooked capture v2
	LinkPPPWithDir = 204 // PPP with a direction byte
)

// SupportedLink reports whether tcpviz can decode link type lt.
func SupportedLink(lt int) bool {
	switch lt {
	case LinkNull, LinkEthernet, LinkPPP, LinkRaw, LinkRawAlt, LinkRawAlt2, LinkLoop,
		LinkLinuxSLL, LinkIEEE80211, LinkPrism, LinkRadiotap, LinkAVS, LinkIPv4, LinkIPv6,
		LinkNFLOG, LinkIPoIB, LinkLinuxSLL2, LinkPPPWithDir:
		return true
	}
	return false
}

// skip reasons, counted in Stats.
type verdict uint8

const (
	vTCP verdict = iota
	vNonIP
	vNonTCP
	vFragment
	vTruncated
	vProtected
	vNonData // 802.11 management/control/null frames
	vBadIP
	vTunnelTooDeep
	vUnsupportedEncap // a tunnel payload type tcpviz does not decode; decoder.encap names it
	vICMP             // an ICMP error quoting a TCP segment (icmp.go)
)

const (
	etherIPv4  = 0x0800
	etherIPv6  = 0x86dd
	etherVLAN  = 0x8100
	etherQinQ  = 0x88a8
	etherQ9100 = 0x9100
	etherMPLS  = 0x8847
	etherMPLSm = 0x8848
	etherPPPoE = 0x8864
	etherTEB   = 0x6558 // transparent Ethernet bridging (GRE)
)

// decoder holds the per-frame decoding state. It is reused for every frame.
type decoder struct {
	s       *Segment
	wireLen int // original frame length
	depth   int // tunnel nesting
	off     int // offset of the current layer within the frame
	// overWire is set when an IP length field claimed more bytes than the
	// original frame held; the length was cut to the frame.
	overWire bool
	encap    uint16 // with vUnsupportedEncap: the GRE protocol type, e.g. 0x8200
	// only, when set, are the endpoints of the one connection wanted
	// (Reader.OnlyEndpoints): a TCP segment between others is decoded
	// up to its ports only, and returned as a stub.
	only *[2]netip.AddrPort
}

// decode fills d.s from frame data of link type lt and returns the verdict.
func (d *decoder) decode(lt int, data []byte) verdict {
	d.depth = 0
	d.overWire = false
	d.off = 0
	d.s.WiFi = false
	d.s.Retry = false
	d.s.SeqCtl = 0
	d.s.RadioSignal = false
	d.s.ICMP = ICMPNone
	d.s.SA = [6]byte{}
	switch lt {
	case LinkEthernet:
		if len(data) >= 12 {
			d.s.SA = [6]byte(data[6:12])
		}
		return d.ether(data)
	case LinkRaw, LinkRawAlt, LinkRawAlt2, LinkIPv4, LinkIPv6:
		return d.ipAny(data)
	case LinkNull, LinkLoop:
		if len(data) < 4 {
			return vTruncated
		}
		fam := binary.LittleEndian.Uint32(data)
		if fam > 0xffff {
			fam = binary.BigEndian.Uint32(data)
		}
		switch fam {
		case 2:
			return d.at(data, 4, d.ipv4)
		case 10, 24, 28, 30:
			return d.at(data, 4, d.ipv6)
		}
		return vNonIP
	case LinkPPP:
		return d.ppp(data)
	case LinkPPPWithDir:
		return d.at(data, 1, d.ppp)
	case LinkLinuxSLL:
		if len(data) < 16 {
			return vTruncated
		}
		if binary.BigEndian.Uint16(data[4:]) == 6 { // a 6-byte source address
			d.s.SA = [6]byte(data[6:12])
		}
		return d.at(data, 16, func(b []byte) verdict { return d.etherType(binary.BigEndian.Uint16(data[14:]), b) })
	case LinkLinuxSLL2:
		if len(data) < 20 {
			return vTruncated
		}
		if data[11] == 6 {
			d.s.SA = [6]byte(data[12:18])
		}
		return d.at(data, 20, func(b []byte) verdict { return d.etherType(binary.BigEndian.Uint16(data[0:]), b) })
	case LinkIPoIB:
		// 20-byte destination and 20-byte source hardware addresses, then
		// a 2-byte EtherType and 2 reserved bytes (as tcpdump writes it).
		if len(data) < 44 {
			return vTruncated
		}
		return d.at(data, 44, func(b []byte) verdict { return d.etherType(binary.BigEndian.Uint16(data[40:]), b) })
	case LinkIEEE80211:
		return d.wifi(data)
	case LinkRadiotap:
		if len(data) < 4 {
			return vTruncated
		}
		n := int(binary.LittleEndian.Uint16(data[2:]))
		if n < 8 || n > len(data) {
			return vTruncated
		}
		// Present bit 5: dBm antenna signal, recorded for frames the radio
		// received, not for those it sent.
		d.s.RadioSignal = binary.LittleEndian.Uint32(data[4:])&(1<<5) != 0
		return d.at(data, n, d.wifi)
	case LinkPrism: // the header length is a little-endian word at offset 4
		return d.radioHeader(data, binary.LittleEndian)
	case LinkAVS: // likewise, big-endian
		return d.radioHeader(data, binary.BigEndian)
	case LinkNFLOG:
		return d.nflog(data)
	}
	return vNonIP
}

// radioHeader skips a Prism or AVS monitor-mode header, whose length is the
// 32-bit word at offset 4, and decodes the 802.11 frame after it.
func (d *decoder) radioHeader(data []byte, bo binary.ByteOrder) verdict {
	if len(data) < 8 {
		return vTruncated
	}
	n := int(bo.Uint32(data[4:]))
	if n < 8 || n > len(data) {
		return vTruncated
	}
	return d.at(data, n, d.wifi)
}

// at decodes data[n:] with f, keeping track of the offset into the frame.
func (d *decoder) at(data []byte, n int, f func([]byte) verdict) verdict {
	if n > len(data) {
		return vTruncated
	}
	d.off += n
	return f(data[n:])
}

func (d *decoder) ipAny(b []byte) verdict {
	if len(b) < 1 {
		return vTruncated
	}
	switch b[0] >> 4 {
	case 4:
		return d.ipv4(b)
	case 6:
		return d.ipv6(b)
	}
	return vNonIP
}

func (d *decoder) ppp(b []byte) verdict {
	if len(b) >= 2 && b[0] == 0xff && b[1] == 0x03 { // HDLC address and control
		return d.at(b, 2, d.ppp)
	}
	if len(b) < 2 {
		return vTruncated
	}
	switch binary.BigEndian.Uint16(b) {
	case 0x0021:
		return d.at(b, 2, d.ipv4)
	case 0x0057:
		return d.at(b, 2, d.ipv6)
	}
	return vNonIP
}

// otherEthIPv4TCP reports whether Ethernet frame data (original length
// wireLen) holds what decode, given Reader.OnlyEndpoints with ports p0 and
// p1, would return as a stub: an untunnelled, unfragmented IPv4 TCP
// segment with valid headers whose ports are not the pair p0, p1 (so its
// endpoints cannot be the key's). The checks are decode's, in its order;
// false means decode it (the key's ports, a VLAN tag, a bad header, an IP
// length past the frame: whatever decode would count otherwise). Split
// reading's shortcut for the second pass of a series verb.
func otherEthIPv4TCP(data []byte, wireLen int, p0, p1 uint16) bool {
	if len(data) < 14+20 || binary.BigEndian.Uint16(data[12:]) != etherIPv4 {
		return false
	}
	b := data[14:]
	ihl := int(b[0]&0x0f) * 4
	if b[0]>>4 != 4 || ihl < 20 || len(b) < ihl+20 {
		return false
	}
	total := int(binary.BigEndian.Uint16(b[2:]))
	if total == 0 || (wireLen > 0 && total > wireLen-14) || total < ihl {
		return false
	}
	if binary.BigEndian.Uint16(b[6:])&0x3fff != 0 || b[9] != 6 {
		return false
	}
	t := b[ihl:]
	if hl := int(t[12]>>4) * 4; hl < 20 || total-ihl < hl {
		return false
	}
	sp, dp := binary.BigEndian.Uint16(t), binary.BigEndian.Uint16(t[2:])
	return !(sp == p0 && dp == p1) && !(sp == p1 && dp == p0)
}

func (d *decoder) ether(b []byte) verdict {
	if len(b) < 14 {
		return vTruncated
	}
	d.off += 14
	if t := binary.BigEndian.Uint16(b[12:]); t != etherIPv4 {
		return d.etherType(t, b[14:])
	}
	return d.ipv4(b[14:]) // etherType's first case, without its call
}

// etherType dispatches payload b by EtherType t, walking VLAN tags, MPLS
// label stacks, PPPoE sessions and 802.3 LLC/SNAP.
func (d *decoder) etherType(t uint16, b []byte) verdict {
	for {
		switch t {
		case etherIPv4:
			return d.ipv4(b)
		case etherIPv6:
			return d.ipv6(b)
		case etherVLAN, etherQinQ, etherQ9100:
			if len(b) < 4 {
				return vTruncated
			}
			t = binary.BigEndian.Uint16(b[2:])
			b = b[4:]
			d.off += 4
		case etherMPLS, etherMPLSm:
			for {
				if len(b) < 4 {
					return vTruncated
				}
				bottom := b[2]&1 == 1
				b = b[4:]
				d.off += 4
				if bottom {
					break
				}
			}
			return d.ipAny(b)
		case etherPPPoE:
			if len(b) < 6 {
				return vTruncated
			}
			return d.at(b, 6, d.ppp)
		default:
			if t < 0x0600 { // 802.3 length field: LLC/SNAP may follow
				if len(b) >= 8 && b[0] == 0xaa && b[1] == 0xaa && b[2] == 0x03 {
					t = binary.BigEndian.Uint16(b[6:])
					b = b[8:]
					d.off += 8
					continue
				}
			}
			return vNonIP
		}
	}
}

// wifi decodes an IEEE 802.11 frame: data and QoS-data frames only, then
// LLC/SNAP.
func (d *decoder) wifi(b []byte) verdict {
	if len(b) < 2 {
		return vTruncated
	}
	fc0, fc1 := b[0], b[1]
	typ := (fc0 >> 2) & 3
	sub := fc0 >> 4
	// Control frames (ACK: 10 bytes, RTS: 16) are shorter than a data
	// header, so classify before checking the length.
	if typ != 2 || sub&4 != 0 { // not data, or a null-data subtype
		return vNonData
	}
	if len(b) < 24 {
		return vTruncated
	}
	d.s.WiFi = true
	d.s.Retry = fc1&0x08 != 0
	copy(d.s.RA[:], b[4:10])
	copy(d.s.TA[:], b[10:16])
	d.s.SeqCtl = binary.LittleEndian.Uint16(b[22:24])
	if d.depth == 0 {
		// The source station by the To/From DS bits (IEEE 802.11-2020
		// Table 9-30): address 2 in an IBSS or toward the DS, address 3
		// from it, address 4 between DSs.
		switch fc1 & 0x03 {
		case 0, 1:
			d.s.SA = d.s.TA
		case 2:
			d.s.SA = [6]byte(b[16:22])
		case 3:
			if len(b) >= 30 {
				d.s.SA = [6]byte(b[24:30])
			}
		}
	}
	if fc1&0x40 != 0 {
		return vProtected
	}
	n := 24
	if fc1&0x03 == 0x03 {
		n += 6 // address 4
	}
	if sub&8 != 0 { // QoS data
		if len(b) < n+2 {
			return vTruncated
		}
		if b[n]&0x80 != 0 { // A-MSDU present: not decoded
			n += 2
			return vNonData
		}
		n += 2
		if fc1&0x80 != 0 { // +HTC
			n += 4
		}
	}
	if len(b) < n+8 {
		return vTruncated
	}
	llc := b[n:]
	if llc[0] != 0xaa || llc[1] != 0xaa || llc[2] != 0x03 {
		return vNonIP
	}
	d.off += n + 8
	return d.etherType(binary.BigEndian.Uint16(llc[6:]), llc[8:])
}

// nflog walks the NFLOG TLVs to the packet payload (NFULA_PAYLOAD, type 9).
func (d *decoder) nflog(b []byte) verdict {
	if len(b) < 4 {
		return vTruncated
	}
	fam := b[0]
	p := 4
	for p+4 <= len(b) {
		l := int(binary.LittleEndian.Uint16(b[p:]))
		typ := binary.LittleEndian.Uint16(b[p+2:]) & 0x7fff
		if l < 4 {
			return vNonIP
		}
		if typ == 9 {
			end := p + l
			if end > len(b) {
				end = len(b)
			}
			d.off += p + 4
			body := b[p+4 : end]
			switch fam {
			case 2:
				return d.ipv4(body)
			case 10:
				return d.ipv6(body)
			}
			return d.ipAny(body)
		}
		p += (l + 3) &^ 3
	}
	return vNonIP
}

// ipLenFromWire returns the IP packet length when the header says 0 (TSO
// and GSO super-segments, IPv6 jumbograms): the rest of the original frame.
func (d *decoder) ipLenFromWire() int { return d.wireLen - d.off }

func (d *decoder) ipv4(b []byte) verdict {
	if len(b) < 20 {
		return vTruncated
	}
	if b[0]>>4 != 4 {
		return vBadIP
	}
	ihl := int(b[0]&0x0f) * 4
	if ihl < 20 {
		return vBadIP
	}
	if len(b) < ihl {
		return vTruncated
	}
	total := int(binary.BigEndian.Uint16(b[2:]))
	if total == 0 {
		total = d.ipLenFromWire()
	} else if w := d.ipLenFromWire(); total > w && d.wireLen > 0 {
		total, d.overWire = w, true // the IP header claims more than the frame held on the wire
	}
	if total < ihl {
		return vBadIP
	}
	frag := binary.BigEndian.Uint16(b[6:])
	if frag&0x3fff != 0 { // MF set or non-zero offset
		return vFragment
	}
	s := d.s
	s.IPv6 = false
	s.TTL = b[8]
	s.IPID = binary.BigEndian.Uint16(b[4:])
	s.DF = frag&0x4000 != 0
	s.IPLen = total
	proto := b[9]
	src := netip.AddrFrom4([4]byte(b[12:16]))
	dst := netip.AddrFrom4([4]byte(b[16:20]))
	d.off += ihl
	if proto == 6 {
		return d.tcp(src, dst, b[ihl:], total-ihl) // transport's first case, without its call
	}
	return d.transport(proto, src, dst, b[ihl:], total-ihl)
}

func (d *decoder) ipv6(b []byte) verdict {
	if len(b) < 40 {
		return vTruncated
	}
	if b[0]>>4 != 6 {
		return vBadIP
	}
	plen := int(binary.BigEndian.Uint16(b[4:]))
	if plen == 0 {
		plen = d.ipLenFromWire() - 40
	} else if w := d.ipLenFromWire() - 40; plen > w && d.wireLen > 0 {
		plen, d.overWire = max(w, 0), true
	}
	s := d.s
	s.IPv6 = true
	s.TTL = b[7]
	s.IPID = 0
	s.DF = false
	s.IPLen = plen + 40
	src := netip.AddrFrom16([16]byte(b[8:24]))
	dst := netip.AddrFrom16([16]byte(b[24:40]))
	next := b[6]
	p := b[40:]
	d.off += 40
	for i := 0; i < 16; i++ { // walk extension headers
		switch next {
		case 0, 43, 60, 135, 139, 140: // hop-by-hop, routing, destination, mobility, HIP, shim6
			if len(p) < 8 {
				return vTruncated
			}
			n := (int(p[1]) + 1) * 8
			if len(p) < n || plen < n {
				return vTruncated
			}
			next = p[0]
			p = p[n:]
			plen -= n
			d.off += n
		case 44: // fragment
			if len(p) < 8 {
				return vTruncated
			}
			if binary.BigEndian.Uint16(p[2:])&0xfff9 != 0 { // offset or M flag
				return vFragment
			}
			next = p[0]
			p = p[8:]
			plen -= 8
			d.off += 8
		case 51: // authentication header
			if len(p) < 8 {
				return vTruncated
			}
			n := (int(p[1]) + 2) * 4
			if len(p) < n || plen < n {
				return vTruncated
			}
			next = p[0]
			p = p[n:]
			plen -= n
			d.off += n
		default:
			return d.transport(next, src, dst, p, plen)
		}
	}
	return vNonTCP
}

// transport handles the IP payload b (captured bytes) whose length per the
// IP header is plen.
func (d *decoder) transport(proto uint8, src, dst netip.Addr, b []byte, plen int) verdict {
	switch proto {
	case 6:
		return d.tcp(src, dst, b, plen)
	case 1, 58: // ICMP errors quoting a TCP segment
		if d.depth == 0 {
			return d.icmp(b, proto == 58, src)
		}
	case 4: // IPv4 in IP
		return d.tunnel(b, d.ipv4)
	case 41: // IPv6 in IP
		return d.tunnel(b, d.ipv6)
	case 47: // GRE (RFC 2784/2890)
		if len(b) < 4 {
			return vTruncated
		}
		flags := binary.BigEndian.Uint16(b)
		if flags&0x0007 != 0 { // only version 0
			return vNonTCP
		}
		n := 4
		if flags&0x8000 != 0 {
			n += 4
		}
		if flags&0x2000 != 0 {
			n += 4
		}
		if flags&0x1000 != 0 {
			n += 4
		}
		t := binary.BigEndian.Uint16(b[2:])
		return d.tunnel(b, func(p []byte) verdict {
			if len(p) < n {
				return vTruncated
			}
			d.off += n
			switch t {
			case etherTEB:
				return d.ether(p[n:])
			case etherIPv4, etherIPv6, etherVLAN, etherQinQ, etherQ9100, etherMPLS, etherMPLSm, etherPPPoE:
				return d.etherType(t, p[n:])
			}
			d.encap = t
			return vUnsupportedEncap
		})
	case 17: // UDP: VXLAN on port 4789 carries Ethernet
		if len(b) < 8 {
			return vNonTCP
		}
		if binary.BigEndian.Uint16(b[2:]) == 4789 && len(b) >= 16 && b[8]&0x08 != 0 {
			return d.tunnel(b, func(p []byte) verdict {
				d.off += 16
				return d.ether(p[16:])
			})
		}
		return vNonTCP
	}
	return vNonTCP
}

func (d *decoder) tunnel(b []byte, f func([]byte) verdict) verdict {
	d.depth++
	if d.depth > 4 {
		return vTunnelTooDeep
	}
	return f(b)
}

func (d *decoder) tcp(src, dst netip.Addr, b []byte, plen int) verdict {
	if len(b) < 20 {
		return vTruncated
	}
	s := d.s
	hl := int(b[12]>>4) * 4
	if hl < 20 || plen < hl {
		return vBadIP
	}
	s.Src = netip.AddrPortFrom(src, binary.BigEndian.Uint16(b[0:]))
	s.Dst = netip.AddrPortFrom(dst, binary.BigEndian.Uint16(b[2:]))
	if k := d.only; k != nil && !((s.Src == k[0] && s.Dst == k[1]) || (s.Src == k[1] && s.Dst == k[0])) {
		// A stub (Reader.OnlyEndpoints): counted as a segment, with no
		// endpoints and nothing else decoded.
		s.Src, s.Dst = netip.AddrPort{}, netip.AddrPort{}
		return vTCP
	}
	s.Seq = seq.Num(binary.BigEndian.Uint32(b[4:]))
	s.Ack = seq.Num(binary.BigEndian.Uint32(b[8:]))
	s.Flags = Flags(b[13])
	s.Window = binary.BigEndian.Uint16(b[14:])
	s.Checksum = binary.BigEndian.Uint16(b[16:])
	s.HdrLen = hl
	s.PayloadLen = plen - hl
	parseOptions(&s.Opts, b, hl)
	return vTCP
}

// parseOptions parses the options of a TCP header b whose header length is hl
// bytes; b may be shorter than hl when the snap length cut it.
func parseOptions(o *Options, b []byte, hl int) {
	if hl == 32 && len(b) >= 32 && binary.BigEndian.Uint32(b[20:]) == 0x0101080a {
		// NOP, NOP, timestamps: the layout RFC 7323 Appendix A
		// recommends and most stacks send on every segment after the
		// handshake; the loop below would read it the same way.
		*o = Options{WScale: -1, TS: true, TSval: binary.BigEndian.Uint32(b[24:]), TSecr: binary.BigEndian.Uint32(b[28:])}
		return
	}
	if hl == 20 {
		// No options (b holds the 20 bytes: tcp checked): what the loop
		// below would leave.
		*o = Options{WScale: -1}
		return
	}
	parseOptionList(o, b, hl)
}

// parseOptionList is parseOptions without its shortcut.
func parseOptionList(o *Options, b []byte, hl int) {
	*o = Options{WScale: -1}
	end := hl
	if end > len(b) {
		end = len(b)
		o.Truncated = true
	}
	p := 20
	for p < end {
		kind := b[p]
		if kind == 0 { // end of option list
			return
		}
		if kind == 1 { // NOP
			p++
			continue
		}
		if p+1 >= end {
			if hl > len(b) {
				o.Truncated = true
			} else {
				o.Malformed = true
			}
			return
		}
		l := int(b[p+1])
		if l < 2 {
			o.Malformed = true
			return
		}
		if p+l > end {
			if p+l <= hl {
				o.Truncated = true
			} else {
				o.Malformed = true
			}
			return
		}
		v := b[p+2 : p+l]
		switch kind {
		case 2:
			if l == 4 {
				o.MSS = binary.BigEndian.Uint16(v)
			}
		case 3:
			if l == 3 {
				o.WScale = int16(v[0])
			}
		case 4:
			o.SACKPerm = true
		case 5:
			n := (l - 2) / 8
			if n > 4 {
				n = 4
			}
			for i := 0; i < n; i++ {
				o.SACK[i] = SACKBlock{seq.Num(binary.BigEndian.Uint32(v[i*8:])), seq.Num(binary.BigEndian.Uint32(v[i*8+4:]))}
			}
			o.NSACK = uint8(n)
		case 8:
			if l == 10 {
				o.TS = true
				o.TSval = binary.BigEndian.Uint32(v)
				o.TSecr = binary.BigEndian.Uint32(v[4:])
			}
		}
		p += l
	}
}
