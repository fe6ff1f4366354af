package capture

import "sync/atomic"

// firstFrame holds the time of a capture's first frame for readers on
// other goroutines: the analysis reads it while the reader goroutine reads
// on (tcpanalysis streams results with the capture's start).
type firstFrame struct {
	t  atomic.Int64
	ok atomic.Bool
}

func (f *firstFrame) set(t Timestamp) {
	f.t.Store(int64(t))
	f.ok.Store(true)
}

// FirstFrameTime returns Stats.First, the capture time of the first frame
// read so far, and false before any frame was read. Unlike Stats it is safe
// to call from another goroutine while r is being read.
func (r *Reader) FirstFrameTime() (Timestamp, bool) {
	if !r.first.ok.Load() {
		return 0, false
	}
	return Timestamp(r.first.t.Load()), true
}
