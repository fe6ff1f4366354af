package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// pcapng block types (https://www.ietf.org/archive/id/draft-ietf-opsawg-pcapng-03.html §11.1).
const (
	ngSHB = 0x0a0d0d0a
	ngIDB = 0x00000001
	ngPB  = 0x00000002 // obsolete Packet Block
	ngSPB = 0x00000003
	ngNRB = 0x00000004
	ngISB = 0x00000005
	ngEPB = 0x00000006
	ngDSB = 0x0000000a
	ngCB  = 0x00000bad // custom block, copiable
	ngCBn = 0x40000bad // custom block, not copiable
	ngSJE = 0x00000009 // systemd journal export
)

// maxBlockLen caps the length of one pcapng block: a record of MaxRecordLen
// bytes plus 64 KiB of header and options. A longer block is damage, never
// buffered.
const maxBlockLen = MaxRecordLen + 64<<10

// ngGuard sits between the file and pcapgo's pcapng reader and hands it only
// whole, self-consistent blocks it needs: a length that is a multiple of
// 4, at least 12 and at most maxBlockLen, a trailing copy of that length,
// for packet blocks a captured length that fits the block and an
// interface its section defined, and options that fit their block
// (ngGuard.content). Damage is reported (not called a cut) and the guard
// resynchronises on the next valid block, so the frames after the damage
// are still read. A block whose header is valid but whose end is missing is
// a cut capture: its bytes go through as they are and pcapgo reports the
// cut. Blocks tcpviz does not use (name resolution, interface statistics,
// decryption secrets, custom, systemd journal, unknown types) are not
// handed on: their contents cannot stop the reading.
//
// For every packet block it hands on it queues an ngRec, in file order, for
// the Reader to take with each packet pcapgo returns: whether it is a
// Simple Packet Block (which has no timestamp: pcapgo gives it the zero
// time) and how many blocks Wireshark numbers as frames (custom and
// systemd journal blocks) came before it, so that frame numbers stay
// Wireshark's.
type ngGuard struct {
	br     *bufio.Reader
	name   string
	warn   func(string)
	bo     binary.ByteOrder
	left   int    // bytes of the current valid block still to hand out (it is buffered)
	alt    []byte // a rewritten block handed out instead of the buffered one
	frames int64  // records numbered so far (packet, custom and journal blocks): the frame number of the last one
	off    int64  // file offset (after decompression) of the next block
	raw    bool   // pass bytes through unchecked (after a cut)
	// started: the first block was seen. ifaces: interface description
	// blocks in the current section; snap0 the snap length of its
	// interface 0 (Simple Packet Blocks are cut to it).
	started bool
	ifaces  int
	snap0   uint32
	// skip: inside a section of a version tcpviz cannot read, which
	// began at skipFrom; skipPkts of its packet blocks were skipped.
	skip     bool
	skipFrom int64
	skipPkts int64
	skipVer  [2]uint16
	queue    ngQueue
	pre      int64 // numbered non-packet blocks since the last packet block
	fatal    error // a block no reading can go past (*ngBlockError); every later Read returns it
}

// ngRec is what the Reader learns with each packet pcapgo returns: spb for
// a Simple Packet Block, pre the numbered non-packet blocks (custom,
// systemd journal) just before it, off its file offset.
type ngRec struct {
	spb bool
	pre int64
	off int64
}

// ngQueue is a FIFO of ngRec: the guard runs ahead of pcapgo's buffer, so
// it holds the records of the packet blocks pcapgo has not returned yet
// (a few hundred at most).
type ngQueue struct {
	recs []ngRec
	head int
}

func (q *ngQueue) push(r ngRec) {
	if q.head > 0 && q.head == len(q.recs) {
		q.recs, q.head = q.recs[:0], 0
	}
	q.recs = append(q.recs, r)
}

// pop returns the oldest record; the zero ngRec when there is none (bytes
// passed through unchecked after a cut).
func (q *ngQueue) pop() ngRec {
	if q.head == len(q.recs) {
		return ngRec{}
	}
	r := q.recs[q.head]
	q.head++
	return r
}

// An ngBlockError is a pcapng block that stops the reading: a section
// header of a version tcpviz cannot read at the start of the file, or an
// interface description block that cannot be read (its options run past
// its end, its time resolution is impossible), on which the timestamps of
// every later packet depend.
type ngBlockError struct {
	Off         int64  // the block's file offset (after decompression)
	What        string // what is wrong, naming the block type and the option
	Unsupported bool   // a block of a version tcpviz cannot read, not a corrupt one
}

