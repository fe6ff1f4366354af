package tcpanalysis

// scratchPool keeps the per-direction and handshake state of connections
// that are over for the connections that open after them: a capture of
// many short connections would otherwise allocate (and the collector
// reclaim) a dirState, an hsState and their queues for every connection.
// Each Analyzer has its own; a recycled state is reset to its zero value
// but for the capacity of its small slices.
type scratchPool struct {
	dirs []*dirState
	hss  []*hsState
}

// maxPooled bounds the states a pool keeps of each kind, and
// maxPooledCap the capacity of a slice a recycled state keeps (a longer
// one is dropped: a bulk connection's queue is not held for the next).
const (
	maxPooled    = 4096
	maxPooledCap = 256
)

// newDir returns a zeroed dirState.
func (p *scratchPool) newDir() *dirState {
	if p == nil || len(p.dirs) == 0 {
		return &dirState{}
	}
	ds := p.dirs[len(p.dirs)-1]
	p.dirs[len(p.dirs)-1] = nil
	p.dirs = p.dirs[:len(p.dirs)-1]
	return ds
}

// putDir resets ds to its zero value, keeping its small slices'
// capacities, and keeps it for newDir. ds must no longer be referenced.
func (p *scratchPool) putDir(ds *dirState) {
	if p == nil || len(p.dirs) >= maxPooled {
		return
	}
	*ds = dirState{
		seen:   ds.seen.recycled(),
		resent: ds.resent.recycled(),
		probe:  ds.probe.recycled(),
		sacked: ds.sacked.recycled(),
		out:    small(ds.out),
		tsq:    small(ds.tsq),
		retx:   small(ds.retx),
		pmtu:   small(ds.pmtu),
	}
	p.dirs = append(p.dirs, ds)
}

// newHS returns a zeroed hsState.
func (p *scratchPool) newHS() *hsState {
	if p == nil || len(p.hss) == 0 {
		return &hsState{}
	}
	h := p.hss[len(p.hss)-1]
	p.hss[len(p.hss)-1] = nil
	p.hss = p.hss[:len(p.hss)-1]
	return h
}

// putHS resets h and keeps it for newHS. h must no longer be referenced.
func (p *scratchPool) putHS(h *hsState) {
	if p == nil || h == nil || len(p.hss) >= maxPooled {
		return
	}
	*h = hsState{syns: small(h.syns), synAcks: small(h.synAcks)}
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
