package tcpanalysis

import (
	"errors"
	"io"

	"github.com/tcpviz/tcpviz/capture"
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
	free := make(chan *segBatch, nBatches)
	full := make(chan *segBatch, nBatches)
	for range nBatches {
		free <- &segBatch{}
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