func (e *ngBlockError) Error() string {
	kind := "corrupt"
	if e.Unsupported {
		kind = "unsupported"
	}
	return fmt.Sprintf("%s pcapng block at byte %d (%s)", kind, e.Off, e.What)
}

func newNgGuard(r io.Reader, name string, warn func(string)) *ngGuard {
	return &ngGuard{br: bufio.NewReaderSize(r, maxBlockLen+64), name: name, warn: warn, bo: binary.LittleEndian}
}

func (g *ngGuard) Read(p []byte) (int, error) {
	if g.raw {
		return g.br.Read(p)
	}
	if g.fatal != nil {
		return 0, g.fatal
	}
	if g.left == 0 {
		if err := g.next(); err != nil {
			return 0, err
		}
		if g.raw {
			return g.br.Read(p)
		}
	}
	if g.alt != nil {
		n := copy(p, g.alt[len(g.alt)-g.left:])
		g.left -= n
		if g.left == 0 {
			g.alt = nil
		}
		return n, nil
	}
	n, err := g.br.Read(p[:min(len(p), g.left)]) // the block is buffered: no error
	g.left -= n
	return n, err
}

// trailing returns, once, the numbered non-packet blocks after the last
// packet block handed on (counted when the reading ends).
func (g *ngGuard) trailing() int64 {
	n := g.pre
	g.pre = 0
	return n
}

// check returns the length of the valid block at the reader's position, or
// 0 and why it is not one. cut reports a block whose header is plausible but
// whose end lies past the end of the input.
func (g *ngGuard) check(known bool) (n int, bo binary.ByteOrder, cut bool, why string) {
	hdr, err := g.br.Peek(12)
	if len(hdr) < 12 {
		if len(hdr) == 0 && errors.Is(err, io.EOF) {
			return 0, g.bo, false, ""
		}
		return 0, g.bo, true, "input ends inside a block header"
	}
	l, bo, why := blockHeader(hdr, g.bo, known)
	if l == 0 {
		return 0, bo, false, why
	}
	blk, _ := g.br.Peek(l)
	if len(blk) < l {
		return 0, bo, true, "input ends inside a block"
	}
	if why := blockBody(blk, bo); why != "" {
		return 0, bo, false, why
	}
	return l, bo, false, ""
}

// blockHeader checks the first 12 bytes of a block and returns its length
// and byte order (a section header block sets its own), or 0 and why not.
// known also requires a block type the pcapng draft defines.
func blockHeader(hdr []byte, bo binary.ByteOrder, known bool) (int, binary.ByteOrder, string) {
	typ := bo.Uint32(hdr)
	if binary.LittleEndian.Uint32(hdr) == ngSHB {
		typ = ngSHB
		switch binary.LittleEndian.Uint32(hdr[8:]) {
		case 0x1a2b3c4d:
			bo = binary.LittleEndian
		case 0x4d3c2b1a:
			bo = binary.BigEndian
		default:
			return 0, bo, "section header with a bad byte-order magic"
		}
	}
	l := bo.Uint32(hdr[4:])
	if l < 12 || l%4 != 0 || l > maxBlockLen {
		return 0, bo, fmt.Sprintf("block type 0x%08x with impossible length %d", typ, l)
	}
	if known && !knownBlock(typ) {
		return 0, bo, "unknown block type"
	}
	return int(l), bo, ""
}

// blockBody checks a whole block blk: the trailing length and, for packet
// blocks, that the captured length fits.
func blockBody(blk []byte, bo binary.ByteOrder) string {
	l := uint32(len(blk))
	typ := bo.Uint32(blk)
	if t := bo.Uint32(blk[l-4:]); t != l {
		return fmt.Sprintf("block type 0x%08x: length %d at its start but %d at its end", typ, l, t)
	}
	switch typ {
	case ngEPB, ngPB:
		if l < 32 || bo.Uint32(blk[20:]) > l-32 {
			return fmt.Sprintf("packet block of %d bytes claims %d captured bytes", l, bo.Uint32(blk[20:]))
		}
	case ngSHB:
		if l < 28 {
			return fmt.Sprintf("section header block of %d bytes, shorter than its 28-byte minimum", l)
		}
	case ngIDB:
		if l < 20 {
			return fmt.Sprintf("interface description block of %d bytes, shorter than its 20-byte minimum", l)
		}
	}
	return ""
}

