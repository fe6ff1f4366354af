package tcpanalysis

import (
	"sync"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/prefault"
)

// scratchPool keeps the per-direction and handshake state of connections
// that are over for the connections that open after them: a capture of
// many short connections would otherwise allocate (and the collector
// reclaim) a dirState, an hsState and their queues for every connection.
// Each Analyzer has its own; a recycled state is reset to its zero value
// but for the capacity of its small slices.
type scratchPool struct {
	dirs  []*dirState
	hss   []*hsState
	hists []*medHist
	// css are connections over whose results OnDone is done with
	// (Options.ReuseResults), their Conns not yet given to the tracker;
	// back holds those a shard's merger gave back, under mu.
	css  []*connState
	mu   sync.Mutex
	back []*connState
}

// maxPooled bounds the states a pool keeps of each kind, and
// maxPooledCap the capacity of a slice a recycled state keeps (a longer
// one is dropped: a bulk connection's queue is not held for the next).
const (
	maxPooled    = 4096
	maxPooledCap = 256
)

// newDir returns a zeroed dirState: a pooled one reset to its zero value
// but for its small slices' capacities, or a new one.
//
// The reset is here rather than in putDir: a connection's state is put
// back when it is over, seconds of capture after its last packet and out
// of every cache, and writing its 11 cache lines then stalled the release
// of finished connections; here they are written just before the new
// connection uses them (docs/performance.md, session 14).
func (p *scratchPool) newDir() *dirState {
	if p == nil {
		return &dirState{}
	}
	ds, fresh := take(&p.dirs)
	if fresh {
		return ds
	}
	*ds = dirState{
		seen:   ds.seen.recycled(),
		resent: ds.resent.recycled(),
		probe:  ds.probe.recycled(),
		sacked: ds.sacked.recycled(),
		out:    ds.out[:0],
		tsq:    ds.tsq[:0],
		retx:   ds.retx[:0],
		pmtu:   ds.pmtu[:0],
	}
	return ds
}

// putDir keeps ds for newDir, which resets it; ds must no longer be
// referenced. What a pooled state must not hold until then is dropped
// here: slices longer than maxPooledCap (a bulk connection's queue is not
// held for the next) and a span set's tree.
func (p *scratchPool) putDir(ds *dirState) {
	if p == nil || len(p.dirs) >= maxPooled {
		return
	}
	if cap(ds.out) > maxPooledCap {
		ds.out = nil
	}
	if cap(ds.tsq) > maxPooledCap {
		ds.tsq = nil
	}
	if cap(ds.retx) > maxPooledCap {
		ds.retx = nil
	}
	if cap(ds.pmtu) > maxPooledCap {
		ds.pmtu = nil
	}
	for _, ss := range [...]*spanSet{&ds.seen, &ds.resent, &ds.probe, &ds.sacked} {
		if ss.tree != nil || cap(ss.s) > maxPooledCap || cap(ss.scratch) > maxPooledCap {
			*ss = ss.recycled()
		}
	}
	p.dirs = append(p.dirs, ds)
}

// newHS returns a zeroed hsState.
func (p *scratchPool) newHS() *hsState {
	if p == nil {
		return &hsState{}
	}
	return pop(&p.hss)
}

// pop takes the last state of a pool's stack, or a new zero one when the
// stack is empty.
func pop[T any](stack *[]*T) *T {
	x, _ := take(stack)
	return x
}

// take is pop, and reports whether the state is a new one (fresh, zero)
// rather than one given back, which the caller resets.
func take[T any](stack *[]*T) (x *T, fresh bool) {
	n := len(*stack)
	if n == 0 {
		return prefault.New(new(T)), true
	}
	x = (*stack)[n-1]
	(*stack)[n-1] = nil
	*stack = (*stack)[:n-1]
	return x, false
}

// putHS resets h and keeps it for newHS. h must no longer be referenced.
func (p *scratchPool) putHS(h *hsState) {
	if p == nil || h == nil || len(p.hss) >= maxPooled {
		return
	}
	*h = hsState{syns: small(h.syns), synAcks: small(h.synAcks), synRetx: [2][]retxRec{small(h.synRetx[0]), small(h.synRetx[1])}}
	p.hss = append(p.hss, h)
}

// small returns s emptied, or nil when its capacity is above maxPooledCap.
func small[T any](s []T) []T {
	if cap(s) > maxPooledCap {
		return nil
	}
	return s[:0]
}

// recycled returns an empty set that keeps ss's slices' capacities (not
// its tree).
func (ss *spanSet) recycled() spanSet {
	return spanSet{s: small(ss.s), scratch: small(ss.scratch)}
}

// newConnState returns a zeroed connState: a reused one when some are
// pooled (Options.ReuseResults), else a new one.
func (p *scratchPool) newConnState() *connState {
	cs, fresh := take(&p.css)
	if !fresh {
		*cs = connState{}
	}
	return cs
}

// putConnState keeps cs, a connection over whose result OnDone has
// returned, for newConnState; its Conn goes to the tracker at the next
// recycleConns. Only the goroutine of the Analyzer calls it.
func (p *scratchPool) putConnState(cs *connState) {
	if len(p.css) < maxPooled {
		p.css = append(p.css, cs)
	}
}

// giveBack is putConnState for the merger of a sharded analysis, on
// another goroutine than the shard's.
func (p *scratchPool) giveBack(cs []*connState) {
	p.mu.Lock()
	if len(p.back) < maxPooled {
		p.back = append(p.back, cs...)
	}
	p.mu.Unlock()
}

// recycleConns moves the connections the merger gave back into the pool
// and hands the tracker the Conns of the pooled ones it has not had yet.
// Called by the Analyzer's goroutine when a connection opens.
func (p *scratchPool) recycleConns(t *flows.Tracker) {
	if len(p.css) == 0 {
		p.mu.Lock()
		p.css, p.back = p.back, p.css[:0]
		p.mu.Unlock()
		for _, cs := range p.css {
			if cs.Conn != nil {
				t.Recycle(cs.Conn)
				cs.Conn = nil
			}
		}
	}
}

// newHist returns an empty medHist.
func (p *scratchPool) newHist() *medHist {
	if p == nil {
		return &medHist{}
	}
	return pop(&p.hists)
}

// putHist empties h and keeps it for newHist. h must no longer be
// referenced.
func (p *scratchPool) putHist(h *medHist) {
	if p == nil || len(p.hists) >= maxPooled {
		return
	}
	h.reset()
	p.hists = append(p.hists, h)
}
