package report

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
)

// blob collects integer columns, each delta-coded (first value absolute),
// zig-zag mapped and written as unsigned varints (the encoding of
// encoding/binary.PutVarint), so that regular series such as times,
// sequence numbers and frame numbers take one byte or less per value after
// gzip. The page decodes them with the same rules (report.js decodeCol).
//
// A column equal to one added before is stored once (the x and frame
// columns of the ACK and window-edge lines, or of the two in-flight lines,
// are the same).
type blob struct {
	buf  bytes.Buffer
	tmp  [binary.MaxVarintLen64]byte
	seen map[[sha256.Size]byte]*col
}

// col is where a column sits in the decompressed blob: byte offset, byte
// length and number of values.
type col [3]int

// add appends v and returns its place; nil for an empty column.
func (b *blob) add(v []int64) *col {
	if len(v) == 0 {
		return nil
	}
	off := b.buf.Len()
	var prev int64
	for _, x := range v {
		n := binary.PutVarint(b.tmp[:], x-prev)
		b.buf.Write(b.tmp[:n])
		prev = x
	}
	c := &col{off, b.buf.Len() - off, len(v)}
	sum := sha256.Sum256(b.buf.Bytes()[off:])
	if old, ok := b.seen[sum]; ok && old[1] == c[1] {
		b.buf.Truncate(off)
		return old
	}
	if b.seen == nil {
		b.seen = map[[sha256.Size]byte]*col{}
	}
	b.seen[sum] = c
	return c
}

// gzipped returns the blob compressed with gzip (the page inflates it with
// the browser's DecompressionStream).
func (b *blob) gzipped() ([]byte, error) {
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b.buf.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// decodeCol is the inverse of add, for tests.
func decodeCol(data []byte, c col) []int64 {
	out := make([]int64, 0, c[2])
	p := data[c[0] : c[0]+c[1]]
	var prev int64
	for len(p) > 0 {
		d, n := binary.Varint(p)
		p = p[n:]
		prev += d
		out = append(out, prev)
	}
	return out
}
