package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
)

// streamPcap reads classic pcap records from a stream: standard input, a
// pipe, a decompressed gzip or zstd capture, a file that is not read in
// place. It follows mappedPcap's rules and messages (the header checks,
// "capture length exceeds snap length"), so a capture reads the same from
// a stream as from its file. Unlike pcapgo.Reader, which it replaced, it
// returns a record whose captured length exceeds its original length
// (Reader.next bounds the original length: Stats.CapOverWire) instead of
// ending the capture there.
type streamPcap struct {
	r       io.Reader
	big     bool   // big-endian headers
	nanos   bool   // nanosecond timestamps
	snaplen uint32 // as the header says
	maxCap  int    // max(snap length cap, MaxRecordLen), as pcapgo's
	link    int    // link type from the header
	hdr     [16]byte
	buf     []byte // the last record's data, reused
}

// newStreamPcap reads the 24-byte global header from r, whose magic the
// caller checked. Errors: io.EOF or io.ErrUnexpectedEOF for a cut header,
// an unknown version.
func newStreamPcap(r io.Reader) (*streamPcap, error) {
	var h [24]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	p := &streamPcap{r: r}
	var ok bool
	if p.big, p.nanos, ok = pcapMagic(h[:]); !ok {
		return nil, fmt.Errorf("Unknown magic %x", binary.LittleEndian.Uint32(h[:]))
	}
	u16, u32 := binary.LittleEndian.Uint16, binary.LittleEndian.Uint32
	if p.big {
		u16, u32 = binary.BigEndian.Uint16, binary.BigEndian.Uint32
	}
	if v := u16(h[4:]); v != 2 {
		return nil, fmt.Errorf("Unknown major version %d", v)
	}
	if v := u16(h[6:]); v != 4 {
		return nil, fmt.Errorf("Unknown minor version %d", v)
	}
	p.snaplen = u32(h[16:])
	p.link = int(u32(h[20:]))
	p.maxCap = max(int(p.snaplen), MaxRecordLen)
	return p, nil
}

// setSnaplen caps the records accepted, as mappedPcap.setSnaplen.
func (p *streamPcap) setSnaplen(n uint32) { p.maxCap = max(int(n), MaxRecordLen) }

// ZeroCopyReadPacketData returns the next record; data is valid until the
// next call. ci's lengths are set whenever the record header was read,
// even with an error. Errors: io.EOF at the end, io.ErrUnexpectedEOF
// inside a record, a captured length over the cap (never buffered).
func (p *streamPcap) ZeroCopyReadPacketData() (data []byte, ci gopacket.CaptureInfo, err error) {
	if _, err = io.ReadFull(p.r, p.hdr[:]); err != nil {
		return nil, ci, err
	}
	sec, nsec, capLen, wireLen := recordHeader(p.hdr[:], p.big, p.nanos)
	ci.Timestamp = time.Unix(sec, nsec).UTC()
	ci.CaptureLength, ci.Length = capLen, wireLen
	if capLen > p.maxCap {
		return nil, ci, fmt.Errorf("capture length exceeds snap length: %d > %d", capLen, p.maxCap)
	}
	if cap(p.buf) < capLen {
		p.buf = make([]byte, capLen) // at most maxCap: MaxRecordLen once capped
	}
	data = p.buf[:capLen]
	if _, err = io.ReadFull(p.r, data); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, ci, err
	}
	return data, ci, nil
}

// pcapMagic reads a classic pcap file header's magic number (h holds at
// least its first 4 bytes): the file's byte order (big) and time unit
// (nanos: nanoseconds, else microseconds), and whether it is a pcap magic
// at all. The one rule of the in-place reader (newMappedPcap) and the
// stream reader (newStreamPcap).
func pcapMagic(h []byte) (big, nanos, ok bool) {
	switch binary.LittleEndian.Uint32(h) {
	case 0xa1b2c3d4:
		return false, false, true
	case 0xa1b23c4d:
		return false, true, true
	case 0xd4c3b2a1:
		return true, false, true
	case 0x4d3cb2a1:
		return true, true, true
	}
	return false, false, false
}
