package capture

import (
	"encoding/binary"
	"net/netip"
)

// LinkFrame is what one frame's link-layer and IP headers say of who sent
// it on the capture's link (ParseLinkFrame): the link-layer source and
// destination addresses, and for an untunnelled IP packet its addresses,
// TTL and protocol, or for an ARP packet its sender. It is the evidence of
// docs/metrics.md#pep's link-address criterion: which link address speaks
// for which IP address, at which TTL.
type LinkFrame struct {
	// Src and Dst are the link-layer source and destination addresses
	// (Ethernet; on 802.11 the frame's source and destination stations,
	// SA and DA, by its To/From DS bits; Linux cooked captures give the
	// source only). Valid iff SrcOK, DstOK.
	Src, Dst     [6]byte
	SrcOK, DstOK bool
	// Broadcast reports a link-layer broadcast destination
	// (ff:ff:ff:ff:ff:ff, or a Linux cooked capture's packet type
	// "broadcast").
	Broadcast bool
	// IP reports an IPv4 or IPv6 packet directly in the link frame (after
	// VLAN tags or LLC/SNAP); IPSrc, IPDst, TTL (IPv6: hop limit) and
	// Proto (IPv6: the first next-header) are valid iff IP.
	IP           bool
	IPSrc, IPDst netip.Addr
	TTL, Proto   uint8
	// ARP reports an Ethernet/IPv4 ARP packet: ARPOp (1 request, 2
	// reply), its sender hardware and protocol addresses.
	ARP       bool
	ARPOp     uint16
	ARPSender netip.Addr
	ARPHW     [6]byte
	// ICMPv6Type is the type of an ICMPv6 message directly after an IPv6
	// header (Proto 58), 0 otherwise: 135 is a neighbor solicitation,
	// IPv6's ARP request (RFC 4861 §4.3).
	ICMPv6Type uint8
}

