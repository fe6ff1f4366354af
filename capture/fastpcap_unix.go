//go:build unix

package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"

	"github.com/tcpviz/tcpviz/internal/seq"
)

// mappedPcap reads classic pcap records straight out of a windowReader's
// buffer: a record that lies inside the current window is returned as a
// slice of it (no copy); one that straddles two windows is copied. It
// follows the rules and messages of streamPcap, which reads the same
// format from a stream (header checks, "capture length exceeds snap
// length"; a record with more captured than original bytes is returned as
// it is, for Reader.next to bound), so a file reads the same either way. A file that shrinks while it is read ends
// with ErrFileChanged (windowReader.mapAt).
type mappedPcap struct {
	w       *windowReader
	big     bool   // big-endian headers
	nanos   bool   // nanosecond timestamps
	snaplen uint32 // as the header says
	maxCap  int    // pcapgo's max(snaplen cap, 256 KiB)
	link    int    // link type from the header
	buf     []byte // a record that straddles two windows
}

// fastPcap returns a mappedPcap when in is a mapped file holding classic
// pcap (its magic already checked by the caller); ok is false otherwise.
func fastPcap(in peeker) (p *mappedPcap, ok bool, err error) {
	w, isMapped := in.(*windowReader)
	if !isMapped {
		return nil, false, nil
	}
	return newMappedPcap(w)
}

// newMappedPcap reads the 24-byte global header from w. ok is false when w
// does not hold a classic pcap header (the caller then uses pcapgo).
func newMappedPcap(w *windowReader) (*mappedPcap, bool, error) {
	h, err := w.take(24, nil)
	if err != nil {
		return nil, true, err
	}
	p := &mappedPcap{w: w}
	var ok bool
	if p.big, p.nanos, ok = pcapMagic(h); !ok {
		return nil, false, nil
	}
	if v := p.u16(h[4:]); v != 2 {
		return nil, true, fmt.Errorf("Unknown major version %d", v)
	}
	if v := p.u16(h[6:]); v != 4 {
		return nil, true, fmt.Errorf("Unknown minor version %d", v)
	}
	p.snaplen = p.u32(h[16:])
	p.link = int(p.u32(h[20:]))
	p.maxCap = max(int(p.snaplen), MaxRecordLen)
	return p, true, nil
}