// validAhead reports whether a valid block starts at a 4-byte step after the
// reader's position within what is left of the input, which is shorter
// than the buffer (the input ends inside the current block).
func (g *ngGuard) validAhead() bool {
	rest, _ := g.br.Peek(g.br.Size())
	for o := 4; o+12 <= len(rest); o += 4 {
		l, bo, why := blockHeader(rest[o:], g.bo, true)
		if why == "" && o+l <= len(rest) && blockBody(rest[o:o+l], bo) == "" {
			return true
		}
	}
	return false
}

// after names the place of damage found now: after the last frame handed
// on, or before the first.
func (g *ngGuard) after() string {
	if g.frames == 0 {
		return "before the first frame"
	}
	return fmt.Sprintf("after frame %d", g.frames)
}

// next makes the next block to hand on the current one (g.left), past
// damage (resynchronising), past the blocks not handed on and past
// sections of a version tcpviz cannot read. It returns io.EOF at the end
// and g.fatal for a block no reading can go past.
func (g *ngGuard) next() error {
	for {
		n, bo, cut, why := g.check(false)
		first := !g.started
		g.started = true
		if n == 0 && why == "" {
			g.endSkip("the end of the file")
			return io.EOF
		}
		if n == 0 && (cut && !g.validAhead() || first) {
			// A cut capture, or a damaged first block: let pcapgo report it.
			g.endSkip("the cut")
			g.raw = true
			return nil
		}
		if n == 0 {
			start := g.off
			n, bo = g.resync()
			if n == 0 {
				g.warn(fmt.Sprintf("%s: %s: corrupt pcapng block at byte %d (%s); no valid block after it: %d bytes dropped", g.name, g.after(), start, why, g.off-start))
				g.endSkip("the end of the file")
				return io.EOF
			}
			g.warn(fmt.Sprintf("%s: %s: corrupt pcapng block at byte %d (%s); skipped %d bytes to the next valid block", g.name, g.after(), start, why, g.off-start))
		}
		g.bo = bo
		blk, _ := g.br.Peek(n)
		hand, err := g.content(blk, bo, first)
		if err != nil {
			g.fatal = err
			return err
		}
		if !hand {
			g.br.Discard(n)
			g.off += int64(n)
			continue
		}
		if g.alt == nil {
			g.left = n
		} else {
			g.br.Discard(n) // the rewritten copy goes instead
			g.left = len(g.alt)
		}
		g.off += int64(n)
		return nil
	}
}

// endSkip ends a skipped section (if one is being skipped) at where, with
// its warning.
func (g *ngGuard) endSkip(where string) {
	if !g.skip {
		return
	}
	g.skip = false
	g.warn(fmt.Sprintf("%s: %s: pcapng section at byte %d has version %d.%d, which tcpviz cannot read: skipped it (%d bytes, %d packet blocks) to %s", g.name, g.after(), g.skipFrom, g.skipVer[0], g.skipVer[1], g.off-g.skipFrom, g.skipPkts, where))
}

