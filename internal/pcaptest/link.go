package pcaptest

import (
	"encoding/binary"
	"hash/crc32"
)

// MAC is a 6-byte hardware address. The zero MAC means "use the default"
// wherever a builder takes one.
type MAC [6]byte

// Default addresses used when a MAC field is zero.
var (
	DefaultSrcMAC = MAC{0x02, 0, 0, 0, 0, 0x01} // Ethernet source, 802.11 TA, SLL address
	DefaultDstMAC = MAC{0x02, 0, 0, 0, 0, 0x02} // Ethernet destination, 802.11 RA
	DefaultBSSID  = MAC{0x02, 0, 0, 0, 0, 0xbb} // 802.11 address 3
)

func (m MAC) or(def MAC) MAC {
	if m == (MAC{}) {
		return def
	}
	return m
}

// EtherTypes written by the link builders.
const (
	EtherTypeIPv4  = 0x0800
	EtherTypeIPv6  = 0x86DD
	EtherTypeVLAN  = 0x8100 // IEEE 802.1Q customer tag
	EtherTypeQinQ  = 0x88A8 // IEEE 802.1ad service tag
	EtherTypeMPLS  = 0x8847 // MPLS unicast
	ethMinFrameLen = 60     // minimum Ethernet frame without FCS
)

// etherType returns the EtherType for an IP packet from its version nibble.
func etherType(ip []byte) uint16 {
	if len(ip) > 0 && ip[0]>>4 == 6 {
		return EtherTypeIPv6
	}
	return EtherTypeIPv4
}

// Eth describes an Ethernet II header (link type 1). The zero value is an
// untagged frame between DefaultSrcMAC and DefaultDstMAC.
type Eth struct {
	Src, Dst MAC // zero means DefaultSrcMAC / DefaultDstMAC
	// VLANs are 802.1Q tag control fields (PCP, DEI and 12-bit VID), the
	// outermost first; each is written with TPID 0x8100.
	VLANs []uint16
	// QinQ writes the outermost tag with TPID 0x88a8 (802.1ad) instead.
	QinQ bool
	// MPLS are 20-bit labels after the VLAN tags, outermost first (EtherType
	// 0x8847, TTL 64, bottom-of-stack set on the last). Nil means no MPLS.
	MPLS []uint32
	// Pad pads the frame with zeros to the 60-byte Ethernet minimum, as NICs
	// do, so the frame is longer than the IP total length says.
	Pad bool
}

// Frame returns the Ethernet frame carrying ip (IPv4 or IPv6 by its
// version nibble). No FCS is appended.
func (e Eth) Frame(ip []byte) []byte {
	b := make([]byte, 0, 14+4*len(e.VLANs)+4*len(e.MPLS)+len(ip)+ethMinFrameLen)
	b = e.appendHeader(b, etherType(ip))
	b = append(b, ip...)
	if e.Pad {
		for len(b) < ethMinFrameLen {
			b = append(b, 0)
		}
	}
	return b
}

func (e *Eth) appendHeader(b []byte, et uint16) []byte {
	dst, src := e.Dst.or(DefaultDstMAC), e.Src.or(DefaultSrcMAC)
	b = append(b, dst[:]...)
	b = append(b, src[:]...)
	for i, tci := range e.VLANs {
		tpid := uint16(EtherTypeVLAN)
		if i == 0 && e.QinQ {
			tpid = EtherTypeQinQ
		}
		b = binary.BigEndian.AppendUint16(b, tpid)
		b = binary.BigEndian.AppendUint16(b, tci)
	}
	if len(e.MPLS) > 0 {
		b = binary.BigEndian.AppendUint16(b, EtherTypeMPLS)
		for i, l := range e.MPLS {
			w := l<<12 | 64
			if i == len(e.MPLS)-1 {
				w |= 1 << 8
			}
			b = binary.BigEndian.AppendUint32(b, w)
		}
		return b
	}
	return binary.BigEndian.AppendUint16(b, et)
}

// Ethernet returns ip in an Ethernet II frame (link type 1) between the
// default MACs, with one 802.1Q tag per entry of vlans, outermost first.
func Ethernet(ip []byte, vlans ...uint16) []byte { return Eth{VLANs: vlans}.Frame(ip) }

