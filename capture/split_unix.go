//go:build unix

package capture

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// splitReader is the reading goroutine's state of a split read. It reads
// the file in the windowReader's windows (the same pread calls at the same
// offsets), each into the buffer of the batch being filled, behind the
// bytes left over from the batch before (carry: the start of a record cut
// by the window's end).
type splitReader struct {
	w        *windowReader
	next     int64  // file offset of the next window to read
	carry    []byte // bytes read but not framed, for the next batch
	seq      int64
	done     bool
	grown    bool   // the batch being filled has read a window
	keep     []byte // more's buffer when it returns nil
	base     int    // where the batch's records begin in its buffer
	warnings []frameWarning
	pf       prefetch
}

// prefetch is the read of the window after the one being framed, run on a
// goroutine of its own so that the kernel's copy (pread) overlaps the
// framing: into the back of buf (buf[head:head+n], head = cap(buf) -
// readWindow), leaving room in front for the bytes of a record cut by the
// window before. more hands the filled buffer to the batch being framed
// instead of reading (splitReader.fetched), and the batch's old buffer
// takes the next read.
type prefetch struct {
	buf  []byte
	off  int64
	n    int
	busy bool // a read was started and its result not taken
	// spare is a buffer no batch holds, for the next read.
	spare []byte
	done  chan error // the read's result (buffered: the goroutine never waits)
}

// prefetchCap is the capacity of a prefetch buffer, as of a batch's
// (ReadFrames): a window and the head room in front of it.
const prefetchCap = 2*readWindow + 4096

// start begins reading the window at sr.next into spare (a buffer no
// batch holds), unless a read is under way or the file has ended.
func (sr *splitReader) start(spare []byte) {
	pf := &sr.pf
	if pf.busy || sr.next >= sr.w.size {
		return
	}
	if spare == nil {
		spare, pf.spare = pf.spare, nil
	}
	if cap(spare) < prefetchCap {
		spare = make([]byte, 0, prefetchCap)
	}
	if pf.done == nil {
		pf.done = make(chan error, 1)
	}
	n := int(min(int64(readWindow), sr.w.size-sr.next))
	head := cap(spare) - readWindow
	pf.buf, pf.off, pf.n, pf.busy = spare[:head+n], sr.next, n, true
	w, p, off, done := sr.w, spare[head:head+n], sr.next, pf.done
	go func() { done <- w.readAt(p, off) }()
}

// fetched returns the prefetched window at sr.next with the r = len(buf) -
// pos bytes of buf from pos in front of it, and the position of those
// bytes in it; ok is false when there is no such window (none started,
// another offset, a read error: the caller reads it itself, which
// reports the error) or the bytes do not fit in front.
func (sr *splitReader) fetched(buf []byte, pos int) (nb []byte, npos int, ok bool) {
	pf := &sr.pf
	if !pf.busy {
		return nil, 0, false
	}
	err := <-pf.done
	pf.busy = false
	head := cap(pf.buf) - readWindow
	r := len(buf) - pos
	if err != nil || pf.off != sr.next || r > head {
		pf.spare = pf.buf[:0]
		return nil, 0, false
	}
	nb = pf.buf
	copy(nb[head-r:head], buf[pos:])
	return nb, head - r, true
}