// content decides what to do with the whole, well-framed block blk at
// g.off: hand it on to pcapgo (hand; g.alt set when a rewritten copy goes
// instead), or not (a block tcpviz does not use, a block of a skipped
// section, a damaged packet block: warned and skipped). err is an
// *ngBlockError that stops the reading.
func (g *ngGuard) content(blk []byte, bo binary.ByteOrder, first bool) (hand bool, err error) {
	typ := bo.Uint32(blk)
	if binary.LittleEndian.Uint32(blk) == ngSHB {
		typ = ngSHB
	}
	l := len(blk)
	g.alt = nil
	if typ == ngSHB {
		major, minor := bo.Uint16(blk[12:]), bo.Uint16(blk[14:])
		if major != 1 {
			if first {
				return false, &ngBlockError{Off: g.off, What: fmt.Sprintf("section header block of pcapng version %d.%d; tcpviz reads version 1", major, minor), Unsupported: true}
			}
			if !g.skip {
				g.skip, g.skipFrom, g.skipPkts, g.skipVer = true, g.off, 0, [2]uint16{major, minor}
			}
			return false, nil
		}
		g.endSkip(fmt.Sprintf("the next section header, at byte %d", g.off))
		if why := walkOptions(blk, 24, bo, shbOption); why != "" {
			// A section's options are its comments and the writer's
			// names: the header is read without them.
			g.alt = withoutOptions(blk, 24, bo)
			g.warn(fmt.Sprintf("%s: %s: pcapng section header at byte %d: %s; its options ignored", g.name, g.after(), g.off, why))
		}
		g.ifaces, g.snap0 = 0, 0
		return true, nil
	}
	if g.skip {
		switch typ {
		case ngEPB, ngSPB, ngPB:
			g.skipPkts++
		}
		return false, nil
	}
	damaged := func(why string) (bool, error) {
		g.warn(fmt.Sprintf("%s: %s: corrupt pcapng block at byte %d (%s); the block (%d bytes) skipped", g.name, g.after(), g.off, why, l))
		return false, nil
	}
	switch typ {
	case ngIDB:
		if why := walkOptions(blk, 16, bo, idbOption); why != "" {
			return false, &ngBlockError{Off: g.off, What: "interface description block: " + why}
		}
		if why := tsresolOK(blk, bo); why != "" {
			return false, &ngBlockError{Off: g.off, What: "interface description block: " + why}
		}
		if g.ifaces == 0 {
			g.snap0 = bo.Uint32(blk[12:])
		}
		g.ifaces++
		return true, nil
	case ngEPB, ngPB:
		name := "enhanced packet block"
		id := int64(bo.Uint32(blk[8:]))
		if typ == ngPB {
			name, id = "packet block", int64(bo.Uint16(blk[8:]))
		}
		if g.ifaces == 0 {
			return damaged(name + " before any interface description block of its section")
		}
		if id >= int64(g.ifaces) {
			have := "only interface 0"
			if g.ifaces > 1 {
				have = fmt.Sprintf("interfaces 0 to %d", g.ifaces-1)
			}
			return damaged(fmt.Sprintf("%s names interface %d, but its section describes %s", name, id, have))
		}
		if typ == ngEPB {
			caplen := int(bo.Uint32(blk[20:]))
			if why := walkOptions(blk, 28+caplen+(-caplen&3), bo, epbOption); why != "" {
				g.alt = withoutOptions(blk, 28+caplen+(-caplen&3), bo)
				g.warn(fmt.Sprintf("%s: frame %d: enhanced packet block at byte %d: %s; its options ignored (the packet is read)", g.name, g.frames+1, g.off, why))
			}
		}
	case ngSPB:
		if g.ifaces == 0 {
			return damaged("simple packet block before any interface description block of its section")
		}
		if l < 16 {
			return damaged(fmt.Sprintf("simple packet block of %d bytes, too short for its packet length field", l))
		}
		orig := bo.Uint32(blk[8:])
		caplen := orig
		if g.snap0 != 0 {
			caplen = min(caplen, g.snap0)
		}
		if int64(caplen) > int64(l-16) {
			return damaged(fmt.Sprintf("simple packet block of %d bytes claims %d packet bytes", l, caplen))
		}
	case ngCB, ngCBn, ngSJE:
		// Wireshark numbers these as frames: so does tcpviz.
		g.frames++
		g.pre++
		return false, nil
	default:
		return false, nil // name resolution, statistics, secrets, unknown
	}
	g.frames++
	g.queue.push(ngRec{spb: typ == ngSPB, pre: g.pre, off: g.off})
	g.pre = 0
	return true, nil
}

// pcapng option codes named in messages, by block type
// (draft-ietf-opsawg-pcapng §4.2, 4.3, 4.2 of EPB).
var (
	shbOption = map[uint16]string{1: "opt_comment", 2: "shb_hardware", 3: "shb_os", 4: "shb_userappl"}
	idbOption = map[uint16]string{1: "opt_comment", 2: "if_name", 3: "if_description", 4: "if_IPv4addr", 5: "if_IPv6addr",
		6: "if_MACaddr", 7: "if_EUIaddr", 8: "if_speed", 9: "if_tsresol", 10: "if_tzone", 11: "if_filter", 12: "if_os",
		13: "if_fcslen", 14: "if_tsoffset", 15: "if_hardware", 16: "if_txspeed", 17: "if_rxspeed"}
	epbOption = map[uint16]string{1: "opt_comment", 2: "epb_flags", 3: "epb_hash", 4: "epb_dropcount", 5: "epb_packetid",
		6: "epb_queue", 7: "epb_verdict"}
)

