//go:build unix

package capture

import (
	"bytes"
	"fmt"
)

// indexBatch is a run of decoded segments ReadIndexed hands from its
// reading goroutine to the caller's, with their segment numbers.
type indexBatch struct {
	segs [indexBatchLen]Segment
	nums [indexBatchLen]int64
	n    int
	err  error // ends the reading, after segs[:n]
}

const (
	// indexBatchLen is how many segments an indexBatch holds; indexBatches
	// how many are in use.
	indexBatchLen = 1024
	indexBatches  = 8
	// indexChunkLen is how many bytes ReadIndexed reads at once, unless one
	// group is larger.
	indexChunkLen = 512 << 10
)

// CanReadIndexed reports whether r can be read with ReadIndexed from ix:
// a plain pcap file read in place, nothing read yet, at least as long as
// the read that wrote ix found it (a capture still being written is read
// up to there), and ix valid.
func (r *Reader) CanReadIndexed(ix *FrameIndex) bool {
	ok, _ := ix.Valid()
	return ok && r.CanReadFrames() && r.fileSize() >= ix.size
}

// ReadIndexed calls f, in capture order, with each segment of the file
// whose tag in ix is tag, decoded as Reader.OnlyEndpoints decodes (a
// segment of other endpoints that shares the tag comes as a stub), and its
// 1-based segment number among all the capture's segments (what the read
// that wrote ix counted). One goroutine reads only the records of the
// groups that hold the tag, in chunks of about 512 KiB, a chunk or two
// ahead of another that walks their headers and decodes the segments with
// the tag, a few batches ahead of f; the records of other groups are
// neither read nor framed. s is valid
// during the call only. It returns nil at the end; an error of the file
// (*FrameError wrapping ErrFileChanged when a record is not where ix says,
// or a read error), or the interrupt's (SetInterrupt). Stats and Warnings
// of r are not those of the file: ix's are. r must satisfy
// CanReadIndexed.
func (r *Reader) ReadIndexed(ix *FrameIndex, tag uint8, f func(s *Segment, n int64)) error {
	if !r.CanReadIndexed(ix) || tag == 0 {
		return &FrameError{File: r.name, Err: fmt.Errorf("capture: ReadIndexed: %w", ErrFileChanged)}
	}
	r.done = true // Next reads nothing more
	full := make(chan *indexBatch, indexBatches)
	free := make(chan *indexBatch, indexBatches)
	for range indexBatches {
		free <- &indexBatch{}
	}
	stop := make(chan struct{})
	defer close(stop)
	go r.readIndexed(ix, tag, full, free, stop)
	for b := range full {
		for i := range b.n {
			f(&b.segs[i], b.nums[i])
		}
		if b.err != nil {
			return b.err
		}
		free <- b
	}
	return nil
}

// readIndexed is ReadIndexed's reading goroutine: it sends the decoded
// segments with the tag on full, in order, and closes it at the end (after
// a batch with the error, if any).
func (r *Reader) readIndexed(ix *FrameIndex, tag uint8, full, free chan *indexBatch, stop chan struct{}) {
	defer close(full)
	var b *indexBatch
	get := func() bool {
		select {
		case b = <-free:
			b.n, b.err = 0, nil
			return true
		case <-stop:
			return false
		}
	}
	send := func() bool {
		select {
		case full <- b:
			b = nil
			return true
		case <-stop:
			return false
		}
	}
	if !get() {
		return
	}
	fail := func(err error) {
		b.err = err
		send()
	}
	p := r.mp
	d := decoder{only: r.dec.only}
	chunks := make(chan *indexChunk, 2)
	go r.readChunks(ix, tag, chunks, stop)
	for c := range chunks {
		if c.err != nil {
			fail(c.err)
			return
		}
		buf, start, frame, seg := c.buf, c.start, c.frame, c.seg-1
		pos := 0
		for ; frame <= c.last; frame++ {
			if pos+16 > len(buf) {
				fail(r.changed(frame))
				return
			}
			sec, nsec, capLen, wireLen := recordHeader(buf[pos:pos+16], p.big, p.nanos)
			if capLen < 0 || pos+16+capLen > len(buf) {
				fail(r.changed(frame))
				return
			}
			t := ix.tags[frame-1]
			if t != 0 {
				seg++
			}
			if t == tag {
				wireLen = boundWire(capLen, wireLen)
				s := &b.segs[b.n]
				d.s, d.wireLen = s, wireLen
				if v := d.decode(p.link, buf[pos+16:pos+16+capLen:pos+16+capLen]); v != vTCP && v != vICMP {
					fail(r.changed(frame))
					return
				}
				s.Frame, s.Offset = frame, start+int64(pos)
				s.Time = Timestamp((sec+nsec/1e9)*1e9 + nsec%1e9)
				s.Iface, s.CapLen, s.WireLen = 0, capLen, wireLen
				s.FineTime = ix.fine > 0 && seg >= ix.fine
				b.nums[b.n] = seg
				if b.n++; b.n == indexBatchLen && (!send() || !get()) {
					return
				}
			}
			pos += 16 + capLen
		}
		c.free <- c
	}
	if b.n > 0 {
		send()
	}
}

