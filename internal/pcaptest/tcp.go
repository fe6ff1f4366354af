package pcaptest

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// Flags are the TCP header flag bits (RFC 9293 §3.1, RFC 3168 §6.1 for ECE
// and CWR), combinable with |.
type Flags uint8

// TCP flag bits, as they sit in byte 13 of the TCP header.
const (
	FIN Flags = 1 << iota
	SYN
	RST
	PSH
	ACK
	URG
	ECE
	CWR
)

// IP protocol numbers used for IPv6 extension headers and TCP.
const (
	ProtoHopByHop = 0
	ProtoTCP      = 6
	ProtoRouting  = 43
	ProtoFragment = 44
	ProtoDstOpts  = 60
)

// IPv6Ext is one IPv6 extension header placed between the IPv6 header and
// TCP, in slice order.
type IPv6Ext struct {
	// Proto is the header type: ProtoHopByHop, ProtoDstOpts, ProtoRouting
	// or ProtoFragment.
	Proto uint8
	// Data is the body after the 2-byte Next Header/Hdr Ext Len prefix. For
	// hop-by-hop and destination options it is option TLVs and is padded
	// with Pad1/PadN to a multiple of 8 bytes; for routing it is padded with
	// zeros. Nil Data gives the smallest (8-byte) header. Fragment ignores it.
	Data []byte
	// FragOffset (in 8-byte units), MoreFrags and FragID fill a Fragment
	// header (RFC 8200 §4.5); other types ignore them.
	FragOffset uint16
	MoreFrags  bool
	FragID     uint32
}

// TCP describes one TCP segment inside an IPv4 or IPv6 packet. The zero
// value of every option field means "option absent". The IP version follows
// the address family of Src and Dst, which must match; IPv4-mapped IPv6
// addresses are sent as IPv4.
type TCP struct {
	Src, Dst netip.AddrPort
	Seq, Ack uint32 // absolute sequence and acknowledgment numbers
	Flags    Flags
	Window   uint16 // raw window field, before any scaling
	Urgent   uint16 // urgent pointer

	// TCP options, written in the order MSS, SACK-permitted/timestamps,
	// window scale, SACK, RawOptions, as Linux does; NOPs keep them aligned.
	MSS      uint16 // maximum segment size in bytes; 0 = absent
	WS       bool   // window scale option present
	WScale   uint8  // window scale shift count (RFC 7323 §2.3); valid iff WS
	SACKPerm bool   // SACK-permitted option present (RFC 2018)
	TS       bool   // timestamps option present (RFC 7323 §3)
	TSval    uint32 // valid iff TS
	TSecr    uint32 // valid iff TS
	// SACK holds SACK blocks as absolute [left, right) edges (RFC 2018 §3);
	// at most 4 fit, 3 with TS. Nil means no SACK option.
	SACK [][2]uint32
	// RawOptions are appended verbatim after the options above and the
	// whole is padded with EOL (0) to a multiple of 4 bytes.
	RawOptions []byte

	// PayloadLen is the payload length in bytes. Payload byte i is
	// byte(Seq+i), so retransmitted bytes equal the original ones.
	PayloadLen int
	// Payload, if non-nil, is sent instead and PayloadLen is ignored.
	Payload []byte

	TTL  uint8  // IPv4 TTL or IPv6 hop limit; 0 means 64
	TOS  uint8  // IPv4 TOS or IPv6 traffic class, including the ECN bits
	IPID uint16 // IPv4 identification; also the IPv6 fragment id in Fragments
	DF   bool   // IPv4 don't-fragment bit
	// IPOptions are IPv4 options, padded with EOL (0) to a multiple of 4
	// bytes; at most 40 bytes after padding.
	IPOptions []byte
	// IPv6Ext are IPv6 extension headers in front of TCP; ignored for IPv4.
	IPv6Ext []IPv6Ext
	// FlowLabel is the 20-bit IPv6 flow label; ignored for IPv4.
	FlowLabel uint32
}

// SeqLen returns the sequence space t occupies: its payload length plus one
// each for SYN and FIN (RFC 9293 §3.4).
func (t TCP) SeqLen() uint32 {
	n := uint32(t.payloadLen())
	if t.Flags&SYN != 0 {
		n++
	}
	if t.Flags&FIN != 0 {
		n++
	}
	return n
}

func (t *TCP) payloadLen() int {
	if t.Payload != nil {
		return len(t.Payload)
	}
	return t.PayloadLen
}

