//go:build unix

package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
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
	// The longest record taken here: next's caps, and no record over the
	// snap length (Stats.OverSnaplen is next's).
	lim := min(mp.maxCap, MaxRecordLen)
	if r.snaplen > 0 {
		lim = min(lim, r.snaplen)
	}
	end := len(segs)
	if r.ctx != nil {
		// next looks at the interrupt context before the frame after
		// every multiple of checkEvery: that frame is next's.
		end = min(end, int((checkEvery-r.frame%checkEvery)%checkEvery))
	}
	e := etherRun{big: mp.big, nanos: mp.nanos, lim: lim, frame: r.frame, last: r.last, fine: r.fine, off: w.off + int64(w.pos)}
	n, size := e.decode(segs[:end], w.win[w.pos:])
	if n > 0 {
		w.pos += size
		r.frame, r.last, r.stats.Last, r.fine = e.frame, e.last, e.last, e.fine
		r.stats.Frames += int64(n)
		r.stats.Segments += int64(n)
		r.stats.TimeBackwards += e.backwards
	}
	return n
}