// ParseLinkFrame fills lf from frame data of link type link (pcap
// LINKTYPE_*) and reports whether the frame has a link-layer source address
// to tell: Ethernet, 802.11 data frames (bare, radiotap, Prism, AVS) and
// Linux cooked captures v1 and v2. IP and ARP are parsed past VLAN tags
// (Ethernet) or LLC/SNAP (802.11); tunnels, MPLS and PPPoE are not entered
// (their inner addresses are not the link's). Truncated headers leave the
// fields they would fill unset.
func ParseLinkFrame(link int, data []byte, lf *LinkFrame) bool {
	*lf = LinkFrame{}
	switch link {
	case LinkEthernet:
		if len(data) < 14 {
			return false
		}
		copy(lf.Dst[:], data[0:6])
		copy(lf.Src[:], data[6:12])
		lf.SrcOK, lf.DstOK = true, true
		lf.Broadcast = lf.Dst == [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
		lf.payload(binary.BigEndian.Uint16(data[12:]), data[14:])
		return true
	case LinkLinuxSLL:
		// Packet type, ARPHRD type, address length, 8 address bytes,
		// protocol.
		if len(data) < 16 || binary.BigEndian.Uint16(data[2:]) != 1 || binary.BigEndian.Uint16(data[4:]) != 6 {
			return false // not an Ethernet address
		}
		copy(lf.Src[:], data[6:12])
		lf.SrcOK = true
		lf.Broadcast = binary.BigEndian.Uint16(data[0:]) == 1
		lf.payload(binary.BigEndian.Uint16(data[14:]), data[16:])
		return true
	case LinkLinuxSLL2:
		// Protocol, reserved, interface index, ARPHRD type, packet type,
		// address length, 8 address bytes.
		if len(data) < 20 || binary.BigEndian.Uint16(data[8:]) != 1 || data[11] != 6 {
			return false
		}
		copy(lf.Src[:], data[12:18])
		lf.SrcOK = true
		lf.Broadcast = data[10] == 1
		lf.payload(binary.BigEndian.Uint16(data[0:]), data[20:])
		return true
	case LinkIEEE80211:
		return lf.wifi(data)
	case LinkRadiotap:
		if len(data) < 4 {
			return false
		}
		n := int(binary.LittleEndian.Uint16(data[2:]))
		if n < 8 || n > len(data) {
			return false
		}
		return lf.wifi(data[n:])
	case LinkPrism, LinkAVS:
		if len(data) < 8 {
			return false
		}
		n := int(binary.LittleEndian.Uint32(data[4:]))
		if link == LinkAVS {
			n = int(binary.BigEndian.Uint32(data[4:]))
		}
		if n < 8 || n > len(data) {
			return false
		}
		return lf.wifi(data[n:])
	}
	return false
}

// wifi fills lf from an 802.11 data frame: SA and DA by the To/From DS
// bits (IEEE 802.11-2020 §9.3.2.1 Table 9-30), then LLC/SNAP.
func (lf *LinkFrame) wifi(b []byte) bool {
	if len(b) < 24 {
		return false
	}
	fc0, fc1 := b[0], b[1]
	if (fc0>>2)&3 != 2 || (fc0>>4)&4 != 0 { // not data, or null data
		return false
	}
	a1, a2, a3 := b[4:10], b[10:16], b[16:22]
	var sa, da []byte
	n := 24
	switch fc1 & 0x03 { // ToDS | FromDS<<1
	case 0: // IBSS, or station to station
		da, sa = a1, a2
	case 1: // to the distribution system
		da, sa = a3, a2
	case 2: // from the distribution system
		da, sa = a1, a3
	case 3: // mesh / WDS: address 4 is SA
		if len(b) < 30 {
			return false
		}
		da, sa = a3, b[24:30]
		n = 30
	}
	copy(lf.Src[:], sa)
	copy(lf.Dst[:], da)
	lf.SrcOK, lf.DstOK = true, true
	lf.Broadcast = lf.Dst == [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if fc1&0x40 != 0 { // protected: the payload is not readable
		return true
	}
	if (fc0>>4)&8 != 0 { // QoS data
		if len(b) < n+2 || b[n]&0x80 != 0 { // A-MSDU: not entered
			return true
		}
		n += 2
		if fc1&0x80 != 0 { // +HTC
			n += 4
		}
	}
	if len(b) < n+8 {
		return true
	}
	llc := b[n:]
	if llc[0] == 0xaa && llc[1] == 0xaa && llc[2] == 0x03 {
		lf.payload(binary.BigEndian.Uint16(llc[6:]), llc[8:])
	}
	return true
}

// payload fills the IP or ARP fields from EtherType t and its payload b,
// past VLAN tags.
func (lf *LinkFrame) payload(t uint16, b []byte) {
	for t == etherVLAN || t == etherQinQ || t == etherQ9100 {
		if len(b) < 4 {
			return
		}
		t, b = binary.BigEndian.Uint16(b[2:]), b[4:]
	}
	switch t {
	case etherIPv4:
		if len(b) < 20 || b[0]>>4 != 4 {
			return
		}
		lf.IP, lf.TTL, lf.Proto = true, b[8], b[9]
		lf.IPSrc = netip.AddrFrom4([4]byte(b[12:16]))
		lf.IPDst = netip.AddrFrom4([4]byte(b[16:20]))
	case etherIPv6:
		if len(b) < 40 || b[0]>>4 != 6 {
			return
		}
		lf.IP, lf.TTL, lf.Proto = true, b[7], b[6]
		lf.IPSrc = netip.AddrFrom16([16]byte(b[8:24]))
		lf.IPDst = netip.AddrFrom16([16]byte(b[24:40]))
		if lf.Proto == 58 && len(b) > 40 { // ICMPv6 right after the header
			lf.ICMPv6Type = b[40]
		}
	case 0x0806: // ARP, Ethernet/IPv4 only
		if len(b) < 28 || binary.BigEndian.Uint16(b[0:]) != 1 || binary.BigEndian.Uint16(b[2:]) != etherIPv4 || b[4] != 6 || b[5] != 4 {
			return
		}
		lf.ARP, lf.ARPOp = true, binary.BigEndian.Uint16(b[6:])
		copy(lf.ARPHW[:], b[8:14])
		lf.ARPSender = netip.AddrFrom4([4]byte(b[14:18]))
	}
}