// PayloadBytes returns the payload that IP writes: Payload, or PayloadLen
// bytes of the byte(Seq+i) pattern.
func (t TCP) PayloadBytes() []byte {
	if t.Payload != nil {
		return t.Payload
	}
	return appendPattern(nil, t.Seq, t.PayloadLen)
}

// IsIPv6 reports whether t is carried over IPv6 (Src is an IPv6 address
// that is not an IPv4-mapped one).
func (t TCP) IsIPv6() bool { return !t.Src.Addr().Unmap().Is4() }

// IP returns the IPv4 or IPv6 packet carrying t, with correct IPv4 header
// and TCP checksums. It panics if the addresses mix families or the options
// do not fit.
func (t TCP) IP() []byte { return t.appendIP(nil, true) }

// TCPHeaderLen returns the TCP header length in bytes, options included.
func (t TCP) TCPHeaderLen() int { return t.headerLen() }

// headerLen is TCPHeaderLen without copying t; it mirrors appendOptions.
func (t *TCP) headerLen() int {
	n := 0
	if t.MSS != 0 {
		n += 4
	}
	if t.TS {
		n += 12
	} else if t.SACKPerm {
		n += 4
	}
	if t.WS {
		n += 4
	}
	if t.SACK != nil {
		n += 4 + 8*len(t.SACK)
	}
	n += len(t.RawOptions)
	return 20 + (n+3)&^3
}

