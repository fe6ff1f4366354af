package tcpanalysis

import (
	"cmp"
	"errors"
	"io"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/hwprefetch"
	"github.com/tcpviz/tcpviz/internal/prefault"
)

// Sharded analysis: one goroutine reads and decodes the capture (as in
// pipeline.go) and hands every batch of segments to nShards Analyzers, each
// in a goroutine of its own and owning the connections whose 4-tuple hashes
// to it (both directions, port reuse and ICMP errors quoting the 4-tuple
// land in the same shard). Each shard sees its segments in capture order.
// What one Analyzer would do at a point of the whole capture (release the
// state of finished connections every releaseEvery segments, sweep copy
// folding every flows.SweepEvery segments, note a fine timestamp
// resolution) the reader schedules as ticks that every shard runs at the
// same point, so every result is the one a single Analyzer computes. The
// results are merged in order of first packet (Conn.FirstFrame), which is
// the order a single Analyzer numbers connections in.

// maxShards bounds the analysis goroutines of one file; dispatchStep is
// how many segments are read at a time before they are marked;
// shardBatches is how many batches of segments are in use at once
// (reading, queued, analysed). A batch is free again once every shard has
// passed it, so a shard can run ahead of the slowest by at most
// shardBatches batches: 16 (8 MB of segments) let one shard's burst of
// releases pass without stalling the others and the reader, where 6 left
// the two cores idle 15 % of the time on the short benchmark capture
// (docs/performance.md).
const (
	maxShards    = 8
	dispatchStep = 32
	// prefetchAhead is how many of its segments ahead a shard prefetches
	// (hwprefetch.Read).
	prefetchAhead = 4
	shardBatches  = 16
)

// errShardRedo is analyzeSharded's error when the shards cannot be sure to
// give what one Analyzer would (shardLiveTotal): AnalyzeFile then reads the
// file again with one.
var errShardRedo = errors.New("sharded analysis given up: read again by one analyzer")

// shardLiveTotal bounds the connections the shards together may hold
// alive (in Analyzer.live): a shard holding more than shardLiveTotal/n
// gives up (errShardRedo). One Analyzer's decisions may depend on how many
// connections are alive at once in the whole capture, which no shard sees
// (table pressure: robustness.md#finished-connections); below the bound on
// every shard the whole stays below it and such a decision is known not to
// be taken. A capture with more connections alive at once (a SYN flood, a
// scan) is read twice, the second time by one Analyzer.
const shardLiveTotal = maxLive

// shardLiveLimit, when above 0, replaces shardLiveTotal/n (tests).
var shardLiveLimit = 0

// tick kinds.
const (
	tickRelease = iota // Analyzer.release(now)
	tickSweep          // Tracker.Sweep(now)
	tickFine           // Tracker.MarkFine()
)

// A batch's positions are uint16 (shardBatch.own).
const _ = uint16(batchLen - 1)

// A tick is something every shard does before the segment at pos of its
// batch.
type tick struct {
	pos  int
	kind uint8
	now  capture.Timestamp
}

type shardBatch struct {
	segs [batchLen]capture.Segment
	hash [batchLen]uint64 // flows.PairHash of each segment
	// own lists, per shard, the positions in segs of its segments, in
	// order (a segment of another pcapng interface than Options.Ifaces
	// asks for is in none): a shard visits only its own.
	own     [][]uint16 // positions fit: batchLen ≤ 1<<16 (below)
	ticks   []tick
	n       int
	err     error // the error that ended reading (io.EOF at the end), after segs[:n]
	pending atomic.Int32
}