// walkOptions checks the options of the whole block blk from byte from to
// its trailing length, as pcapgo reads them, and returns what is wrong
// ("" when nothing): an option whose value runs past the block's end, an
// option header cut by it, an end-of-options option with a value.
func walkOptions(blk []byte, from int, bo binary.ByteOrder, names map[uint16]string) string {
	end := len(blk) - 4
	for pos := from; pos < end; {
		if end-pos < 4 {
			return fmt.Sprintf("%d bytes before the block's end, too few for an option header", end-pos)
		}
		code, n := bo.Uint16(blk[pos:]), int(bo.Uint16(blk[pos+2:]))
		name := fmt.Sprintf("option %d", code)
		if nm, ok := names[code]; ok {
			name = fmt.Sprintf("option %d (%s)", code, nm)
		}
		if code == 0 {
			if n != 0 {
				return fmt.Sprintf("end-of-options option of length %d", n)
			}
			return ""
		}
		if pos+4+n+(-n&3) > end {
			return fmt.Sprintf("%s at byte %d of the block claims a %d-byte value, but %d bytes are left before the block's end", name, pos, n, end-pos-4)
		}
		pos += 4 + n + (-n & 3)
	}
	return ""
}

// tsresolOK checks the if_tsresol options of the interface description
// block blk (whose options walkOptions accepted): a resolution finer than
// 2^-63 or 10^-19 s cannot be counted in 64 bits (pcapgo rejects the
// first and reads the second wrong).
func tsresolOK(blk []byte, bo binary.ByteOrder) string {
	end := len(blk) - 4
	for pos := 16; pos+4 <= end; {
		code, n := bo.Uint16(blk[pos:]), int(bo.Uint16(blk[pos+2:]))
		if code == 0 {
			break
		}
		if code == 9 && n >= 1 {
			v := blk[pos+4]
			if v&0x80 != 0 && v&0x7f > 63 {
				return fmt.Sprintf("option 9 (if_tsresol) of 2^-%d s, finer than a 64-bit count of ticks can hold", v&0x7f)
			}
			if v&0x80 == 0 && v > 19 {
				return fmt.Sprintf("option 9 (if_tsresol) of 10^-%d s, finer than a 64-bit count of ticks can hold", v)
			}
		}
		pos += 4 + n + (-n & 3)
	}
	return ""
}

// withoutOptions returns a copy of the whole block blk cut before its
// options, which start at byte from: its lengths corrected.
func withoutOptions(blk []byte, from int, bo binary.ByteOrder) []byte {
	b := make([]byte, from+4)
	copy(b, blk[:from])
	bo.PutUint32(b[4:], uint32(len(b)))
	bo.PutUint32(b[from:], uint32(len(b)))
	return b
}

// resync skips forward, 4 bytes at a time, to the next valid block of a
// type the pcapng draft defines and returns its length and byte order, or 0
// at the end of the input. It scans the buffered bytes in place: a damaged
// gigabyte is skipped in about a second.
func (g *ngGuard) resync() (int, binary.ByteOrder) {
	skip := 4
	for {
		if _, err := g.br.Discard(skip); err != nil {
			return 0, g.bo
		}
		g.off += int64(skip)
		buf, err := g.br.Peek(g.br.Size())
		eof := err != nil
		o := 0
		for ; o+12 <= len(buf); o += 4 {
			if !knownBlock(g.bo.Uint32(buf[o:])) && binary.LittleEndian.Uint32(buf[o:]) != ngSHB {
				continue // the common case in damage: no formatting
			}
			l, bo, why := blockHeader(buf[o:], g.bo, true)
			if why != "" {
				continue
			}
			if o+l > len(buf) {
				if eof {
					continue // would end past the input: not a block
				}
				break // bring it into the buffer
			}
			if blockBody(buf[o:o+l], bo) == "" {
				g.br.Discard(o)
				g.off += int64(o)
				return l, bo
			}
		}
		if eof && o+12 > len(buf) {
			g.br.Discard(len(buf))
			g.off += int64(len(buf))
			return 0, g.bo
		}
		skip = o
		if skip == 0 {
			skip = 4
		}
	}
}

// knownBlock reports whether typ is a block type the pcapng draft defines.
func knownBlock(typ uint32) bool {
	switch typ {
	case ngSHB, ngIDB, ngPB, ngSPB, ngNRB, ngISB, ngEPB, ngDSB, ngCB, ngCBn, ngSJE:
		return true
	}
	return false
}
