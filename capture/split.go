package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
)

// Split reading: one goroutine frames a plain pcap file (pread, record
// headers, frame numbers, times, Stats.Frames and the other per-frame
// counts that must stay sequential) into FrameBatches, and another decodes
// them (link, IP and TCP headers) and consumes the segments. Either
// goroutine may decode a batch (FrameBatch.Decode), so a reader that would
// otherwise wait can take part of the decoding; the decoding's counts are
// merged in batch order by Reader.Segments, so Stats and Warnings end up as
// Next gives them (docs/performance.md).

// splitFrames is how many frames a FrameBatch holds at most: more than a
// read window (readWindow) holds of records of 100 bytes or more, so that
// a batch usually ends where its window does.
const splitFrames = 2880

// A FrameBatch holds frames a Reader framed but has not decoded
// (Reader.ReadFrames), and, once decoded, their segments. Its frames point
// into a buffer of its own, so it stays valid while the Reader reads on
// into other batches; it is reused by passing it to ReadFrames again once
// its segments are no longer needed.
type FrameBatch struct {
	seq  int64 // 1 + the batch's place in the Reader's sequence
	link int
	// The frames are the nframes records of buf from start on (whole
	// records: header and data), frame numbers frame0 on; fineFrom is the
	// first whose Segment.FineTime is true (nframes: none).
	buf                      []byte
	base                     int64 // the file offset of buf[0]
	start, nframes, fineFrom int
	frame0                   int64
	big, nanos               bool               // the pcap's byte order and time unit
	only                     *[2]netip.AddrPort // Reader.OnlyEndpoints
	// last: the batch ends the capture (or the read): rerr is the read
	// error for Reader.readErr, or ctxErr the interrupt's error.
	last   bool
	rerr   error
	ctxErr error
	// mu guards claimed: whether a goroutine took on the decoding (Decode,
	// TryDecode, Segments). at is the next frame to decode and pos its
	// record's offset in buf; Decode and TryDecode decode every frame into
	// segs[:n].
	mu      sync.Mutex
	claimed bool
	at, pos int
	segs    []Segment
	n       int
	st      splitCounts
	// wait is how many frames decode leaves to decodeFrames before it
	// tries etherRun again, and backoff the next wait after a failed try.
	wait, backoff int
}

// splitCounts are the Stats counts of decoding, and the first frame whose
// IP length exceeded its wire length.
type splitCounts struct {
	segments, nonIP, nonTCP, icmp, fragments, truncated, badIP int64
	nonData, protected, tunnelled, overWire, encapN            int64
	firstOW                                                    int64
	owLen                                                      int
	encap                                                      map[uint16]int64
	// own holds the batch's frames announcing an address (ownOf), for
	// Reader.LinkOwn; lf is ownFrame's scratch.
	own []LinkOwn
	lf  LinkFrame
}

// ownFrame records what a frame that is not TCP announces (ownOf).
func (st *splitCounts) ownFrame(link int, data []byte) {
	if ParseLinkFrame(link, data, &st.lf) {
		if mac, ip, how := ownOf(&st.lf); how != "" && len(st.own) < MaxLinkOwn {
			st.own = append(st.own, LinkOwn{MAC: mac, IP: ip, How: how})
		}
	}
}

// NewFrameBatch returns an empty FrameBatch for Reader.ReadFrames.
func NewFrameBatch() *FrameBatch { return newFrameBatch(splitFrames) }

func newFrameBatch(n int) *FrameBatch {
	return &FrameBatch{segs: make([]Segment, n)}
}

// Len returns how many frames b holds.
func (b *FrameBatch) Len() int { return b.nframes }

// Decode decodes b's frames into segments, unless that was done or is
// being done. It touches b only, under a lock of b's, so a goroutine
// other than Segments' may call it (or TryDecode) while b waits to be
// consumed: the reading goroutine, when it has nothing else to do, takes
// on the decoding of a batch the consumer has yet to reach. Otherwise
// Segments decodes b a few segments at a time, each run consumed while
// it is in the core's cache.
func (b *FrameBatch) Decode() {
	b.mu.Lock()
	if !b.claimed {
		b.claimed = true
		b.n = b.decode(b.segs)
	}
	b.mu.Unlock()
}