// shards returns how many Analyzers a file is analysed with: one per core
// up to maxShards, and one when any function-valued option is set. Those
// known today all need a single analysis in capture order: callbacks
// (OnRTT, OnEvent); Keep, Only and NewSeries, which are asked by connection
// index as connections appear; Filter, whose rejected segments count
// towards releases but not towards the tracker's sweeps. An option added
// later is therefore sequential until shard.go handles it.
func shards(opts *Options) int {
	if opts.Inline || opts.OnlyKey != nil || opts.Index != nil {
		return 1
	}
	v := reflect.ValueOf(opts).Elem()
	for i := range v.NumField() {
		// OnDone is called by the merger (mergeStream).
		if f := v.Field(i); f.Kind() == reflect.Func && !f.IsNil() && v.Type().Field(i).Name != "OnDone" {
			return 1
		}
	}
	return min(runtime.GOMAXPROCS(0), maxShards)
}

// shardOf returns the shard of a segment's 4-tuple: the same for both
// directions.
func shardOf(s *capture.Segment, n int) uint8 { return shardOfHash(flows.PairHash(s.Src, s.Dst), n) }

// shardOfHash is shardOf from the segment's flows.PairHash, which the
// reader hands the shard with the segment. Bits 22–53 of the hash are
// scaled to [0, n) by a multiplication (Lemire's fastrange), not a
// division, as this runs for every segment: the shard is decided by the
// window's top bits, which depend on every input bit of the multiplicative
// hash (ports and addresses that count up together, a scan or a load
// generator, still spread evenly), and lie below the top 10 bits that pick
// the tracker's cache slot, so a shard's connections use every slot.
func shardOfHash(h uint64, n int) uint8 {
	return uint8((h >> 22 & 0xffffffff) * uint64(n) >> 32)
}

// shardReport is what a shard hands the merger after each batch when the
// results are streamed (Options.OnDone): the connections it opened in the
// batch, in order, and the results it streamed out.
type shardReport struct {
	k       int
	created []*ConnResult
	done    []*ConnResult
	last    bool // after the end of the capture: the rest of the results
}

