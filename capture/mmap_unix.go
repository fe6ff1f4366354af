//go:build unix

package capture

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// mmapWindow is how much of a file is mapped at a time: big enough that
// mapping costs nothing per packet, small enough that the resident set stays
// bounded whatever the file size.
const mmapWindow = 32 << 20

// windowReader reads a regular file through a sliding read-only memory
// mapping, so frames are copied straight out of the page cache instead of
// through read(2), and pages already read are released.
type windowReader struct {
	f    *os.File
	size int64
	off  int64  // file offset of win[0]
	win  []byte // current mapping
	pos  int    // read position in win
}

// mapFile returns a reader over a sliding mapping of f, or nil when f cannot
// be mapped (pipes, empty files); the caller then reads f directly.
func mapFile(f *os.File) (r io.Reader, unmap func()) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return nil, nil
	}
	w := &windowReader{f: f, size: st.Size()}
	if err := w.mapAt(0); err != nil {
		return nil, nil
	}
	return w, w.release
}

func (w *windowReader) mapAt(off int64) error {
	w.release()
	n := min(int64(mmapWindow), w.size-off)
	b, err := unix.Mmap(int(w.f.Fd()), off, int(n), unix.PROT_READ, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return err
	}
	_ = unix.Madvise(b, unix.MADV_SEQUENTIAL)
	w.win, w.off, w.pos = b, off, 0
	return nil
}

func (w *windowReader) release() {
	if w.win != nil {
		unix.Munmap(w.win)
		w.win = nil
	}
}

// Read copies from the mapping. A file truncated after it was mapped (a
// ring-buffer file rotated by tcpdump -W) makes the copy fault: the fault is
// turned into a panic by debug.SetPanicOnFault, recovered here and returned
// as ErrFileChanged instead of killing the process with SIGBUS.
func (w *windowReader) Read(p []byte) (n int, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			n, err = 0, fmt.Errorf("%w: byte %d of %d is no longer there", ErrFileChanged, w.off+int64(w.pos), w.size)
		}
	}()
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