// patternTable holds byte(i) for i in 0..len-1: payload starting at
// sequence number s is patternTable[s%256:][:n] for n up to 65536.
var patternTable = func() []byte {
	b := make([]byte, 65536+256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

func appendPattern(b []byte, seq uint32, n int) []byte {
	for n > 0 {
		k := min(n, 65536)
		b = append(b, patternTable[seq&0xff:][:k]...)
		seq += uint32(k)
		n -= k
	}
	return b
}

// appendOptions appends the TCP options, padded to a multiple of 4 bytes.
func (t *TCP) appendOptions(b []byte) []byte {
	start := len(b)
	if t.MSS != 0 {
		b = append(b, 2, 4, byte(t.MSS>>8), byte(t.MSS))
	}
	switch {
	case t.SACKPerm && t.TS:
		b = append(b, 4, 2, 8, 10)
		b = binary.BigEndian.AppendUint32(b, t.TSval)
		b = binary.BigEndian.AppendUint32(b, t.TSecr)
	case t.TS:
		b = append(b, 1, 1, 8, 10)
		b = binary.BigEndian.AppendUint32(b, t.TSval)
		b = binary.BigEndian.AppendUint32(b, t.TSecr)
	case t.SACKPerm:
		b = append(b, 1, 1, 4, 2)
	}
	if t.WS {
		b = append(b, 1, 3, 3, t.WScale)
	}
	if t.SACK != nil {
		b = append(b, 1, 1, 5, byte(2+8*len(t.SACK)))
		for _, blk := range t.SACK {
			b = binary.BigEndian.AppendUint32(b, blk[0])
			b = binary.BigEndian.AppendUint32(b, blk[1])
		}
	}
	b = append(b, t.RawOptions...)
	for (len(b)-start)%4 != 0 {
		b = append(b, 0)
	}
	if len(b)-start > 40 {
		panic(fmt.Sprintf("pcaptest: %d bytes of TCP options, at most 40 fit", len(b)-start))
	}
	return b
}

// appendIP appends the IP packet carrying t. If withPayload is false the
// payload bytes are left out (the checksums still cover them), which lets
// the benchmark writers build snaplen-cut frames without copying payload.
func (t *TCP) appendIP(b []byte, withPayload bool) []byte {
	src, dst := t.Src.Addr(), t.Dst.Addr()
	if src.Unmap().Is4() != dst.Unmap().Is4() {
		panic(fmt.Sprintf("pcaptest: mixed address families %v -> %v", src, dst))
	}
	ttl := t.TTL
	if ttl == 0 {
		ttl = 64
	}
	plen := t.payloadLen()
	start := len(b)
	var ipHdrEnd int // offset of the TCP header
	if !t.IsIPv6() {
		optLen := (len(t.IPOptions) + 3) &^ 3
		if optLen > 40 {
			panic(fmt.Sprintf("pcaptest: %d bytes of IPv4 options, at most 40 fit", optLen))
		}
		hl := 20 + optLen
		tcpLen := t.headerLen()
		flags := uint16(0)
		if t.DF {
			flags = 0x4000
		}
		b = append(b, 0x40|byte(hl/4), t.TOS)
		b = binary.BigEndian.AppendUint16(b, uint16(hl+tcpLen+plen))
		b = binary.BigEndian.AppendUint16(b, t.IPID)
		b = binary.BigEndian.AppendUint16(b, flags)
		b = append(b, ttl, ProtoTCP, 0, 0)
		a4, d4 := src.Unmap().As4(), dst.Unmap().As4()
		b = append(b, a4[:]...)
		b = append(b, d4[:]...)
		b = append(b, t.IPOptions...)
		for len(b)-start < hl {
			b = append(b, 0)
		}
		binary.BigEndian.PutUint16(b[start+10:], checksum(b[start:start+hl], 0))
		ipHdrEnd = len(b)
	} else {
		b = binary.BigEndian.AppendUint32(b, 6<<28|uint32(t.TOS)<<20|t.FlowLabel&0xfffff)
		b = append(b, 0, 0) // payload length, set below
		next := byte(ProtoTCP)
		if len(t.IPv6Ext) > 0 {
			next = t.IPv6Ext[0].Proto
		}
		b = append(b, next, ttl)
		a16, d16 := src.As16(), dst.As16()
		b = append(b, a16[:]...)
		b = append(b, d16[:]...)
		for i, x := range t.IPv6Ext {
			next := byte(ProtoTCP)
			if i+1 < len(t.IPv6Ext) {
				next = t.IPv6Ext[i+1].Proto
			}
			b = x.append(b, next)
		}
		ipHdrEnd = len(b)
		binary.BigEndian.PutUint16(b[start+4:], uint16(ipHdrEnd-start-40+t.headerLen()+plen))
	}

	// TCP header.
	tcp := len(b)
	b = binary.BigEndian.AppendUint16(b, t.Src.Port())
	b = binary.BigEndian.AppendUint16(b, t.Dst.Port())
	b = binary.BigEndian.AppendUint32(b, t.Seq)
	b = binary.BigEndian.AppendUint32(b, t.Ack)
	b = append(b, 0, byte(t.Flags))
	b = binary.BigEndian.AppendUint16(b, t.Window)
	b = append(b, 0, 0) // checksum
	b = binary.BigEndian.AppendUint16(b, t.Urgent)
	b = t.appendOptions(b)
	hlen := len(b) - tcp
	b[tcp+12] = byte(hlen/4) << 4

	// Checksum over pseudo-header, TCP header and payload (RFC 9293 §3.1,
	// RFC 8200 §8.1).
	var sum uint32
	if !t.IsIPv6() {
		sum = sumWords(b[start+12:start+20], 0)
	} else {
		sum = sumWords(b[start+8:start+40], 0)
	}
	tcpLen := hlen + plen
	sum += ProtoTCP + uint32(tcpLen)
	sum = sumWords(b[tcp:], sum)
	var payload []byte
	if t.Payload != nil {
		payload = t.Payload
	} else {
		payload = patternSlice(t.Seq, plen)
	}
	if len(payload) == plen {
		sum = sumWords(payload, sum)
	} else { // pattern longer than one table: sum it in pieces
		sum = sumPattern(t.Seq, plen, sum)
	}
	binary.BigEndian.PutUint16(b[tcp+16:], fold(sum))
	if withPayload {
		if t.Payload != nil {
			b = append(b, t.Payload...)
		} else {
			b = appendPattern(b, t.Seq, plen)
		}
	}
	return b
}

// patternSlice returns the pattern payload without copying if it fits in
// patternTable, or nil.
func patternSlice(seq uint32, n int) []byte {
	if n > 65536 {
		return nil
	}
	return patternTable[seq&0xff:][:n]
}

// sumPattern adds the pattern payload of n bytes starting at seq to sum,
// 64 KiB at a time (each piece has even length so words stay aligned).
func sumPattern(seq uint32, n int, sum uint32) uint32 {
	for n > 0 {
		k := min(n, 65536)
		sum = sumWords(patternTable[seq&0xff:][:k], sum)
		sum = uint32(fold(sum) ^ 0xffff) // keep the partial sum from overflowing
		seq += uint32(k)
		n -= k
	}
	return sum
}

// append writes one extension header whose Next Header field is next.
func (x IPv6Ext) append(b []byte, next byte) []byte {
	if x.Proto == ProtoFragment {
		b = append(b, next, 0)
		fo := x.FragOffset << 3
		if x.MoreFrags {
			fo |= 1
		}
		b = binary.BigEndian.AppendUint16(b, fo)
		return binary.BigEndian.AppendUint32(b, x.FragID)
	}
	body := 2 + len(x.Data)
	total := (body + 7) &^ 7
	b = append(b, next, byte(total/8-1))
	b = append(b, x.Data...)
	switch pad := total - body; {
	case pad == 0:
	case pad == 1 || x.Proto == ProtoRouting:
		b = append(b, make([]byte, pad)...) // Pad1 is a zero byte
	default:
		b = append(b, 1, byte(pad-2)) // PadN
		b = append(b, make([]byte, pad-2)...)
	}
	return b
}

// Fragments returns the IP packet carrying t split into fragments of at
// most fragLen bytes of IP payload each (rounded down to a multiple of 8).
// IPv4 fragments share t.IPID and set MF/offset in the IPv4 header; IPv6
// fragments get a Fragment header with id t.IPID after t.IPv6Ext, which
// all stay in the unfragmentable part. Only the
// first fragment holds the TCP header, the way "fragments counted, not
// guessed" tests need them. It panics if fragLen < 8.
func (t TCP) Fragments(fragLen int) [][]byte {
	fragLen &^= 7
	if fragLen < 8 {
		panic("pcaptest: fragment payload length below 8 bytes")
	}
	if t.IsIPv6() {
		if len(t.IPv6Ext) > 0 && t.IPv6Ext[len(t.IPv6Ext)-1].Proto == ProtoFragment {
			panic("pcaptest: Fragments on a packet that already has a Fragment header")
		}
		whole := t.IP()
		// All of t.IPv6Ext stay in the unfragmentable part; the Next Header
		// byte of the last of them (or of the IPv6 header) becomes Fragment.
		lastNext, hdrEnd := 6, 40
		for range t.IPv6Ext {
			lastNext = hdrEnd
			hdrEnd += (int(whole[hdrEnd+1]) + 1) * 8
		}
		payload := whole[hdrEnd:]
		var out [][]byte
		for off := 0; off < len(payload); off += fragLen {
			end := min(off+fragLen, len(payload))
			p := append([]byte(nil), whole[:hdrEnd]...)
			p[lastNext] = ProtoFragment
			p = IPv6Ext{Proto: ProtoFragment, FragOffset: uint16(off / 8), MoreFrags: end < len(payload), FragID: uint32(t.IPID)}.append(p, ProtoTCP)
			p = append(p, payload[off:end]...)
			binary.BigEndian.PutUint16(p[4:], uint16(len(p)-40))
			out = append(out, p)
		}
		return out
	}
	whole := t.IP()
	hl := int(whole[0]&0x0f) * 4
	payload := whole[hl:]
	var out [][]byte
	for off := 0; off < len(payload); off += fragLen {
		end := min(off+fragLen, len(payload))
		p := append([]byte(nil), whole[:hl]...)
		p = append(p, payload[off:end]...)
		binary.BigEndian.PutUint16(p[2:], uint16(len(p)))
		fo := uint16(off / 8)
		if t.DF {
			fo |= 0x4000
		}
		if end < len(payload) {
			fo |= 0x2000
		}
		binary.BigEndian.PutUint16(p[6:], fo)
		p[10], p[11] = 0, 0
		binary.BigEndian.PutUint16(p[10:], checksum(p[:hl], 0))
		out = append(out, p)
	}
	return out
}

// sumWords adds b as big-endian 16-bit words (a trailing odd byte is padded
// with zero) to sum, the RFC 1071 way, 8 bytes at a time.
func sumWords(b []byte, sum uint32) uint32 {
	s := uint64(sum)
	for len(b) >= 8 {
		v := binary.BigEndian.Uint64(b)
		s += v>>48 + v>>32&0xffff + v>>16&0xffff + v&0xffff
		b = b[8:]
	}
	for len(b) >= 2 {
		s += uint64(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint64(b[0]) << 8
	}
	for s>>32 != 0 {
		s = s&0xffffffff + s>>32
	}
	return uint32(s)
}

// fold folds sum to 16 bits and returns its one's complement.
func fold(sum uint32) uint16 {
	for sum>>16 != 0 {
		sum = sum&0xffff + sum>>16
	}
	return ^uint16(sum)
}

// checksum is the Internet checksum of b with an initial partial sum.
func checksum(b []byte, sum uint32) uint16 { return fold(sumWords(b, sum)) }
