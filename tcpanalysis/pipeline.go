package tcpanalysis

import (
	"errors"
	"io"
	"runtime"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/prefault"
)

// batchLen is how many segments travel from the reader to the analysis at
// once; nBatches how many batches are in use (reading, queued, analysed).
const (
	batchLen = 2048
	nBatches = 4
)

type segBatch struct {
	segs [batchLen]capture.Segment
	n    int
	err  error // the error that ended reading (io.EOF at the end), after segs[:n]
}

// pipeline reads every segment of r in a goroutine and calls f for each in
// capture order on the calling goroutine. It returns r's first error other
// than io.EOF. capture.Segment holds no references into the read buffer,
// so a batch is safe to hand over.
func pipeline(r *capture.Reader, f func(*capture.Segment)) error {
	if splitRead(r) {
		return pipelineFrames(r, f)
	}
	free := make(chan *segBatch, nBatches)
	full := make(chan *segBatch, nBatches)
	for range nBatches {
		free <- prefault.New(&segBatch{})
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(full)
		for {
			var b *segBatch
			select {
			case b = <-free:
			case <-stop:
				return
			}
			b.n, b.err = r.NextBatch(b.segs[:])
			full <- b
			if b.err != nil {
				return
			}
		}
	}()
	for b := range full {
		for i := 0; i < b.n; i++ {
			f(&b.segs[i])
		}
		if b.err != nil {
			if errors.Is(b.err, io.EOF) {
				return nil
			}
			return b.err
		}
		free <- b
	}
	return nil
}

// splitRead reports whether pipeline reads r split (pipelineFrames): a
// plain pcap file read in place, on more than one core (on one, decoding
// beside the analysis only costs more).
func splitRead(r *capture.Reader) bool { return r.CanReadFrames() && runtime.GOMAXPROCS(0) > 1 }

// nFrameBatches is how many batches of frames pipelineFrames has in use.
const nFrameBatches = 4

// pipelineFrames is pipeline for a plain pcap file (capture.Reader.
// ReadFrames): the reading goroutine only reads and frames the records,
// and the frames are decoded on the calling goroutine, a run at a time
// analysed while in cache. When the analysis is the slower, the reading
// goroutine decodes too: a batch it framed while the analysis had one
// waiting, and, instead of waiting for a free batch, the newest batch the
// analysis has yet to reach (capture.FrameBatch.TryDecode). Both cores
// stay busy whichever side costs more: on the bulk benchmark capture the
// counting pass of seq spends more on the analysis than on reading, its
// second pass (Options.Filter) less.
func pipelineFrames(r *capture.Reader, f func(*capture.Segment)) error {
	free := make(chan *capture.FrameBatch, nFrameBatches)
	full := make(chan *capture.FrameBatch, nFrameBatches)
	for range nFrameBatches {
		free <- capture.NewFrameBatch()
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(full)
		// sent are the batches handed to the analysis, oldest first;
		// they come back through free in that order.
		sent := make([]*capture.FrameBatch, 0, nFrameBatches)
		for {
			var b *capture.FrameBatch
			select {
			case b = <-free:
			case <-stop:
				return
			default:
				if capture.TryDecodeNewest(sent) {
					continue
				}
				select {
				case b = <-free:
				case <-stop:
					return
				}
			}
			if len(sent) > 0 && sent[0] == b {
				sent = append(sent[:0], sent[1:]...)
			}
			more := r.ReadFrames(b)
			if len(full) > 0 {
				// The analysis has a batch waiting: it is the slower.
				b.Decode()
			}
			sent = append(sent, b)
			full <- b
			if !more {
				return
			}
		}
	}()
	for b := range full {
		err := r.Segments(b, func(segs []capture.Segment) {
			for i := range segs {
				f(&segs[i])
			}
		})
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		free <- b
	}
	return nil
}

// inline is pipeline on the calling goroutine (Options.Inline): segments
// are read a small batch at a time, each analysed while it is still in
// the core's cache.
func inline(r *capture.Reader, f func(*capture.Segment)) error {
	segs := make([]capture.Segment, 64)
	for {
		n, err := r.NextBatch(segs)
		for i := range n {
			f(&segs[i])
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// The shards' late-segment check (shard.go) holds only while a shard lags
// the reader by less than one release interval: fewer segments in flight
// than releaseEvery.
const _ = uint(releaseEvery - max(nBatches+2, shardBatches)*batchLen - 1)