// TryDecode is Decode unless another goroutine holds b; it reports
// whether it decoded b (false: b was or is being decoded, by Decode or
// Segments).
func (b *FrameBatch) TryDecode() bool {
	if !b.mu.TryLock() {
		return false
	}
	done := b.claimed
	if !done {
		b.claimed = true
		b.n = b.decode(b.segs)
	}
	b.mu.Unlock()
	return !done
}

// TryDecodeNewest is TryDecode on the newest of sent (batches handed to
// the consumer, oldest first) that is not yet being decoded: what a
// reading goroutine does instead of waiting for a free batch. It reports
// whether it decoded one.
func TryDecodeNewest(sent []*FrameBatch) bool {
	for i := len(sent) - 1; i >= 0; i-- {
		if sent[i].TryDecode() {
			return true
		}
	}
	return false
}

// decode decodes b's frames from b.at on into segs until segs is full or
// the frames end, counting into b.st, and returns how many segments it
// filled. It reads each record's header again: its time, its lengths (an
// original length below the captured length, or impossible, read as the
// captured length: boundWire, as ReadFrames counted it).
func (b *FrameBatch) decode(segs []Segment) int {
	st := &b.st
	if b.at == 0 {
		encap := st.encap
		clear(encap)
		*st = splitCounts{encap: encap}
		b.pos = b.start
	}
	if b.link != LinkEthernet {
		return b.decodeFrames(segs, b.nframes)
	}
	// The common records of an Ethernet capture are etherRun's, as in
	// Reader.NextBatch, the others decodeFrames'. ReadFrames framed them
	// and counted their times (etherRun's last and backwards are not used
	// here) and took no record over MaxRecordLen; with OnlyEndpoints,
	// stubOthers makes the stubs. After a run that took something,
	// decodeFrames decodes the frame that stopped it; after one that took
	// nothing, the next b.wait frames, b.wait doubling (to 64) until a run
	// takes something: a capture whose frames etherRun never takes
	// (VLAN tags, IPv6, an original length below the captured one in
	// every record) pays an attempt per 64 frames.
	if b.at == 0 {
		b.wait, b.backoff = 0, 1
	}
	e := etherRun{big: b.big, nanos: b.nanos, lim: MaxRecordLen}
	n := 0
	for b.at < b.nframes && n < len(segs) {
		if b.wait == 0 {
			i := b.at
			e.frame, e.fine, e.off = b.frame0+int64(i)-1, i >= b.fineFrom, b.base+int64(b.pos)
			k, size := e.decode(segs[n:n+min(len(segs)-n, b.nframes-i)], b.buf[b.pos:])
			if b.only != nil {
				stubOthers(segs[n:n+k], b.only)
			}
			st.segments += int64(k)
			n, b.at, b.pos = n+k, i+k, b.pos+size
			switch {
			case n == len(segs) || b.at == b.nframes:
				return n // the next try is the next call's
			case k > 0:
				b.wait, b.backoff = 1, 1
			default:
				b.wait, b.backoff = b.backoff, min(2*b.backoff, 64)
			}
		}
		at := b.at
		n += b.decodeFrames(segs[n:], b.wait)
		b.wait -= b.at - at
	}
	return n
}