func (p *mappedPcap) u16(b []byte) uint16 {
	if p.big {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (p *mappedPcap) u32(b []byte) uint32 {
	if p.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// setSnaplen caps the records accepted, as streamPcap.setSnaplen.
func (p *mappedPcap) setSnaplen(n uint32) { p.maxCap = max(int(n), MaxRecordLen) }

// ZeroCopyReadPacketData returns the next record; data is valid until the
// next call.
func (p *mappedPcap) ZeroCopyReadPacketData() (data []byte, ci gopacket.CaptureInfo, err error) {
	data, sec, nsec, capLen, wireLen, err := p.record()
	if capLen != 0 || wireLen != 0 || err == nil {
		ci.Timestamp = time.Unix(sec, nsec).UTC()
		ci.CaptureLength, ci.Length = capLen, wireLen
	}
	return data, ci, err
}

// offset is the file offset of the next record.
func (p *mappedPcap) offset() int64 { return p.w.off + int64(p.w.pos) }

// record returns the next record without building a gopacket.CaptureInfo:
// its data (valid until the next call), its time as seconds and
// nanoseconds as stored (nsec may exceed a second in a corrupt record; the
// caller normalises as time.Unix does), and its captured and original
// lengths. The lengths are set whenever the record header was read, even
// with an error, as ZeroCopyReadPacketData sets them.
func (p *mappedPcap) record() (data []byte, sec, nsec int64, capLen, wireLen int, err error) {
	// take's common case, written out: this runs once per frame.
	w := p.w
	var h []byte
	if w.pos+16 <= len(w.win) {
		h = w.win[w.pos : w.pos+16]
		w.pos += 16
	} else if h, err = w.takeSlow(16, nil); err != nil {
		return nil, 0, 0, 0, 0, err
	}
	sec, nsec, capLen, wireLen = recordHeader(h, p.big, p.nanos)
	if capLen > p.maxCap {
		return nil, sec, nsec, capLen, wireLen, fmt.Errorf("capture length exceeds snap length: %d > %d", capLen, p.maxCap)
	}
	if w.pos+capLen <= len(w.win) {
		data = w.win[w.pos : w.pos+capLen]
		w.pos += capLen
		return data, sec, nsec, capLen, wireLen, nil
	}
	data, err = w.takeSlow(capLen, &p.buf)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return data, sec, nsec, capLen, wireLen, err
}

// take returns the next n bytes and consumes them: a slice of the window
// when they lie in the current window, else a copy into *buf (a 24-byte
// header buffer when buf is nil). io.EOF when nothing is left, and
// io.ErrUnexpectedEOF when fewer than n bytes are.
func (w *windowReader) take(n int, buf *[]byte) ([]byte, error) {
	if w.pos+n <= len(w.win) {
		b := w.win[w.pos : w.pos+n]
		w.pos += n
		return b, nil
	}
	return w.takeSlow(n, buf)
}

// takeSlow is take for bytes that straddle the end of the window (kept
// apart so that take's common case is inlined).
func (w *windowReader) takeSlow(n int, buf *[]byte) ([]byte, error) {
	var b []byte
	if buf == nil {
		b = make([]byte, n)
	} else {
		if cap(*buf) < n {
			*buf = make([]byte, n)
		}
		b = (*buf)[:n]
	}
	got, err := io.ReadFull(w, b)
	switch {
	case err == nil:
		return b, nil
	case got == 0 && errors.Is(err, io.EOF):
		return nil, io.EOF
	case errors.Is(err, io.EOF):
		return nil, io.ErrUnexpectedEOF
	}
	return nil, err
}

// nextEther is NextBatch's common case on a mapped Ethernet pcap (the
// caller checks that, and that no hook, OnlyEndpoints or first frame is
// pending): it frames and decodes records whose every check passes as
// next's would, an untunnelled, unfragmented IPv4 TCP segment with a
// 20-byte IP header, wholly in the window, into segs, and stops at the
// first record that is anything else (left unread, for next) or where
// next would look at the interrupt context. It returns how many segments
// it filled; each is what next would have made of its record (every
// field next writes, the same values) and the Reader's counts and state
// move as next's would.
func (r *Reader) nextEther(segs []Segment) int {
	mp := r.mp
	w := mp.w
	win, pos := w.win, w.pos
	big, nanos := mp.big, mp.nanos
	// The longest record taken here: next's caps, and no record over the
	// snap length (Stats.OverSnaplen is next's).
	lim := min(mp.maxCap, MaxRecordLen)
	if r.snaplen > 0 {
		lim = min(lim, r.snaplen)
	}
	frame, last, fine := r.frame, r.last, r.fine
	end := len(segs)
	if r.ctx != nil {
		// next looks at the interrupt context before the frame after
		// every multiple of checkEvery: that frame is next's.
		end = min(end, int((checkEvery-frame%checkEvery)%checkEvery))
	}
	backwards := int64(0)
	rest := win[pos:]         // the records from the next on
	off := w.off + int64(pos) // its file offset
	n := 0
	for ; n < end; n++ {
		// 16 + 54 bytes: the record header, then the Ethernet, IPv4 and
		// TCP headers.
		if len(rest) < 16+54 {
			break
		}
		sec, nsec, capLen, wireLen := recordHeader(rest[:16], big, nanos)
		// An original length below the captured one or past
		// maxWireLen is next's.
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
	if n > 0 {
		w.pos = len(win) - len(rest)
		r.frame, r.last, r.stats.Last, r.fine = frame+int64(n), last, last, fine
		r.stats.Frames += int64(n)
		r.stats.Segments += int64(n)
		r.stats.TimeBackwards += backwards
	}
	return n
}