// ReadFrames fills b with the next frames of r on the reading goroutine:
// the records are read and numbered, their times and lengths checked and
// counted as Next does, but not decoded. It returns false when b ends the
// capture (or the read: an error, an interrupt); b is then the last batch
// to pass to Segments. It must be called only if CanReadFrames was true
// before it was first called, and Next is not called afterwards; b must
// not be in use (its earlier segments consumed).
func (r *Reader) ReadFrames(b *FrameBatch) bool {
	sr := r.sr
	if sr == nil {
		// Take over from the window reader: what is left of its window
		// is the first carry.
		w := r.mp.w
		sr = &splitReader{w: w, next: w.off + int64(len(w.win))}
		sr.carry = append(sr.carry, w.win[w.pos:]...)
		r.sr, r.split = sr, &splitConsumer{}
		r.done = true // Next reads nothing more
	}
	sr.seq++
	b.seq, b.link = sr.seq, r.link
	b.nframes, b.start, b.frame0 = 0, 0, r.frame+1
	b.big, b.nanos, b.only = r.mp.big, r.mp.nanos, r.dec.only
	b.last, b.rerr, b.ctxErr, b.claimed, b.at, b.n = false, nil, nil, false, 0, 0
	if sr.done {
		b.last, b.rerr = true, io.EOF
		return false
	}
	if need := max(len(sr.carry), 2*readWindow+4096); cap(b.buf) < need {
		b.buf = make([]byte, 0, need)
	}
	buf := append(b.buf[:0], sr.carry...)
	sr.carry = sr.carry[:0]
	pos := 0
	sr.grown, sr.base = false, 0
	p := r.mp
	nf, maxf := 0, len(b.segs)
	b.fineFrom = maxf
	if r.fine {
		b.fineFrom = 0
	}
	for nf < maxf {
		if r.ctx != nil && r.frame%checkEvery == 0 && r.ctx.Err() != nil {
			sr.done = true
			b.last, b.ctxErr = true, &FrameError{File: r.name, Frame: r.frame + 1, Err: r.ctx.Err()}
			b.buf, b.base = buf, sr.next-int64(len(buf))
			return false
		}
		// The record header, as mappedPcap.record reads it.
		if pos+16 > len(buf) {
			var err error
			if buf, pos, err = sr.more(buf, pos, 16, nf); buf == nil {
				buf = sr.keep
				if err == nil {
					break
				}
				if errors.Is(err, io.EOF) && pos < len(buf) {
					err = io.ErrUnexpectedEOF
				}
				return sr.end(b, buf, err)
			}
		}
		h := buf[pos : pos+16]
		sec, nsec := int64(p.u32(h)), int64(p.u32(h[4:]))
		if !p.nanos {
			nsec *= 1000
		}
		capLen := int(p.u32(h[8:]))
		wireLen := int(p.u32(h[12:]))
		if capLen > p.maxCap {
			return sr.end(b, buf, fmt.Errorf("capture length exceeds snap length: %d > %d", capLen, p.maxCap))
		}
		if pos+16+capLen > len(buf) {
			var err error
			if buf, pos, err = sr.more(buf, pos, 16+capLen, nf); buf == nil {
				buf = sr.keep
				if err == nil {
					break
				}
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return sr.end(b, buf, err)
			}
		}
		if nf == 0 {
			b.start = pos // more may have moved the record to another buffer
		}
		// Reader.next's bookkeeping for a mapped pcap without a hook.
		sec, nsec = sec+nsec/1e9, nsec%1e9
		inRange := sec >= 0 && sec < math.MaxInt64/1_000_000_000
		if !inRange && nf > 0 {
			// (Cannot happen: 32-bit seconds are in range.) The batch's
			// frames are its records from start on: a skipped record
			// starts a batch of its own, before its start.
			break
		}
		pos += 16 + capLen
		ts := Timestamp(sec*1e9 + nsec)
		if capLen > MaxRecordLen {
			r.frame++
			r.stats.Frames++
			return sr.end(b, buf, recordTooLong(capLen))
		}
		if r.snaplen > 0 && capLen > r.snaplen {
			r.stats.OverSnaplen++
		}
		if !inRange {
			r.frame++
			r.stats.Frames++
			r.stats.TimeOutOfRange++
			if r.firstTS == 0 {
				r.firstTS = r.frame
				sr.warnings = append(sr.warnings, frameWarning{r.frame, 0, outOfRange(r.name, r.frame, time.Unix(sec, nsec).UTC())})
			}
			b.start, b.frame0 = pos, r.frame+1
			continue
		}
		if r.countFrame(ts) {
			b.fineFrom = nf
		}
		if wireLen < capLen {
			r.capOverWire(capLen, wireLen)
		} else if wireLen > maxWireLen {
			r.stats.BadWireLen++
			if r.firstBW == 0 {
				r.firstBW = r.frame
				sr.warnings = append(sr.warnings, frameWarning{r.frame, 1, fmt.Sprintf("%s: frame %d: original length %d is impossible (captured %d); the frame is read as holding its captured bytes only", r.name, r.frame, wireLen, capLen)})
			}
			wireLen = capLen
		}
		nf++
		b.nframes = nf
	}
	// The batch is full, or has no room for the next window: what is
	// left goes to the next batch.
	sr.carry = append(sr.carry, buf[pos:]...)
	b.buf, b.base = buf, sr.next-int64(len(buf))
	return true
}

// more makes buf hold n bytes from pos, reading the next window(s) behind
// them, and returns it with pos, which moves when the bytes from pos are
// moved in front of a prefetched window (splitReader.fetched: only while
// the batch has framed nothing, framed == 0). It returns nil, with the
// buffer in sr.keep, and a nil error when the batch has no room left for
// them (it ends there, having framed or skipped something: pos >
// sr.base), or with the read error (io.EOF at the end of the file with
// nothing left, io.ErrUnexpectedEOF inside a record).
func (sr *splitReader) more(buf []byte, pos, n, framed int) ([]byte, int, error) {
	for pos+n > len(buf) {
		if sr.next >= sr.w.size {
			sr.keep = buf
			if pos == len(buf) {
				return nil, pos, io.EOF
			}
			return nil, pos, io.ErrUnexpectedEOF
		}
		want := int(min(int64(readWindow), sr.w.size-sr.next))
		if framed == 0 && !sr.grown {
			if nb, np, ok := sr.fetched(buf, pos); ok {
				old := buf
				buf, pos, sr.base = nb, np, np
				sr.next += int64(want)
				sr.grown = true
				sr.start(old[:0])
				continue
			}
		}
		if (sr.grown && pos > sr.base) || len(buf)+want > cap(buf) {
			if pos > sr.base {
				sr.keep = buf
				return nil, pos, nil
			}
			// Cannot happen: a batch that framed nothing holds less
			// than a record, with room for two windows behind it.
			nb := make([]byte, len(buf), len(buf)+2*readWindow)
			copy(nb, buf)
			buf = nb
		}
		if err := sr.w.readAt(buf[len(buf):len(buf)+want], sr.next); err != nil {
			sr.keep = buf
			return nil, pos, err
		}
		buf = buf[:len(buf)+want]
		sr.next += int64(want)
		sr.grown = true
		sr.start(nil)
	}
	return buf, pos, nil
}

// end makes b, holding buf, the last batch, ended by the read error err.
func (sr *splitReader) end(b *FrameBatch, buf []byte, err error) bool {
	sr.done = true
	b.buf, b.base = buf, sr.next-int64(len(buf))
	b.last, b.rerr = true, err
	return false
}