// decodeFrames is decode's general path: it decodes b's frames from b.at
// on into segs until segs is full, the frames end or it has decoded limit
// frames, and returns how many segments it filled.
func (b *FrameBatch) decodeFrames(segs []Segment, limit int) int {
	st := &b.st
	d := decoder{only: b.only}
	fast := b.only != nil && b.link == LinkEthernet // otherEthIPv4TCP
	var p0, p1 uint16
	if fast {
		p0, p1 = b.only[0].Port(), b.only[1].Port()
	}
	n := 0
	i, pos, buf := b.at, b.pos, b.buf
	end := min(b.nframes, i+limit)
	for ; i < end && n < len(segs); i++ {
		h := buf[pos : pos+16]
		sec, nsec, capLen, wireLen := recordHeader(h, b.big, b.nanos)
		wireLen = boundWire(capLen, wireLen)
		data := buf[pos+16 : pos+16+capLen : pos+16+capLen]
		off := b.base + int64(pos)
		pos += 16 + capLen
		s := &segs[n]
		if fast && otherEthIPv4TCP(data, wireLen, p0, p1) {
			// A stub, as decode would return it, without decoding.
			st.segments++
			s.Src, s.Dst, s.ICMP, s.WiFi = netip.AddrPort{}, netip.AddrPort{}, ICMPNone, false
			s.Frame, s.Offset, s.Time, s.Iface = b.frame0+int64(i), off, Timestamp((sec+nsec/1e9)*1e9+nsec%1e9), 0
			s.CapLen, s.WireLen, s.FineTime = capLen, wireLen, i >= b.fineFrom
			n++
			continue
		}
		d.s = s
		d.wireLen = wireLen
		v := d.decode(b.link, data)
		if d.overWire && v == vTCP {
			st.overWire++
			if st.firstOW == 0 {
				st.firstOW, st.owLen = b.frame0+int64(i), wireLen
			}
		}
		s.FineTime = i >= b.fineFrom
		switch v {
		case vICMP:
			st.icmp++
		case vTCP:
			if d.depth > 0 {
				st.tunnelled++
			}
			st.segments++
		default:
			st.count(v, d.encap)
			if v == vNonIP || v == vNonTCP {
				st.ownFrame(b.link, data)
			}
			continue
		}
		s.Frame, s.Offset = b.frame0+int64(i), off
		s.Time = Timestamp((sec+nsec/1e9)*1e9 + nsec%1e9)
		s.Iface = 0
		s.CapLen = capLen
		s.WireLen = wireLen
		n++
	}
	b.at, b.pos = i, pos
	return n
}

// stubOthers makes the segments of segs that are not between the
// endpoints of only stubs, as decoder.tcp does (Reader.OnlyEndpoints).
func stubOthers(segs []Segment, only *[2]netip.AddrPort) {
	k0, k1 := only[0], only[1]
	p0, p1 := k0.Port(), k1.Port()
	for i := range segs {
		s := &segs[i]
		// The ports first: they tell most others apart.
		sp, dp := s.Src.Port(), s.Dst.Port()
		if !(sp == p0 && dp == p1 && s.Src == k0 && s.Dst == k1) && !(sp == p1 && dp == p0 && s.Src == k1 && s.Dst == k0) {
			s.Src, s.Dst = netip.AddrPort{}, netip.AddrPort{}
		}
	}
}

// count is Reader.count for a batch.
func (st *splitCounts) count(v verdict, encap uint16) {
	switch v {
	case vUnsupportedEncap:
		st.encapN++
		if st.encap == nil {
			st.encap = make(map[uint16]int64)
		}
		st.encap[encap]++
	case vNonIP:
		st.nonIP++
	case vNonTCP, vTunnelTooDeep:
		st.nonTCP++
	case vFragment:
		st.fragments++
	case vTruncated:
		st.truncated++
	case vProtected:
		st.protected++
	case vNonData:
		st.nonData++
	case vBadIP:
		st.badIP++
	}
}

// splitConsumer is the consuming goroutine's state of a split read: the
// decoding's counts so far, merged into the Reader at the end, and the
// segments of the run being consumed.
type splitConsumer struct {
	next  int64 // seq of the next batch to consume
	acc   splitCounts
	ended bool
	segs  [splitRun]Segment
}

// splitRun is how many segments Segments decodes at a time (17 KB: the
// run stays in the first-level cache while it is consumed).
const splitRun = 64

// frameWarning is a warning about one frame, placed among the others by
// frame number (and rank within a frame) when a split read ends.
type frameWarning struct {
	frame int64
	rank  int
	text  string
}

// errSplitOrder is Segments' error for a batch out of order.
var errSplitOrder = errors.New("capture: frame batches consumed out of order")

// CanReadFrames reports whether r can be read with ReadFrames: a plain
// pcap file read in place, no frame hook, nothing read yet.
func (r *Reader) CanReadFrames() bool {
	return r.mp != nil && r.hook == nil && !r.done && r.frame == 0 && r.stats.Frames == 0 && r.split == nil && r.sr == nil
}