// LinuxSLL returns ip behind a 16-byte Linux "cooked" header (link type
// 113, tcpdump -i any): packet type 0 (to us), ARPHRD_ETHER, DefaultSrcMAC.
func LinuxSLL(ip []byte) []byte {
	b := make([]byte, 0, 16+len(ip))
	b = append(b, 0, 0, 0, 1, 0, 6) // packet type, ARPHRD_ETHER, address length
	b = append(b, DefaultSrcMAC[:]...)
	b = append(b, 0, 0)
	b = binary.BigEndian.AppendUint16(b, etherType(ip))
	return append(b, ip...)
}

// LinuxSLL2 returns ip behind a 20-byte Linux cooked v2 header (link type
// 276) naming interface index ifindex: packet type 0, ARPHRD_ETHER,
// DefaultSrcMAC.
func LinuxSLL2(ip []byte, ifindex uint32) []byte {
	b := make([]byte, 0, 20+len(ip))
	b = binary.BigEndian.AppendUint16(b, etherType(ip))
	b = append(b, 0, 0)
	b = binary.BigEndian.AppendUint32(b, ifindex)
	b = append(b, 0, 1, 0, 6) // ARPHRD_ETHER, packet type, address length
	b = append(b, DefaultSrcMAC[:]...)
	b = append(b, 0, 0)
	return append(b, ip...)
}

// BSD address families for Null (link type 0) frames.
const (
	AFInet         = 2  // IPv4 everywhere
	AFInet6BSD     = 24 // IPv6 on NetBSD and OpenBSD
	AFInet6FreeBSD = 28 // IPv6 on FreeBSD
	AFInet6Darwin  = 30 // IPv6 on macOS
)

// Null returns ip behind the 4-byte address family of link type 0
// (loopback), written in the capturing host's byte order: big-endian if
// bigEndian. family 0 means AFInet for IPv4 and AFInet6Darwin for IPv6.
func Null(ip []byte, family uint32, bigEndian bool) []byte {
	if family == 0 {
		family = AFInet
		if etherType(ip) == EtherTypeIPv6 {
			family = AFInet6Darwin
		}
	}
	b := make([]byte, 4, 4+len(ip))
	if bigEndian {
		binary.BigEndian.PutUint32(b, family)
	} else {
		binary.LittleEndian.PutUint32(b, family)
	}
	return append(b, ip...)
}

// PPP returns ip behind the bare 2-byte PPP protocol field (0x0021 IPv4,
// 0x0057 IPv6) with no address and control bytes, as ns-3's
// PointToPointNetDevice writes link type 9.
func PPP(ip []byte) []byte {
	proto := uint16(0x0021)
	if etherType(ip) == EtherTypeIPv6 {
		proto = 0x0057
	}
	b := binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(ip)), proto)
	return append(b, ip...)
}

// Raw returns a copy of ip: the frame for link types 101 (LinkRaw), 228
// (LinkIPv4) and 229 (LinkIPv6) is the IP packet itself.
func Raw(ip []byte) []byte { return append([]byte(nil), ip...) }

// Dot11 describes an IEEE 802.11 data frame (link type 105) carrying an IP
// packet behind an LLC/SNAP header. The zero value is a non-QoS data frame
// with both DS bits clear between the default addresses.
type Dot11 struct {
	QoS bool  // QoS Data subtype (8) with a 2-byte QoS Control field
	TID uint8 // QoS traffic identifier 0..15; valid iff QoS
	// ToDS and FromDS are the Frame Control DS bits. With both set the frame
	// carries a fourth address, Addr4.
	ToDS, FromDS bool
	Retry        bool // Frame Control Retry bit: a MAC-layer retransmission
	// Protected sets the Frame Control Protected bit. The payload stays in
	// clear so a decoder that ignores the bit is caught decoding it.
	Protected bool
	Duration  uint16 // Duration/ID field in µs
	SeqNum    uint16 // 12-bit 802.11 sequence number
	FragNum   uint8  // 4-bit fragment number
	// RA (address 1), TA (address 2) and BSSID (address 3) default to
	// DefaultDstMAC, DefaultSrcMAC and DefaultBSSID when zero. With ToDS or
	// FromDS set, real frames carry DA or SA in address 3; set BSSID to it.
	RA, TA, BSSID MAC
	Addr4         MAC // written iff ToDS && FromDS
}