// analyzeSharded analyses every segment of r with n shards and returns the
// results of every connection in index order (none with Options.OnDone,
// whose calls it makes on the calling goroutine) and the warnings about
// connections. A connection's index is its rank by first packet over all
// shards; with Options.OnDone the merger gives it once every shard has
// passed the batch that opened it, and streams a result out once every
// shard has passed the batch that ended it.
func analyzeSharded(r *capture.Reader, opts *Options, n int) ([]*ConnResult, []string, error) {
	const nb = shardBatches
	limit := shardLiveTotal / n // below it on every shard, the table never passes maxLive
	if shardLiveLimit > 0 {
		limit = shardLiveLimit
	}
	free := make(chan *shardBatch, nb)
	for range nb {
		b := prefault.New(&shardBatch{own: make([][]uint16, n)})
		for k := range b.own {
			b.own[k] = prefault.Slice(make([]uint16, 0, batchLen))
		}
		free <- b
	}
	ins := make([]chan *shardBatch, n)
	for i := range ins {
		ins[i] = make(chan *shardBatch, nb)
	}
	var abort atomic.Bool   // a shard passed the limit
	var forgot atomic.Int64 // connections the shards' trackers forgot
	// The reader: batches of segments, each marked with its shard, and
	// the ticks of the whole capture.
	go func() {
		var added, tracked int64 // segments given to Analyzer.Add, and to Tracker.Add
		fine := false
		for b := range free {
			b.n, b.err = 0, nil
			if abort.Load() {
				b.err = errShardRedo
			}
			b.ticks = b.ticks[:0]
			for k := range b.own {
				b.own[k] = b.own[k][:0]
			}
			// Read in small steps and mark each step's segments at once,
			// while they are still in the first-level cache.
			for b.n < batchLen && b.err == nil {
				var k int
				lo := b.n
				k, b.err = r.NextBatch(b.segs[lo:min(lo+dispatchStep, batchLen)])
				b.n += k
				for i := lo; i < b.n; i++ {
					s := &b.segs[i]
					if len(opts.Ifaces) > 0 && !slices.Contains(opts.Ifaces, s.Iface) {
						continue
					}
					h := flows.PairHash(s.Src, s.Dst)
					b.hash[i] = h
					sh := shardOfHash(h, n)
					b.own[sh] = append(b.own[sh], uint16(i))
					if added++; added%releaseEvery == 0 {
						b.ticks = append(b.ticks, tick{pos: i, kind: tickRelease, now: s.Time})
					}
					if s.ICMP != capture.ICMPNone {
						continue
					}
					if tracked++; tracked%flows.SweepEvery == 0 {
						b.ticks = append(b.ticks, tick{pos: i, kind: tickSweep, now: s.Time})
					}
					if !fine && flows.IsFine(s.Time) {
						fine = true
						b.ticks = append(b.ticks, tick{pos: i, kind: tickFine})
					}
				}
			}
			b.pending.Store(int32(n))
			for _, in := range ins {
				in <- b
			}
			if b.err != nil {
				for _, in := range ins {
					close(in)
				}
				return
			}
		}
	}()
	stream := opts.OnDone != nil
	reports := make(chan shardReport, n*nb)
	as := make([]*Analyzer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		o := *opts
		var rep shardReport // this batch's, when streaming
		if stream {
			o.OnDone = func(res *ConnResult, _ capture.Timestamp) { rep.done = append(rep.done, res) }
		}
		a := New(o)
		a.shard = true
		a.tracker.SetShard()
		as[k] = a
		wg.Add(1)
		go func() {
			defer wg.Done()
			tripped := false
			for b := range ins[k] {
				if abort.Load() {
					// Given up: drain the batches so the reader ends.
					if b.pending.Add(-1) == 0 && b.err == nil {
						free <- b
					}
					continue
				}
				// The ticks at or before each of its segments, then the
				// segment; the ticks after its last segment at the end.
				ti := 0
				runTicks := func(upTo int) {
					for ; ti < len(b.ticks) && b.ticks[ti].pos <= upTo; ti++ {
						switch t := &b.ticks[ti]; t.kind {
						case tickRelease:
							f := a.forgot
							a.release(t.now)
							forgot.Add(a.forgot - f)
						case tickSweep:
							a.tracker.Sweep(t.now)
						case tickFine:
							a.tracker.MarkFine()
						}
					}
				}
				own := b.own[k]
				for j, i16 := range own {
					if j+prefetchAhead < len(own) {
						hwprefetch.Read(unsafe.Pointer(&b.segs[own[j+prefetchAhead]]))
					}
					i := int(i16)
					if ti < len(b.ticks) && b.ticks[ti].pos <= i {
						runTicks(i)
					}
					opened, late := a.base+len(a.res), a.tracker.Late
					a.add(&b.segs[i], b.hash[i], true)
					if a.tracker.Late != late && forgot.Load()+shardLiveTotal >= flows.MaxGone {
						// A late segment on a forgotten 4-tuple: one
						// tracker forgets the oldest of flows.MaxGone
						// 4-tuples, which no shard can tell once that
						// many may have been forgotten (the shards
						// behind this one may forget up to
						// shardLiveTotal more at their next release).
						abort.Store(true)
						tripped = true
					}
					if stream && a.base+len(a.res) > opened {
						rep.created = append(rep.created, &a.res[len(a.res)-1].ConnResult)
					}
					if len(a.live) > limit {
						abort.Store(true)
						tripped = true
					}
				}
				runTicks(batchLen)
				if b.err != nil {
					errs[k] = b.err
				}
				if stream && !tripped {
					// A batch in which the limit was passed is never
					// reported: what was streamed out is one Analyzer's.
					rep.k = k
					reports <- rep
					rep = shardReport{}
				}
				if b.pending.Add(-1) == 0 && b.err == nil {
					free <- b
				}
			}
			if !abort.Load() {
				a.finish() // streams the rest out (OnDone)
				if stream {
					rep.k, rep.last = k, true
					reports <- rep
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(reports)
	}()
	var ds doneStats
	if stream {
		ds = mergeStream(r, opts, n, reports)
	} else {
		for range reports {
		}
	}
	if abort.Load() {
		return nil, nil, errShardRedo
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, err
		}
	}
	if stream {
		return nil, ds.warnings(late(as)), nil
	}
	// Merge the shards' connections by first packet.
	parts := make([][]*ConnResult, n)
	total := 0
	for k, a := range as {
		parts[k] = a.Results()
		total += len(parts[k])
	}
	out := make([]*ConnResult, 0, total)
	next := make([]int, n)
	for len(out) < total {
		best := -1
		for k := range parts {
			if next[k] < len(parts[k]) && (best < 0 || parts[k][next[k]].Conn.FirstFrame < parts[best][next[best]].Conn.FirstFrame) {
				best = k
			}
		}
		c := parts[best][next[best]]
		next[best]++
		c.Conn.Index = len(out)
		ds.add(c)
		out = append(out, c)
	}
	return out, ds.warnings(late(as)), nil
}

// mergeStream numbers the connections the shards report by first packet
// and calls opts.OnDone with each result once every shard has reported the
// batch that ended it (in index order within a batch; the rest at the end
// of the capture in index order). It returns the warning counts of every
// result streamed out.
func mergeStream(r *capture.Reader, opts *Options, n int, reports <-chan shardReport) doneStats {
	var ds doneStats
	queue := make([][]shardReport, n) // per shard, reports not yet merged
	next := 0                         // the next global index
	var last []*ConnResult
	reuse := opts.ReuseResults
	emit := func(done []*ConnResult) {
		for _, res := range done {
			res.Conn.Index, res.index = res.index, 0 // the result as one Analyzer gives it
		}
		slices.SortFunc(done, func(x, y *ConnResult) int { return x.Conn.Index - y.Conn.Index })
		start, _ := r.FirstFrameTime()
		for _, res := range done {
			ds.add(res)
			opts.OnDone(res, start)
		}
		if reuse {
			giveBack(done)
		}
	}
	for rep := range reports {
		if rep.last {
			last = append(last, rep.done...)
			continue
		}
		queue[rep.k] = append(queue[rep.k], rep)
		for {
			ready := true
			for _, q := range queue {
				ready = ready && len(q) > 0
			}
			if !ready {
				break
			}
			var created []*ConnResult
			var done []*ConnResult
			for k := range queue {
				created = append(created, queue[k][0].created...)
				done = append(done, queue[k][0].done...)
				queue[k] = queue[k][1:]
			}
			slices.SortFunc(created, func(x, y *ConnResult) int { return cmp.Compare(x.Conn.FirstFrame, y.Conn.FirstFrame) })
			for _, c := range created {
				c.index = next // the shard does not touch this field
				next++
			}
			emit(done)
		}
	}
	reuse = false // the shards are done: nothing to reuse them for
	emit(last)
	return ds
}

// giveBack returns results OnDone is done with to the pools of the shards
// that made them (Options.ReuseResults): every result streamed before the
// end of the capture is of a connection its shard's tracker forgot.
func giveBack(done []*ConnResult) {
	for len(done) > 0 {
		p := done[0].state.pool
		var css []*connState
		rest := done[:0]
		for _, res := range done {
			if res.state.pool == p {
				css = append(css, res.state)
			} else {
				rest = append(rest, res)
			}
		}
		p.giveBack(css)
		done = rest
	}
}

// bitset is a set of connection indices, one bit each.
type bitset []uint64

func (b *bitset) set(i int) {
	for len(*b) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

// late sums the segments the shards' trackers left out as late
// (flows.Tracker.Late).
func late(as []*Analyzer) int64 {
	var n int64
	for _, a := range as {
		n += a.tracker.Late
	}
	return n
}
