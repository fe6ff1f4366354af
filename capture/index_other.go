//go:build !unix

package capture

import "fmt"

// CanReadIndexed is false where files are not read in windows.
func (r *Reader) CanReadIndexed(ix *FrameIndex) bool { return false }

// ReadIndexed is not supported here (CanReadIndexed).
func (r *Reader) ReadIndexed(ix *FrameIndex, tag uint8, f func(s *Segment, n int64)) error {
	return &FrameError{File: r.name, Err: fmt.Errorf("capture: ReadIndexed: %w", ErrFileChanged)}
}

func (r *Reader) fileSize() int64 { return 0 }
