package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
)

// zstd frame magics (RFC 8878 §3.1).
const (
	zstdMagic        = 0xfd2fb528
	zstdSkippableLow = 0x184d2a50 // to 0x184d2a5f
)

// ErrZstdChecksum means a zstd frame's content checksum does not match the
// data decompressed from it.
var ErrZstdChecksum = errors.New("zstd: frame checksum mismatch")

// zstdStream decompresses a zstd stream frame by frame, as gzip is read:
// each frame's data is handed out as it is decoded (checksum verification
// is done here, at the frame's end, instead of by the decoder, which holds
// a frame's last block back until its checksum passes), skippable frames
// (pzstd writes one first) are skipped, and a checksum mismatch or a cut
// frame is an error after every byte that could be decoded. One block is
// at most 128 KiB, so memory stays bounded whatever the frame size.
type zstdStream struct {
	br     *bufio.Reader
	dec    *zstd.Decoder
	fr     zstdFrame
	hash   *xxhash.Digest
	frame  int  // 1-based index of the current frame
	active bool // a frame is being decoded
	err    error
}

func newZstdStream(r io.Reader) (*zstdStream, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.IgnoreChecksum(true), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, err
	}
	return &zstdStream{br: bufio.NewReaderSize(r, 1<<16), dec: dec, hash: xxhash.New()}, nil
}

func (z *zstdStream) Read(p []byte) (int, error) {
	for {
		if z.err != nil {
			return 0, z.err
		}
		if !z.active {
			if err := z.nextFrame(); err != nil {
				z.err = err
				return 0, err
			}
			continue
		}
		n, err := z.dec.Read(p)
		z.hash.Write(p[:n])
		switch {
		case err == io.EOF:
			z.active = false
			if z.fr.err != nil {
				z.err = z.fr.err
			} else if z.fr.hasSum && uint32(z.hash.Sum64()) != z.fr.sum {
				z.err = fmt.Errorf("%w (frame %d)", ErrZstdChecksum, z.frame)
			}
		case err != nil:
			if z.fr.err != nil {
				err = z.fr.err
			}
			z.err = fmt.Errorf("zstd: frame %d: %w", z.frame, err)
		}
		if n > 0 {
			return n, nil
		}
	}
}

// nextFrame skips skippable frames and starts decoding the next zstd frame;
// io.EOF at the clean end of the stream.
func (z *zstdStream) nextFrame() error {
	for {
		m, err := z.br.Peek(4)
		if len(m) == 0 && err == io.EOF {
			return io.EOF
		}
		if len(m) < 4 {
			return fmt.Errorf("zstd: %w after frame %d", io.ErrUnexpectedEOF, z.frame)
		}
		magic := binary.LittleEndian.Uint32(m)
		switch {
		case magic&0xfffffff0 == zstdSkippableLow:
			h, _ := z.br.Peek(8)
			if len(h) < 8 {
				return fmt.Errorf("zstd: skippable frame cut: %w", io.ErrUnexpectedEOF)
			}
			n := int64(binary.LittleEndian.Uint32(h[4:]))
			z.br.Discard(8)
			if k, _ := io.CopyN(io.Discard, z.br, n); k < n {
				return fmt.Errorf("zstd: skippable frame cut: %w", io.ErrUnexpectedEOF)
			}
		case magic == zstdMagic:
			z.frame++
			z.fr = zstdFrame{br: z.br}
			if err := z.fr.header(); err != nil {
				return fmt.Errorf("zstd: frame %d: %w", z.frame, err)
			}
			z.hash.Reset()
			if err := z.dec.Reset(&z.fr); err != nil {
				return fmt.Errorf("zstd: frame %d: %w", z.frame, err)
			}
			z.active = true
			return nil
		default:
			return fmt.Errorf("zstd: frame %d: not a zstd frame (magic %08x)", z.frame+1, magic)
		}
	}
}

// zstdFrame reads exactly one zstd frame from br (header, blocks and
// checksum, found from the block headers) and then io.EOF, so the decoder
// never reads past the frame. It records the stored checksum.
type zstdFrame struct {
	br     *bufio.Reader
	left   int  // bytes of the current piece still to hand out
	last   bool // the current block is the frame's last
	inSum  bool // the current piece is the checksum
	done   bool
	hasSum bool
	sum    uint32
	err    error // why the frame ended early (cut input)
	fake   bool  // the checksum was cut: zeros stand in for it
}

// header sets up the frame header as the first piece.
func (f *zstdFrame) header() error {
	h, _ := f.br.Peek(5)
	if len(h) < 5 {
		return io.ErrUnexpectedEOF
	}
	fhd := h[4]
	f.hasSum = fhd&0x04 != 0
	single := fhd&0x20 != 0
	n := 5 // magic + descriptor
	if !single {
		n++ // window descriptor
	}
	n += [4]int{0, 1, 2, 4}[fhd&3]
	switch fhd >> 6 {
	case 0:
		if single {
			n++
		}
	case 1:
		n += 2
	case 2:
		n += 4
	case 3:
		n += 8
	}
	f.left = n
	return nil
}

func (f *zstdFrame) Read(p []byte) (int, error) {
	if f.done {
		return 0, io.EOF
	}
	if f.left == 0 {
		switch {
		case f.inSum:
			f.done = true
			return 0, io.EOF
		case f.last:
			if !f.hasSum {
				f.done = true
				return 0, io.EOF
			}
			s, _ := f.br.Peek(4)
			f.inSum, f.left = true, 4
			if len(s) < 4 {
				// The data is whole; hand the decoder (which ignores
				// checksums) four zeros so it releases the last block,
				// and report the cut after it.
				f.err = fmt.Errorf("checksum cut: %w", io.ErrUnexpectedEOF)
				f.fake, f.hasSum = true, false
				f.br.Discard(len(s))
			} else {
				f.sum = binary.LittleEndian.Uint32(s)
			}
		default:
			b, _ := f.br.Peek(3)
			if len(b) < 3 {
				f.err = fmt.Errorf("block header cut: %w", io.ErrUnexpectedEOF)
				return 0, io.ErrUnexpectedEOF
			}
			h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
			f.last = h&1 != 0
			size := int(h >> 3)
			switch (h >> 1) & 3 {
			case 1: // RLE: one byte repeated size times
				size = 1
			case 3:
				f.err = errors.New("reserved block type: corrupt frame")
				return 0, f.err
			}
			f.left = 3 + size
		}
	}
	if f.fake {
		n := min(len(p), f.left)
		clear(p[:n])
		f.left -= n
		return n, nil
	}
	n, err := f.br.Read(p[:min(len(p), f.left)])
	f.left -= n
	if err == io.EOF {
		f.err = fmt.Errorf("block cut: %w", io.ErrUnexpectedEOF)
		err = io.ErrUnexpectedEOF
	}
	return n, err
}
