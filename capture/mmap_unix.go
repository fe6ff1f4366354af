//go:build unix

package capture

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// readWindow is how much of a file is read at a time into the window
// buffer: big enough that read(2) costs nothing per packet, small enough
// to stay in the core's second-level cache, where the decoder reads it.
const readWindow = 256 << 10

// windowReader reads a regular file through one reused buffer filled by
// pread(2): frames are framed and decoded in place in the buffer (no copy
// per frame), and nothing of the file stays mapped or resident. It
// replaced a sliding 32 MB mmap(MAP_POPULATE) window: on the 1.2 GB bulk
// benchmark capture, mapping and unmapping cost 0.20 s of CPU against
// 0.15 s for the reads, the decoder then read cold memory instead of the
// cache, and the mapping added 32 MB to the resident set
// (docs/performance.md).
type windowReader struct {
	f    *os.File
	size int64
	off  int64  // file offset of win[0]
	win  []byte // the bytes read: buf[:n]
	pos  int    // read position in win
	buf  []byte
}

// mapFile returns a reader over f through a window buffer, or nil when f
// is not a non-empty regular file (pipes, FIFOs); the caller then reads f
// directly. unmap releases the buffer.
func mapFile(f *os.File) (r io.Reader, unmap func()) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return nil, nil
	}
	w := &windowReader{f: f, size: st.Size(), buf: make([]byte, readWindow)}
	if err := w.mapAt(0); err != nil {
		return nil, nil
	}
	return w, w.release
}

// mapAt fills the window with the file's bytes from off. A file that
// ends before its size at open (truncated or rotated meanwhile) is
// ErrFileChanged.
func (w *windowReader) mapAt(off int64) error {
	want := int(min(int64(len(w.buf)), w.size-off))
	if err := w.readAt(w.buf[:want], off); err != nil {
		return err
	}
	w.win, w.off, w.pos = w.buf[:want], off, 0
	return nil
}

// readAt fills p with the file's bytes from off: ErrFileChanged when the
// file ends before.
func (w *windowReader) readAt(p []byte, off int64) error {
	n, err := w.f.ReadAt(p, off)
	if n < len(p) {
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: byte %d of %d is no longer there", ErrFileChanged, off+int64(n), w.size)
		}
		return err
	}
	return nil
}

// release drops the buffer; reading on gives io.EOF.
func (w *windowReader) release() { w.win, w.buf, w.pos, w.size = nil, nil, 0, 0 }

// Read copies from the window, refilling it at its end.
func (w *windowReader) Read(p []byte) (n int, err error) {
	if w.pos >= len(w.win) {
		next := w.off + int64(len(w.win))
		if next >= w.size {
			return 0, io.EOF
		}
		if err := w.mapAt(next); err != nil {
			return 0, err
		}
	}
	n = copy(p, w.win[w.pos:])
	w.pos += n
	return n, nil
}

// Peek returns the next n bytes without consuming them; only within the
// current window, which is all the capture header needs.
func (w *windowReader) Peek(n int) ([]byte, error) {
	if w.pos+n > len(w.win) {
		return w.win[w.pos:], io.EOF
	}
	return w.win[w.pos : w.pos+n], nil
}
