//go:build !unix

package capture

import "errors"

// splitReader is not used where files are not read in windows: no Reader
// can read frames in batches (CanReadFrames).
type splitReader struct{ warnings []frameWarning }

// ReadFrames is not supported here: CanReadFrames is always false.
func (r *Reader) ReadFrames(b *FrameBatch) bool {
	b.nframes = 0
	b.last, b.rerr, b.ctxErr, b.claimed, b.at, b.n = true, nil, &FrameError{File: r.name, Err: errors.New("capture: ReadFrames is not supported on this system")}, false, 0, 0
	return false
}
