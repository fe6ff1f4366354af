package capture

import (
	"encoding/binary"
	"net/netip"

	"github.com/tcpviz/tcpviz/internal/seq"
)

// etherRun frames and decodes runs of a plain Ethernet pcap's common
// records in one tight loop: the fast path of Reader.NextBatch
// (Reader.nextEther) and of split reading's decoding (FrameBatch.decode).
// A common record is an untunnelled, unfragmented IPv4 TCP segment with a
// 20-byte IP header, an IP length (not 0) within the original frame and
// its 54 bytes of headers captured, in a record whose time is normalised
// (under a second of nanoseconds), whose captured length is at most lim
// and whose original length is neither below the captured one nor past
// maxWireLen. The segment made of it is what Reader.next makes (every
// field next writes, the same values); anything else is left to the
// general path.
type etherRun struct {
	big, nanos bool // the pcap's byte order and time unit
	lim        int  // the longest record taken
	// The frame before the run's first: its number, time and
	// Segment.FineTime; and the file offset of the run's first record.
	// decode moves them past the records it takes.
	frame int64
	last  Timestamp
	fine  bool
	off   int64
	// backwards counts the times decode saw going backwards (for
	// Stats.TimeBackwards).
	backwards int64
}

// decode fills segs from the records at the start of recs (whole pcap
// records: header and data), one segment per record, and stops before
// the first that is not common, at the end of recs, or when segs is
// full. It returns how many records it took and how many bytes of recs
// they span.
func (e *etherRun) decode(segs []Segment, recs []byte) (n, size int) {
	big, nanos, lim := e.big, e.nanos, e.lim
	frame, last, fine, off, backwards := e.frame, e.last, e.fine, e.off, e.backwards
	rest := recs // the records from the next on
	for ; n < len(segs); n++ {
		// 16 + 54 bytes: the record header, then the Ethernet, IPv4 and
		// TCP headers.
		if len(rest) < 16+54 {
			break
		}
		sec, nsec, capLen, wireLen := recordHeader(rest[:16], big, nanos)
		if nsec >= 1e9 || capLen < 54 || capLen > lim || len(rest)-16 < capLen || wireLen < capLen || wireLen > maxWireLen {
			break
		}
		data := rest[16 : 16+capLen]
		f := (*[54]byte)(data)
		total := int(binary.BigEndian.Uint16(f[14+2:]))
		frag := binary.BigEndian.Uint16(f[14+6:])
		hl := int(f[34+12]>>4) * 4
		// ether, ipv4 and tcp's checks: IPv4, a 20-byte IP header, an IP
		// length within the original frame (0, or more, is next's), not
		// a fragment, TCP, and a TCP header within the IP length.
		if binary.BigEndian.Uint16(f[12:]) != etherIPv4 || f[14] != 0x45 || f[14+9] != 6 ||
			frag&0x3fff != 0 || total > wireLen-14 || hl < 20 || total-20 < hl {
			break
		}
		ts := Timestamp(sec*1e9 + nsec)
		if ts < last {
			backwards++
		}
		last = ts
		if !fine && int64(ts)%int64(fineTick) != 0 {
			fine = true
		}
		s := &segs[n]
		s.Time = ts
		s.Frame = frame + int64(n) + 1
		s.Offset = off
		s.Seq = seq.Num(binary.BigEndian.Uint32(f[34+4:]))
		s.Ack = seq.Num(binary.BigEndian.Uint32(f[34+8:]))
		s.Flags = Flags(f[34+13])
		s.Window = binary.BigEndian.Uint16(f[34+14:])
		s.Checksum = binary.BigEndian.Uint16(f[34+16:])
		s.IPID = binary.BigEndian.Uint16(f[14+4:])
		s.ICMP = ICMPNone
		s.TTL = f[14+8]
		s.IPv6 = false
		s.DF = frag&0x4000 != 0
		s.WiFi = false
		s.Retry = false
		s.FineTime = fine
		s.RadioSignal = false
		s.SeqCtl = 0
		s.SA = [6]byte(f[6:12])
		s.PayloadLen = total - 20 - hl
		s.CapLen = capLen
		s.WireLen = wireLen
		s.Iface = 0
		s.Src = netip.AddrPortFrom(netip.AddrFrom4([4]byte(f[14+12:14+16])), binary.BigEndian.Uint16(f[34:]))
		s.Dst = netip.AddrPortFrom(netip.AddrFrom4([4]byte(f[14+16:14+20])), binary.BigEndian.Uint16(f[34+2:]))
		// parseOptions, its shortcuts without its call.
		o := &s.Opts
		switch {
		case hl == 32 && capLen >= 34+32 && binary.BigEndian.Uint32(data[34+20:]) == 0x0101080a:
			t := (*[12]byte)(data[34+20:])
			*o = Options{}
			o.WScale, o.TS = -1, true
			o.TSval, o.TSecr = binary.BigEndian.Uint32(t[4:]), binary.BigEndian.Uint32(t[8:])
		case hl == 20:
			*o = Options{}
			o.WScale = -1
		default:
			parseOptionList(o, data[34:], hl)
		}
		s.IPLen = total
		s.HdrLen = hl
		rest = rest[16+capLen:]
		off += int64(16 + capLen)
	}
	e.frame, e.last, e.fine, e.off, e.backwards = frame+int64(n), last, fine, off, backwards
	return n, len(recs) - len(rest)
}