// indexChunk is one pread of ReadIndexed: the records from the first
// segment of a run of groups holding the tag, and where to walk them.
type indexChunk struct {
	buf              []byte
	start            int64 // the file offset of buf[0]
	frame, seg, last int64 // the first record's frame and segment numbers; the last frame to walk
	err              error // ends the reading
	free             chan *indexChunk
}

// readChunks is ReadIndexed's reading goroutine: it reads the chunks of
// the groups of ix that hold tag, in order, into a few buffers it reuses,
// a chunk or two ahead of the decoding, and sends them on chunks, which it
// closes at the end (after a chunk with the error, if any).
func (r *Reader) readChunks(ix *FrameIndex, tag uint8, chunks chan<- *indexChunk, stop <-chan struct{}) {
	defer close(chunks)
	free := make(chan *indexChunk, 3)
	for range 3 {
		free <- &indexChunk{free: free}
	}
	gs := ix.groups
	// nextOff: the offset after group g's records, the next group's first
	// segment (or the file's end).
	nextOff := func(g int) int64 {
		for h := g + 1; h < len(gs); h++ {
			if gs[h].off != 0 {
				return gs[h].off
			}
		}
		return ix.size
	}
	holds := func(g int) bool {
		if gs[g].off == 0 {
			return false
		}
		lo := g * IndexGroup
		hi := min(lo+IndexGroup, int(ix.last))
		return bytes.IndexByte(ix.tags[lo:hi], tag) >= 0
	}
	for g := 0; g < len(gs); {
		if !holds(g) {
			g++
			continue
		}
		// A chunk: groups g..h-1, all holding the tag, up to about
		// indexChunkLen bytes (at least one group).
		start := gs[g].off
		h, end := g+1, nextOff(g)
		for h < len(gs) && holds(h) && nextOff(h)-start <= indexChunkLen {
			end = nextOff(h)
			h++
		}
		var c *indexChunk
		select {
		case c = <-free:
		case <-stop:
			return
		}
		c.start, c.frame, c.seg, c.err = start, gs[g].frame, gs[g].seg, nil
		// The last frame to walk: the chunk's last segment.
		c.last = 0
		for i := min(h*IndexGroup, int(ix.last)) - 1; i >= g*IndexGroup; i-- {
			if ix.tags[i] != 0 {
				c.last = int64(i) + 1
				break
			}
		}
		n := int(end - start)
		if cap(c.buf) < n {
			c.buf = make([]byte, max(n, indexChunkLen))
		}
		c.buf = c.buf[:n]
		if r.ctx != nil && r.ctx.Err() != nil {
			c.err = &FrameError{File: r.name, Frame: c.frame, Err: r.ctx.Err()}
		} else if err := r.mp.w.readAt(c.buf, start); err != nil {
			c.err = &FrameError{File: r.name, Frame: c.frame, Err: err}
		}
		select {
		case chunks <- c:
		case <-stop:
			return
		}
		if c.err != nil {
			return
		}
		g = h
	}
}

// changed is ReadIndexed's error for a record not as the index says.
func (r *Reader) changed(frame int64) error {
	return &FrameError{File: r.name, Frame: frame, Err: fmt.Errorf("%w: frame %d is not where the first pass found it", ErrFileChanged, frame)}
}

// fileSize is the size of the file r reads in place (CanReadFrames).
func (r *Reader) fileSize() int64 { return r.mp.w.size }
