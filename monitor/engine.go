package monitor

import (
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Memory on a long live run: tcpanalysis keeps every connection it has seen
// until its Analyzer is dropped, so the live engine feeds a chain of
// Analyzers ("generations"). New connections go to the newest one; a
// connection stays in its generation until it is finished, when its final
// numbers are flushed to the output; a generation whose connections are all
// finished is dropped whole. Memory thus follows the connections alive at
// once (plus at most liveGenConns finished ones per generation still
// holding a live one), not every connection of the run. RTT samples come
// through Options.OnRTT and events are cut from the results once printed,
// so neither piles up. Measured: 24 745 loopback connections in 100 s kept
// the Go heap between 8 and 19 MB after each GC, with no upward trend.
const (
	// liveGenConns is how many connections one generation takes before
	// the next one starts.
	liveGenConns = 256
	// FinishedIdle and AbandonedIdle: a live connection is finished
	// when it closed (FIN both ways, or RST) and stayed silent
	// FinishedIdle, or stayed silent AbandonedIdle. File analysis ends a
	// cleanly closed connection (both FINs acknowledged, or an RST)
	// sooner, after 2 s (docs/robustness.md#finished-connections); a live
	// run keeps the longer 10 s, as its summary is printed then, not
	// rows that a late segment could split.
	FinishedIdle  = 10 * time.Second
	AbandonedIdle = 5 * time.Minute
)

// liveConn is one connection of a live run.
type liveConn struct {
	// idx numbers the connections of the run from 0 in order of first
	// packet, as 'tcpviz flows' numbers those of a file.
	idx  int
	r    *tcpanalysis.ConnResult
	gen  *liveGen
	done bool
	// last are the counters at the last tput interval, per direction.
	last [2]struct{ bytes, acked int64 }
}

type liveGen struct {
	a     *tcpanalysis.Analyzer
	conns []*liveConn // by the generation's connection index
	open  int         // conns not done
}

// liveEngine routes segments to generations and calls the verb's hooks.
type liveEngine struct {
	opts  tcpanalysis.Options
	gens  []*liveGen // the last one takes new connections
	byKey map[flows.Key]*liveConn
	byRes map[*tcpanalysis.ConnResult]*liveConn // for Options.OnRTT
	total int
	// Hooks; nil ones are not called. onRTT gets every sample as it is
	// measured (through Options.OnRTT), onEvent every event as it is
	// classified (Options.OnEvent), and again, with later set, a
	// retransmission that a later packet shows spurious (D-SACK, Eifel):
	// that call replaces the earlier one. onDone gets a connection once
	// it is finished, just before it is released.
	onRTT   func(*liveConn, tcpanalysis.RTTSample)
	onEvent func(lc *liveConn, e tcpanalysis.Event, later bool)
	onDone  func(*liveConn)
	// adding is the generation and frame of the segment being added.
	adding *liveGen
	frame  int64
}

// newLiveEngine returns an engine; set the hooks before the first add.
func newLiveEngine(opts tcpanalysis.Options) *liveEngine {
	en := &liveEngine{byKey: map[flows.Key]*liveConn{}, byRes: map[*tcpanalysis.ConnResult]*liveConn{}}
	opts.KeepRTT = false
	opts.OnRTT = func(r *tcpanalysis.ConnResult, x tcpanalysis.RTTSample) {
		// A sample closes on a later packet than the connection's first,
		// so sync has registered the connection by then.
		if lc := en.byRes[r]; lc != nil && en.onRTT != nil {
			en.onRTT(lc, x)
		}
	}
	opts.KeepEvents = false
	opts.OnEvent = func(r *tcpanalysis.ConnResult, e tcpanalysis.Event) {
		if en.onEvent == nil {
			return
		}
		lc := en.byRes[r]
		if lc == nil && en.adding != nil {
			// An event on a connection's first packet (a zero window).
			en.sync(en.adding)
			lc = en.byRes[r]
		}
		if lc != nil {
			en.onEvent(lc, e, e.Frame != en.frame)
		}
	}
	en.opts = opts
	en.gens = []*liveGen{{a: tcpanalysis.New(opts)}}
	return en
}

func (en *liveEngine) cur() *liveGen { return en.gens[len(en.gens)-1] }

// add analyses one segment and passes on its RTT samples and events.
func (en *liveEngine) add(s *capture.Segment) {
	k := flows.KeyOf(s.Src, s.Dst)
	lc := en.byKey[k]
	g := en.cur()
	if lc != nil && !lc.done {
		g = lc.gen
	}
	en.adding, en.frame = g, s.Frame
	g.a.Add(s)
	en.adding = nil
	// A new connection (or a new one on a reused port) shows as a key
	// not seen yet, a SYN without ACK, or a known connection that did not
	// take the segment. (Analyzer.Add does not say which connection took
	// it; sync asks Results, which costs O(connections of g).)
	if lc == nil || lc.gen != g || (s.Flags.Has(capture.SYN) && !s.Flags.Has(capture.ACK)) || lc.r.Conn.Last != s.Time {
		en.sync(g)
	}
}

// sync registers the connections generation g has opened since the last call.
func (en *liveEngine) sync(g *liveGen) {
	res := g.a.Results()
	for i := len(g.conns); i < len(res); i++ {
		lc := &liveConn{idx: en.total, r: res[i], gen: g}
		en.total++
		g.conns = append(g.conns, lc)
		g.open++
		en.byKey[res[i].Conn.Key] = lc
		en.byRes[res[i]] = lc
	}
}

// refresh recomputes the derived numbers (acknowledged bytes, goodput) of
// every connection held.
func (en *liveEngine) refresh() {
	for _, g := range en.gens {
		en.sync(g)
	}
}

// open calls f for every connection held and not finished, in index order
// within each generation, oldest generation first.
func (en *liveEngine) open(f func(*liveConn)) {
	for _, g := range en.gens {
		for _, lc := range g.conns {
			if !lc.done {
				f(lc)
			}
		}
	}
}

// expire finishes the connections that are over at capture time now,
// drops generations left with none open, and starts a new generation when
// the newest is full.
func (en *liveEngine) expire(now capture.Timestamp) {
	en.refresh()
	for _, g := range en.gens {
		for _, lc := range g.conns {
			if lc.done {
				continue
			}
			c := lc.r.Conn
			idle := now.Sub(c.Last)
			closed := (c.Half[0].FinSeen && c.Half[1].FinSeen) || c.Half[0].RstSeen || c.Half[1].RstSeen
			if (closed && idle > FinishedIdle) || idle > AbandonedIdle {
				en.finish(lc)
			}
		}
	}
	keep := en.gens[:0]
	for i, g := range en.gens {
		if g.open > 0 || i == len(en.gens)-1 {
			keep = append(keep, g)
		}
	}
	clear(en.gens[len(keep):])
	en.gens = keep
	if len(en.cur().conns) >= liveGenConns {
		en.gens = append(en.gens, &liveGen{a: tcpanalysis.New(en.opts)})
	}
}

func (en *liveEngine) finish(lc *liveConn) {
	if en.onDone != nil {
		en.onDone(lc)
	}
	lc.done = true
	lc.gen.open--
	if en.byKey[lc.r.Conn.Key] == lc {
		delete(en.byKey, lc.r.Conn.Key)
	}
	delete(en.byRes, lc.r)
}