// Segments calls f with b's segments in capture order, in one or more
// runs (each valid during the call only), decoding them unless Decode
// did. Batches must be passed in the order ReadFrames filled them, all on
// one goroutine. After the batch that ends the capture it returns the
// error Next would have returned there (io.EOF at the end, with warnings;
// see Next), and Stats and Warnings are then what Next would have left;
// before that they lack the counts of decoding.
func (r *Reader) Segments(b *FrameBatch, f func([]Segment)) error {
	c := r.split
	if c == nil || c.ended || b.seq != c.next+1 {
		return &FrameError{File: r.name, Frame: 0, Err: errSplitOrder}
	}
	c.next++
	b.mu.Lock()
	mine := !b.claimed
	b.claimed = true
	b.mu.Unlock()
	if mine {
		for b.at < b.nframes {
			if n := b.decode(c.segs[:]); n > 0 {
				f(c.segs[:n])
			}
		}
		if b.nframes == 0 {
			b.decode(nil) // the counts reset
		}
	} else if b.n > 0 {
		f(b.segs[:b.n])
	}
	a, s := &c.acc, &b.st
	a.segments += s.segments
	a.nonIP += s.nonIP
	a.nonTCP += s.nonTCP
	a.icmp += s.icmp
	a.fragments += s.fragments
	a.truncated += s.truncated
	a.badIP += s.badIP
	a.nonData += s.nonData
	a.protected += s.protected
	a.tunnelled += s.tunnelled
	a.overWire += s.overWire
	a.encapN += s.encapN
	for _, o := range s.own {
		r.own.add(o.MAC, o.IP, o.How)
	}
	if a.firstOW == 0 && s.firstOW != 0 {
		a.firstOW, a.owLen = s.firstOW, s.owLen
	}
	for k, v := range s.encap {
		if a.encap == nil {
			a.encap = make(map[uint16]int64)
		}
		a.encap[k] += v
	}
	if !b.last {
		return nil
	}
	// The reading goroutine is done with r: it handed over its last batch.
	c.ended = true
	r.endSplit()
	if b.ctxErr != nil {
		r.done = true
		return b.ctxErr
	}
	return r.readErr(b.rerr)
}

// endSplit merges the decoding's counts and warnings into r's.
func (r *Reader) endSplit() {
	a := &r.split.acc
	st := &r.stats
	st.Segments += a.segments
	st.NonIP += a.nonIP
	st.NonTCP += a.nonTCP
	st.ICMPQuotes += a.icmp
	st.Fragments += a.fragments
	st.Truncated += a.truncated
	st.BadIP += a.badIP
	st.WiFiNonData += a.nonData
	st.WiFiProtected += a.protected
	st.Tunnelled += a.tunnelled
	st.IPLenOverWire += a.overWire
	st.UnsupportedEncap += a.encapN
	for k, v := range a.encap {
		if r.encap == nil {
			r.encap = make(map[uint16]int64)
		}
		r.encap[k] += v
	}
	ws := r.sr.warnings
	if a.firstOW != 0 {
		r.firstOW = a.firstOW
		ws = append(ws, frameWarning{a.firstOW, 2, fmt.Sprintf("%s: frame %d: the IP length field claims more bytes than the frame's original length %d; payload bounded by the frame", r.name, a.firstOW, a.owLen)})
	}
	slices.SortStableFunc(ws, func(x, y frameWarning) int {
		if x.frame != y.frame {
			if x.frame < y.frame {
				return -1
			}
			return 1
		}
		return x.rank - y.rank
	})
	for _, w := range ws {
		r.warnings = append(r.warnings, w.text)
	}
	r.sr.warnings = nil
}

// recordHeader reads a pcap record header h (16 bytes: seconds, fraction,
// captured and original lengths) in the file's byte order; the fraction
// is returned in nanoseconds (microseconds × 1000 unless nanos), not yet
// normalised. Reader's framing and split reading's decoding share it.
func recordHeader(h []byte, big, nanos bool) (sec, nsec int64, capLen, wireLen int) {
	h = h[:16]
	if big {
		sec, nsec = int64(binary.BigEndian.Uint32(h)), int64(binary.BigEndian.Uint32(h[4:]))
		capLen, wireLen = int(binary.BigEndian.Uint32(h[8:])), int(binary.BigEndian.Uint32(h[12:]))
	} else {
		sec, nsec = int64(binary.LittleEndian.Uint32(h)), int64(binary.LittleEndian.Uint32(h[4:]))
		capLen, wireLen = int(binary.LittleEndian.Uint32(h[8:])), int(binary.LittleEndian.Uint32(h[12:]))
	}
	if !nanos {
		nsec *= 1000
	}
	return
}
