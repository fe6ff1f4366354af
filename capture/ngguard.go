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
// whole, self-consistent blocks: a length that is a multiple of 4, at least
// 12 and at most maxBlockLen, a trailing copy of that length, and for packet
// blocks a captured length that fits the block. Damage is reported (not
// called a cut) and the guard resynchronises on the next valid block, so the
// frames after the damage are still read. A block whose header is valid but
// whose end is missing is a cut capture: its bytes go through as they are
// and pcapgo reports the cut.
type ngGuard struct {
	br      *bufio.Reader
	name    string
	warn    func(string)
	bo      binary.ByteOrder
	left    int   // bytes of the current valid block still to hand out (it is buffered)
	packets int64 // packet blocks handed out: the frame number of the last one
	off     int64 // file offset (after decompression) of the next block
	raw     bool  // pass bytes through unchecked (after a cut)
	started bool
}

func newNgGuard(r io.Reader, name string, warn func(string)) *ngGuard {
	return &ngGuard{br: bufio.NewReaderSize(r, maxBlockLen+64), name: name, warn: warn, bo: binary.LittleEndian}
}

func (g *ngGuard) Read(p []byte) (int, error) {
	if g.raw {
		return g.br.Read(p)
	}
	if g.left == 0 {
		if err := g.next(); err != nil {
			return 0, err
		}
		if g.raw {
			return g.br.Read(p)
		}
	}
	n, err := g.br.Read(p[:min(len(p), g.left)]) // the block is buffered: no error
	g.left -= n
	return n, err
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
	case ngSHB, ngIDB:
		if l < 20 {
			return "header block too short"
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

// next loads the next valid block into g.buf, resynchronising past damage.
func (g *ngGuard) next() error {
	n, bo, cut, why := g.check(false)
	first := !g.started
	g.started = true
	if n == 0 && why == "" {
		return io.EOF
	}
	if n == 0 && (cut && !g.validAhead() || first) {
		// A cut capture, or a damaged first block: let pcapgo report it.
		g.raw = true
		return nil
	}
	if n == 0 {
		start := g.off
		n, bo = g.resync()
		if n == 0 {
			g.warn(fmt.Sprintf("%s: after frame %d: corrupt pcapng block at byte %d (%s); no valid block after it: %d bytes dropped", g.name, g.packets, start, why, g.off-start))
			return io.EOF
		}
		g.warn(fmt.Sprintf("%s: after frame %d: corrupt pcapng block at byte %d (%s); skipped %d bytes to the next valid block", g.name, g.packets, start, why, g.off-start))
	}
	g.bo = bo
	blk, _ := g.br.Peek(n)
	g.left = n
	g.off += int64(n)
	switch bo.Uint32(blk) {
	case ngEPB, ngSPB, ngPB:
		g.packets++
	}
	return nil
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