// Frame returns the 802.11 frame carrying ip behind LLC/SNAP (AA AA 03
// 00 00 00 + EtherType), without FCS; use AppendFCS to add one.
func (d Dot11) Frame(ip []byte) []byte {
	b := make([]byte, 0, 40+len(ip)+4)
	fc0 := byte(0x08) // type data, subtype 0
	if d.QoS {
		fc0 = 0x88 // subtype 8: QoS data
	}
	var fc1 byte
	if d.ToDS {
		fc1 |= 0x01
	}
	if d.FromDS {
		fc1 |= 0x02
	}
	if d.Retry {
		fc1 |= 0x08
	}
	if d.Protected {
		fc1 |= 0x40
	}
	b = append(b, fc0, fc1)
	b = binary.LittleEndian.AppendUint16(b, d.Duration)
	ra, ta, bssid := d.RA.or(DefaultDstMAC), d.TA.or(DefaultSrcMAC), d.BSSID.or(DefaultBSSID)
	b = append(b, ra[:]...)
	b = append(b, ta[:]...)
	b = append(b, bssid[:]...)
	b = binary.LittleEndian.AppendUint16(b, d.SeqNum<<4|uint16(d.FragNum&0x0f))
	if d.ToDS && d.FromDS {
		b = append(b, d.Addr4[:]...)
	}
	if d.QoS {
		b = append(b, d.TID&0x0f, 0)
	}
	b = append(b, 0xAA, 0xAA, 0x03, 0, 0, 0)
	b = binary.BigEndian.AppendUint16(b, etherType(ip))
	return append(b, ip...)
}

// Dot11Ack returns an 802.11 ACK control frame (10 bytes) addressed to ra
// (zero means DefaultDstMAC), without FCS. It carries no IP packet.
func Dot11Ack(ra MAC) []byte {
	ra = ra.or(DefaultDstMAC)
	b := []byte{0xd4, 0x00, 0x00, 0x00}
	return append(b, ra[:]...)
}

// AppendFCS returns frame followed by its 4-byte 802.11/Ethernet frame
// check sequence (CRC-32, little-endian).
func AppendFCS(frame []byte) []byte {
	out := make([]byte, len(frame), len(frame)+4)
	copy(out, frame)
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(frame))
}

// RadiotapLen is the length in bytes of the header Radiotap writes.
const RadiotapLen = 24

// Radiotap returns the 802.11 frame dot11 (without FCS) behind a 24-byte
// radiotap header (link type 127) with fields TSFT (0), Flags, Rate (54
// Mb/s), Channel (2437 MHz, 2 GHz OFDM), antenna signal (-40 dBm) and
// noise (-95 dBm). If fcs, the Flags field says "FCS at end" and the
// 4-byte FCS is appended.
func Radiotap(dot11 []byte, fcs bool) []byte {
	b := make([]byte, 0, RadiotapLen+len(dot11)+4)
	b = append(b, 0, 0) // version, pad
	b = binary.LittleEndian.AppendUint16(b, RadiotapLen)
	b = binary.LittleEndian.AppendUint32(b, 1<<0|1<<1|1<<2|1<<3|1<<5|1<<6)
	b = binary.LittleEndian.AppendUint64(b, 0) // TSFT, 8-aligned at offset 8
	var flags byte
	if fcs {
		flags = 0x10
	}
	b = append(b, flags, 108) // Flags; Rate in 500 kb/s units
	b = binary.LittleEndian.AppendUint16(b, 2437)
	b = binary.LittleEndian.AppendUint16(b, 0x0080|0x0040)
	b = append(b, byte(0xd8), byte(0xa1)) // -40 dBm, -95 dBm as int8
	if fcs {
		return append(b, AppendFCS(dot11)...)
	}
	return append(b, dot11...)
}

// PrismLen is the length in bytes of the AVS/Prism monitor header.
const PrismLen = 144

// Prism returns the 802.11 frame dot11 behind a 144-byte Prism monitor
// header (link type 119, little-endian, device "wlan0"): message code
// 0x44 and ten type-1 items (host time, MAC time, channel 6, RSSI, SQ,
// signal, noise, rate 108, istx 0, frame length len(dot11)). Append an FCS
// to dot11 first if the decoder under test expects one.
func Prism(dot11 []byte) []byte {
	b := make([]byte, 0, PrismLen+len(dot11))
	b = binary.LittleEndian.AppendUint32(b, 0x44)
	b = binary.LittleEndian.AppendUint32(b, PrismLen)
	var dev [16]byte
	copy(dev[:], "wlan0")
	b = append(b, dev[:]...)
	values := []uint32{0, 0, 6, 0, 0, 0, 0, 108, 0, uint32(len(dot11))}
	for i, v := range values {
		b = binary.LittleEndian.AppendUint32(b, uint32(i+1)<<16|0x44) // DID
		b = binary.LittleEndian.AppendUint16(b, 0)                    // status: supplied
		b = binary.LittleEndian.AppendUint16(b, 4)                    // length
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return append(b, dot11...)
}
