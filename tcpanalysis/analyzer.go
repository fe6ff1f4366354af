package tcpanalysis

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/hwprefetch"
)

// SegKind classifies a data segment in the time-sequence series
// (docs/metrics.md#segment-classes).
type SegKind uint8

// Segment classes, decided from sequence space alone.
const (
	// KindNew: every byte is above the highest byte seen so far in this
	// direction.
	KindNew SegKind = iota
	// KindRetransmitted: at least one byte was seen before in this
	// direction, or a SYN or FIN without payload repeats the sequence
	// number of one seen before.
	KindRetransmitted
	// KindOutOfOrder: never-seen bytes below the highest byte seen so far,
	// within one RTT of the gap opening: the segment overtook others.
	KindOutOfOrder
	// KindProbe: a zero-window probe or a keep-alive.
	KindProbe
)

func (k SegKind) String() string {
	switch k {
	case KindRetransmitted:
		return "retransmitted"
	case KindOutOfOrder:
		return "out_of_order"
	case KindProbe:
		return "probe"
	}
	return "new"
}

// SegPoint is one segment in a time-sequence series: the bytes
// [Start, End) of its direction's relative sequence space (0 = ISN; SYN and
// FIN occupy one each).
type SegPoint struct {
	Time       capture.Timestamp
	Frame      int64
	Start, End int64 // relative sequence offsets in bytes
	Payload    int   // payload bytes
	Flags      capture.Flags
	Kind       SegKind
}

// AckPoint is one acknowledgment of a direction's data, sent by the peer:
// the cumulative ACK and the receive-window edge Ack + Window (RFC 9293
// §3.8.6), in the data direction's relative sequence space.
type AckPoint struct {
	Time  capture.Timestamp
	Frame int64
	Ack   int64 // relative cumulative acknowledgment, bytes
	// Window is the advertised receive window in bytes (scaled per RFC 7323);
	// when WindowKnown is false the scale is unknown and Window holds the raw
	// field value, which must not be read as bytes.
	Window      int64
	WindowKnown bool
}

// SACKPoint is one SACK block (RFC 2018) sent by the peer: it holds bytes
// [Left, Right) of the data direction's relative sequence space.
type SACKPoint struct {
	Time        capture.Timestamp
	Frame       int64
	Left, Right int64
}

// Series is the full time-sequence data of one connection, indexed by the
// direction of the data: Acks[flows.AtoB] are the ACKs B sent for A's data.
// Each slice is in capture (frame) order.
type Series struct {
	Segs   [2][]SegPoint
	Acks   [2][]AckPoint
	SACKs  [2][]SACKPoint
	Window [2][]WindowPoint // at every data segment of the direction and every ACK of it
}

// SeriesParts is a set of the parts of a Series (Options.KeepParts).
type SeriesParts uint8

// Series parts.
const (
	PartSegs   SeriesParts = 1 << iota // Series.Segs
	PartAcks                           // Series.Acks
	PartSACKs                          // Series.SACKs
	PartWindow                         // Series.Window
	PartRTT                            // ConnResult.RTT of a kept connection
	PartEvents                         // ConnResult.Events of a kept connection
	PartsAll   = PartSegs | PartAcks | PartSACKs | PartWindow | PartRTT | PartEvents
)

// DirStats are the counts of one direction of a connection
// (docs/metrics.md#per-connection-summary). Copies folded by flows are not
// counted anywhere here.
type DirStats struct {
	Pkts int64 // segments sent in this direction
	// WireBytes are the frames' original lengths in bytes, link header
	// included: what tshark's conversation table counts as bytes.
	WireBytes int64
	DataPkts  int64 // segments with payload
	Bytes     int64 // payload bytes, retransmissions included
	Unique    int64 // distinct payload bytes in sequence space
	// RetxBytes are payload bytes sent again (segments with bytes seen
	// before); keep-alive and zero-window-probe bytes are in Bytes only.
	RetxBytes int64
	RetxSegs  int64 // data segments with at least one byte seen before
	OOOSegs   int64 // data segments classed KindOutOfOrder
	// AckedBytes are the unique payload bytes the peer acknowledged: the
	// highest cumulative ACK minus the first data byte, not counting the
	// FIN. 0 when no ACK was seen.
	AckedBytes int64
	// DeliveredBytes are the goodput bytes (docs/metrics.md#goodput):
	// AckedBytes, extended on 802.11 captures by the in-order bytes that
	// follow the highest ACK in frames addressed to the receiver's own MAC
	// (its last ACKs may never have been sent before the capture ended).
	DeliveredBytes int64
	// HighSeq is the highest relative sequence offset sent (end of the
	// highest segment), MaxAck the highest relative ACK received for this
	// direction's data (valid iff AckSeen).
	HighSeq, MaxAck int64
	AckSeen         bool
	// FirstData and LastData are the times of the first and last segment
	// with payload (zero if none).
	FirstData, LastData capture.Timestamp
	// FirstBulk is the time of the first segment with at least BulkPayload
	// payload bytes (zero if none): the reference point "bulk"
	// (docs/metrics.md#slow-start).
	FirstBulk capture.Timestamp
	// MaxTTL is the highest IP TTL (hop limit) of the segments sent in this
	// direction: the sender's own, unrelayed packets carry the highest.
	MaxTTL uint8
	// Link0 is the link-layer source address (capture.Segment.SA) of this
	// direction's segments sent with an initial TTL (32, 64, 128 or 255:
	// 0 hops, from the sender's own link), valid when Link0N is 1; Link0N
	// is 0 when no such segment had an address, 2 when they came from
	// several. Links are the first link-layer sources of its segments at
	// any TTL, with the TTL range of each: NLinks of them (at most 2;
	// LinksMany when more sent some). None on a link without addresses
	// (raw IP, loopback, PPP). They are package pep's link-address
	// evidence: which link address speaks for the receiver's IP address
	// on the capture's link (docs/metrics.md#pep).
	Link0     [6]byte
	Link0N    uint8
	Link0TTL  uint8 // the TTL of the first of those segments
	Links     [2]LinkSource
	NLinks    uint8
	LinksMany bool
	lastSA    [6]byte // the previous segment's SA and TTL: linkFrame runs when either changes
	lastTTL   uint8
	// AckedUnseen counts ACKs from the peer that acknowledge bytes beyond
	// anything this direction was seen to send (the capture missed them).
	AckedUnseen int64
	// SynRetx and FinRetx count SYN and FIN transmissions that repeat
	// this direction's SYN or FIN (same sequence number): control
	// retransmissions, never counted in RetxBytes or RetxSegs. Without
	// payload each is also a retransmission event (ConnResult.Counts); with
	// payload its segment's event is the data's
	// (docs/metrics.md#control-retransmissions).
	SynRetx, FinRetx int64
	// CtlRetx counts the SYNs and FINs of SynRetx and FinRetx sent again
	// without payload: each is a retransmission event of its own, counted
	// in no RetxSegs (the flows table's "syn/fin retx").
	CtlRetx int64
	// DSACKs counts the D-SACK blocks (RFC 2883) the peer sent about this
	// direction's data: bytes it received twice (tcptrace's "dsack pkts
	// sent" of the peer's direction).
	DSACKs int64
	// OwnTx counts 802.11 frames of this direction that the capturing
	// radio sent itself (radiotap without a signal field) with the sender's
	// own MAC as transmitter, copies included: more than 0 means the capture
	// was taken on the sender's node.
	OwnTx int64
	// RelayTx counts 802.11 frames of this direction that the capturing
	// radio sent itself with another transmitter address than the
	// sender's, copies included: more than 0 (and OwnTx 0 both ways)
	// means the capture was taken on a node that relayed the connection
	// (RadioOf).
	RelayTx int64
}

// Summary is the per-connection result.
type Summary struct {
	Conn *flows.Conn
	Dir  [2]DirStats
}

// Duration returns the connection's duration: last packet − first packet.
func (s *Summary) Duration() time.Duration { return s.Conn.Duration() }

// ThroughputKbps returns direction d's throughput in kbit/s: payload bytes
// including retransmissions × 8 / duration / 1000
// (docs/metrics.md#throughput). 0 for a zero duration.
func (s *Summary) ThroughputKbps(d flows.Direction) float64 {
	return kbps(s.Dir[d].Bytes, s.Duration())
}

// GoodputKbps returns direction d's goodput in kbit/s: DeliveredBytes × 8 /
// duration / 1000 over the connection's duration
// (docs/metrics.md#goodput). 0 for a zero duration.
func (s *Summary) GoodputKbps(d flows.Direction) float64 {
	return kbps(s.Dir[d].DeliveredBytes, s.Duration())
}

func kbps(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) * 8 / d.Seconds() / 1000
}

// ConnResult is everything computed for one connection. Series is nil unless
// Options.Keep selected the connection.
type ConnResult struct {
	Summary
	Series *Series
	// Handshake is the SYN → SYN-ACK → ACK timing at the capture point.
	Handshake Handshake
	// RTTAgg summarises the RTT samples per data direction and method.
	RTTAgg [2][3]RTTAgg
	// Counts are the events per data direction and class.
	Counts [2][numClasses]int64
	// RTT and Events list every sample and event in capture order, kept
	// only with Options.Detail or for a connection Options.Keep selects.
	RTT    []RTTSample
	Events []Event
	// ZeroWindows are the zero-window periods, in order; a period still
	// open when the capture ends has End 0.
	ZeroWindows []ZeroWindowPeriod
	// NegativeRTT counts RTT samples dropped because the capture's
	// timestamps went backwards between the two packets; every output
	// leaves them out and the Report warns once.
	NegativeRTT int64
	// index is the connection's index in the whole capture while shards
	// analyse it (mergeStream sets it; the shard's Conn.Index is its own).
	index int
	// state is the connState this result is part of, with
	// Options.ReuseResults (nil without).
	state *connState
	// Degraded reports that one of the connection's sequence-space sets
	// reached its cap (maxSpans disjoint holes, docs/robustness.md#caps):
	// the lowest holes were joined, so its unique and retransmitted byte
	// counts near those holes are approximate. The Report warns.
	Degraded bool
}

// Options configure an Analyzer.
type Options struct {
	Flows flows.Options
	// Keep selects the connections (by index) whose full series are kept;
	// nil keeps none. Memory for a kept connection grows with its packets.
	Keep func(index int) bool
	// KeepParts limits which parts of a kept Series are filled (a verb that
	// draws the window needs no SACK blocks), and whether a kept
	// connection also keeps every RTT sample (PartRTT) and event
	// (PartEvents); 0 keeps every part. KeepRTT, KeepEvents and Detail
	// still keep theirs.
	KeepParts SeriesParts
	// Only, when set, limits the analysis to the connections it selects
	// (by index): the others are still tracked (their indexes, addresses,
	// times), their packets and payload bytes counted (DirStats.Pkts,
	// WireBytes, DataPkts, Bytes) and their highest ACK kept (MaxAck,
	// AckSeen, so AckedBytes and DeliveredBytes), nothing else. A verb that
	// needs one connection of a large capture sets it to skip the work for
	// the rest.
	Only func(index int) bool
	// Filter, when set, leaves out the segments it rejects: a second pass
	// over one connection's addresses and ports (flows.Key) tracks and
	// analyses those alone. Connection indexes then count the connections
	// Filter lets through. Rejected segments still count towards the
	// periodic release of finished connections' state, so it happens at
	// the same packets as without Filter.
	Filter func(s *capture.Segment) bool
	// OnlyKey, when set, is Filter for the segments between the
	// endpoints of one 4-tuple (flows.KeyOf(s.Src, s.Dst) == *OnlyKey),
	// and the reader decodes the others no further than their ports
	// (capture.Reader.OnlyEndpoints): the second pass of a series verb
	// reads 10 M packets to keep one connection's (docs/performance.md).
	OnlyKey *flows.Key
	// Index, when set, is written with where every segment of a plain
	// pcap file is (capture.FrameIndex, tagged by IndexTag), for a later
	// pass over one 4-tuple (Replay). It makes the analysis a single
	// Analyzer; for another capture (pcapng, compressed, a stream, a
	// frame hook) it is dropped (FrameIndex.Valid).
	Index *capture.FrameIndex
	// Replay, with OnlyKey, is an Index written by an earlier pass over
	// the same file: the pass reads the records of OnlyKey's segments
	// only (capture.Reader.ReadIndexed) and gives the same results as
	// reading every frame with OnlyKey; its Report's Stats and reader
	// warnings are the earlier pass's. When the Index is not valid or the
	// file not as it was, the file is read whole.
	Replay *capture.FrameIndex
	// NewSeries, when set, returns the empty Series a kept connection
	// fills: with capacities from an earlier pass, its slices never grow
	// (a growing slice holds its old and new arrays at once).
	NewSeries func(index int) *Series
	// KeepDirs limits the kept series to the data directions set
	// (KeepDirs[flows.AtoB], KeepDirs[flows.BtoA]): Segs[d], Acks[d],
	// SACKs[d] and Window[d] of the others stay empty. Both false keeps
	// both.
	KeepDirs [2]bool
	// Inline reads and analyses on the calling goroutine instead of
	// reading in a goroutine of its own a few batches ahead (pipeline.go)
	// and, with AnalyzeFile, instead of spreading connections over the
	// cores (shard.go): for a caller that already runs one analysis per
	// core, such as a batch of captures (campaign.Goodput), where handing
	// segments between goroutines only costs CPU (docs/performance.md).
	Inline bool
	// Ifaces, when not empty, limits Analyze and AnalyzeFile to the
	// segments of these pcapng interfaces (for example one side of a PEP
	// when both were captured in one file). Empty: every interface.
	Ifaces []int
	// KeepRTT and KeepEvents keep every RTT sample, or every event, of
	// every connection; Detail keeps both.
	KeepRTT, KeepEvents bool
	// RTTQuantiles keeps, per connection, direction and method, what
	// RTTAgg.Quantile needs: every sample up to ExactQuantileLimit, a
	// sketch beyond (bounded memory; docs/metrics.md#rtt-percentiles).
	RTTQuantiles bool
	// OnRTT, when set, is called with every RTT sample as it is taken
	// (streaming output) — in capture order of the closing packet.
	OnRTT func(c *ConnResult, s RTTSample)
	// OnEvent, when set, is called with every event as it is classified.
	// A retransmission that later evidence shows spurious (Eifel, D-SACK)
	// is reported again, with the same Frame, Class Spurious and the new
	// Evidence: the later call replaces the earlier one.
	OnEvent func(c *ConnResult, e Event)
	// Detail keeps every RTT sample and event of every connection (memory
	// grows with packets); without it only counts and running summaries
	// are kept, except for connections Keep selects.
	Detail bool
	// OnDone, when set, streams the results: each connection's final
	// result is passed to it once, when the connection is over
	// (docs/robustness.md#finished-connections) or, for the rest, at the
	// end of the capture in index order; the analyzer then forgets it, so
	// memory follows the connections open at once. Calls come in the
	// order connections end. Report.Conns stays empty. start is the
	// capture's start (Report.Start: its first frame, any protocol; for an
	// Analyzer fed by hand, the first segment added).
	OnDone func(r *ConnResult, start capture.Timestamp)
	// AirView analyses every 802.11 frame the capturing radio decoded as
	// the capture's own traffic, frames addressed to other nodes
	// included, as tcpviz did before it told them apart. By default,
	// when the capture establishes its node (capture.Reader.Node), frames
	// overheard from other nodes are left out of every metric and
	// counted (flows.Options.Node, docs/metrics.md#own-frames).
	AirView bool
	// ReuseResults lets the analysis reuse a result passed to OnDone, and
	// its Conn, for a later connection once OnDone has returned: OnDone
	// must copy what it keeps (flows writes a row and keeps nothing). A
	// capture of many short connections then allocates no result per
	// connection. Results streamed at the end of the capture are never
	// reused.
	ReuseResults bool
}

// Analyzer consumes segments in capture order and maintains per-connection
// results. It is not safe for concurrent use.
type Analyzer struct {
	opts    Options
	tracker *flows.Tracker
	pool    scratchPool  // states of connections that are over, for new ones
	res     []*connState // by Conn.Index − base; nil once streamed out (Options.OnDone)
	base    int
	added   int
	live    []*connState // connections whose scratch state is held
	shard   bool         // one shard of a capture: its caller runs release (shard.go)
	forgot  int64        // connections the tracker was told to forget (shard.go)
	liveCap int          // len(live) that triggers a release before the next periodic one
	done    doneStats    // of the connections streamed out
	// start returns the capture's first frame time for Options.OnDone;
	// nil: the first segment's (first).
	start func() (capture.Timestamp, bool)
	first capture.Timestamp
}

// doneStats sums what the Report warns about over the connections already
// streamed out.
type doneStats struct {
	negRTT, negConns int64
	degraded         int
	firstDegraded    int
}

func (d *doneStats) add(r *ConnResult) {
	if r.NegativeRTT > 0 {
		d.negRTT += r.NegativeRTT
		d.negConns++
	}
	if r.Degraded {
		if d.degraded == 0 || r.Conn.Index < d.firstDegraded {
			d.firstDegraded = r.Conn.Index
		}
		d.degraded++
	}
}

// releaseEvery is how many segments pass between releases of the scratch
// state of finished connections; closedIdle is how long a connection
// closed cleanly (both FINs acknowledged) or reset must be silent before it
// is over, finishedIdle the same for other closes, and abandonedIdle how long
// any connection must be silent before its scratch state is dropped.
// maxLive is the table pressure at which unanswered SYNs are over
// (docs/robustness.md#finished-connections).
const (
	releaseAhead  = 4 // connections between a prefetch and its use in release
	releaseEvery  = 1 << 16
	finishedIdle  = 10 * time.Second
	abandonedIdle = 5 * time.Minute
	maxLive       = 1 << 14
	closedIdle    = 2 * time.Second
)

// closedClean reports that both FINs were seen and acknowledged, or an RST
// was seen.
func (cs *connState) closedClean() bool {
	c := cs.Conn
	if c.Half[0].RstSeen || c.Half[1].RstSeen {
		return true
	}
	for d := range c.Half {
		h, st := &c.Half[d], &cs.Dir[d]
		if !h.FinSeen || !st.AckSeen || st.MaxAck <= h.FinRel {
			return false
		}
	}
	return true
}

// release ends the connections that are over and frees the scratch state
// of abandoned ones, so memory follows the connections alive at once, not
// all of them (docs/robustness.md#finished-connections):
//   - a connection closed by FINs both acknowledged or by an RST and
//     silent for closedIdle is over;
//   - a connection closed otherwise (FINs both ways) and silent for
//     finishedIdle is over;
//   - when more than maxLive connections are alive, the oldest ones that
//     are only bare SYNs of one side, unanswered (a flood or a scan), are
//     over until half remain.
//
// A connection that is over is forgotten by the tracker (a later segment on
// its 4-tuple opens a new connection) and, with Options.OnDone, streamed
// out.
func (a *Analyzer) release(now capture.Timestamp) {
	keep := a.live[:0]
	n := len(a.live)
	pressure := n > maxLive
	live := a.live
	for i, cs := range live {
		// Every live connection is looked at, most of them idle and out
		// of the caches: ask for the next ones' connState and Conn (its
		// halves and Last) ahead, so that their misses overlap
		// (docs/performance.md, session 14). keep never passes i.
		if j := i + 2*releaseAhead; j < len(live) {
			hwprefetch.Read(unsafe.Pointer(live[j]))
		}
		if j := i + releaseAhead; j < len(live) {
			hwprefetch.Read(unsafe.Pointer(live[j].Conn))
			hwprefetch.Read(unsafe.Add(unsafe.Pointer(live[j].Conn), 320))
		}
		c := cs.Conn
		idle := now.Sub(c.Last)
		closed := (c.Half[0].FinSeen && c.Half[1].FinSeen) || c.Half[0].RstSeen || c.Half[1].RstSeen
		switch {
		case closed && idle > finishedIdle, idle > closedIdle && cs.closedClean(), pressure && n > maxLive/2 && cs.synOnly():
			a.over(cs)
			n--
			continue
		case idle > abandonedIdle:
			cs.releaseScratch(false)
			cs.released = true
			continue
		}
		keep = append(keep, cs)
	}
	clear(a.live[len(keep):])
	a.live = keep
	// The next release when the table passes maxLive again, or, when
	// what is alive cannot be released, when it has doubled.
	a.liveCap = maxLive
	if len(a.live) >= maxLive {
		a.liveCap = 2 * len(a.live)
	}
	a.trim()
}

// synOnly reports that the connection is bare SYNs of side a and nothing
// else: no answer, no other packet. A connection whose first segment is
// not counted yet (a release from Add) is not.
func (cs *connState) synOnly() bool {
	return cs.Dir[flows.BtoA].Pkts == 0 && cs.Dir[flows.AtoB].Pkts > 0 && cs.Dir[flows.AtoB].Pkts == int64(cs.Handshake.SynTx) &&
		cs.Handshake.SynAckTx == 0 && cs.dir[flows.AtoB] == nil && cs.Series == nil
}

// over ends connection cs: the tracker forgets it, its scratch state is
// freed, and with Options.OnDone its result is streamed out.
func (a *Analyzer) over(cs *connState) {
	a.tracker.Forget(cs.Conn)
	a.forgot++
	cs.releaseScratch(true)
	cs.released = true
	if a.opts.OnDone != nil {
		a.emit(cs, true)
	}
}

// emit streams cs's final result out and forgets it. over reports a
// connection the tracker forgot (Analyzer.over), whose result and Conn
// may be reused after OnDone (Options.ReuseResults) by this Analyzer; a
// shard's results are given back by the merger instead (mergeStream).
func (a *Analyzer) emit(cs *connState, over bool) {
	r := cs.result()
	a.done.add(r)
	a.res[cs.Conn.Index-a.base] = nil
	start := a.first
	if a.start != nil {
		if t, ok := a.start(); ok {
			start = t
		}
	}
	a.opts.OnDone(r, start)
	if over && a.opts.ReuseResults && !a.shard {
		a.tracker.Recycle(cs.Conn)
		cs.Conn = nil
		a.pool.putConnState(cs)
	}
}

// trim drops the streamed-out connections at the front of a.res.
func (a *Analyzer) trim() {
	i := 0
	for i < len(a.res) && a.res[i] == nil {
		i++
	}
	if i > 0 && i >= len(a.res)/2 {
		n := copy(a.res, a.res[i:])
		clear(a.res[n:])
		a.res = a.res[:n]
		a.base += i
	}
}

// connState is the analysis of one connection: its result and the
// streaming state behind it. The state of each direction, the handshake's
// and the 802.11 receiver bookkeeping are allocated when first needed and
// freed when the connection is over, so a finished connection keeps little
// more than its ConnResult.
type connState struct {
	ConnResult
	opts     *Options
	pool     *scratchPool // the Analyzer's: where dir and hs come from and go back to
	zwClosed []ZeroWindowPeriod
	released bool
	skip     bool // not selected by Options.Only: counted, not analysed
	hsDone   bool
	synSeen  [2]bool // a bare SYN was counted before the direction's state existed
	synTS    [2]bool // synTSval is valid
	// synFrame is the frame of each direction's first SYN (SYN-ACK), 0
	// before one: the original_frame of a SYN sent again, kept after the
	// handshake's state is freed (a SYN-ACK repeated after the ACK).
	synFrame [2]int64
	// synTSval is the TSval of each direction's first SYN (SYN-ACK),
	// valid iff synTS: the echo that shows a copy sent again spurious.
	synTSval [2]uint32
	// synEnd is the end offset of a bare SYN counted without the
	// direction's state (synSeen): the highest sequence number sent
	// until data comes, for ACKs of unseen data (connState.ack).
	synEnd [2]int64
	dir    [2]*dirState
	hs     *hsState
	rxMAC  *[2]spanSet // payload bytes in 802.11 frames addressed to the receiver's MAC
}

// ds returns direction d's streaming state, allocating it on first use.
func (cs *connState) ds(d flows.Direction) *dirState {
	if ds := cs.dir[d]; ds != nil {
		return ds
	}
	return cs.newDS(d)
}

// newDS is ds's first call for a direction, out of its inlined path.
//
//go:noinline
func (cs *connState) newDS(d flows.Direction) *dirState {
	ds := cs.pool.newDir()
	cs.dir[d] = ds
	if h := cs.hs; h != nil && len(h.synRetx[d]) > 0 {
		// The bare SYNs sent again so far await their evidence here.
		ds.retx = append(ds.retx, h.synRetx[d]...)
		ds.retxNew += len(h.synRetx[d])
		h.synRetx[d] = h.synRetx[d][:0]
	}
	return ds
}

// releaseScratch drops the sequence-space sets and queues of both
// directions; for a closed connection it drops their whole state (a late
// packet starts afresh), keeping an open zero-window period.
func (cs *connState) releaseScratch(closed bool) {
	for d, ds := range cs.dir {
		if ds == nil {
			continue
		}
		if !closed {
			ds.release()
		} else {
			if ds.inZW {
				cs.zwClosed = append(cs.zwClosed, ZeroWindowPeriod{Dir: flows.Direction(d), Start: ds.zwStart, StartFrame: ds.zwFrame})
			}
			cs.dir[d] = nil
			cs.pool.putDir(ds)
		}
	}
	cs.pool.putHS(cs.hs)
	cs.hs = nil
	if closed {
		for d := range cs.RTTAgg {
			for m := range cs.RTTAgg[d] {
				cs.RTTAgg[d][m].freezeMedian(cs.pool)
			}
		}
	}
}

// New returns an Analyzer.
func New(opts Options) *Analyzer {
	fo := opts.Flows
	fo.NoList = fo.NoList || opts.OnDone != nil
	return &Analyzer{opts: opts, tracker: flows.NewTracker(fo), liveCap: maxLive}
}

// Add processes one segment and returns the result of the connection it
// belongs to (nil for an ICMP error about no connection of the capture, or
// a segment Options.Filter rejects).
func (a *Analyzer) Add(s *capture.Segment) *ConnResult { return a.add(s, 0, false) }

// add is Add; with hashed, hash is flows.PairHash(s.Src, s.Dst), computed
// by the shards' reader.
func (a *Analyzer) add(s *capture.Segment, hash uint64, hashed bool) *ConnResult {
	a.added++
	if a.added == 1 {
		a.first = s.Time
	}
	if a.added%releaseEvery == 0 && !a.shard {
		a.release(s.Time)
	}
	if a.opts.Filter != nil && !a.opts.Filter(s) {
		return nil
	}
	if k := a.opts.OnlyKey; k != nil && !((s.Src == k.Lo && s.Dst == k.Hi) || (s.Src == k.Hi && s.Dst == k.Lo)) {
		return nil // a stub, or, read by a Reader without OnlyEndpoints, another 4-tuple
	}
	if s.ICMP != capture.ICMPNone {
		return a.icmp(s)
	}
	var p flows.Packet
	if hashed {
		a.tracker.AddHashed(s, hash, &p)
	} else {
		a.tracker.AddTo(s, &p)
	}
	if p.Late {
		return nil
	}
	if p.New {
		cs := a.pool.newConnState()
		cs.Conn, cs.opts, cs.pool = p.Conn, &a.opts, &a.pool
		if a.opts.ReuseResults {
			cs.state = cs
			a.pool.recycleConns(a.tracker)
		}
		if a.opts.Only != nil && !a.opts.Only(p.Conn.Index) {
			cs.skip = true
		} else if a.opts.Keep != nil && a.opts.Keep(p.Conn.Index) {
			if a.opts.NewSeries != nil {
				cs.Series = a.opts.NewSeries(p.Conn.Index)
			} else {
				cs.Series = &Series{}
			}
		}
		a.res = append(a.res, cs)
		a.live = append(a.live, cs)
		if len(a.live) > a.liveCap {
			a.release(s.Time)
		}
	}
	cs := a.res[p.Conn.Index-a.base]
	if cs.released {
		cs.released = false
		a.live = append(a.live, cs)
	}
	if p.Overheard {
		// Addressed to another node: not this node's traffic
		// (docs/metrics.md#own-frames); counted in Conn.Overheard. Its
		// cumulative ACK is still the peer's statement that the bytes
		// below it were delivered: it counts towards MaxAck (so
		// AckedBytes and DeliveredBytes), and a later retransmission of
		// them was spurious. Nothing else of it is this node's.
		if p.AckValid {
			rd := p.Dir.Reverse()
			if rs := &cs.Dir[rd]; !rs.AckSeen || p.Ack > rs.MaxAck {
				rs.MaxAck, rs.AckSeen = p.Ack, true
			}
			if !cs.skip {
				if ds := cs.ds(rd); !ds.heardSeen || p.Ack > ds.heardAck {
					ds.heardAck, ds.heardSeen = p.Ack, true
				}
			}
		}
		return &cs.ConnResult
	}
	d := p.Dir
	if s.WiFi && s.PayloadLen > 0 {
		// 802.11: bytes the receiver's own MAC received, copies included
		// (docs/metrics.md#goodput). When the capture's node is known,
		// only frames its radio received: a frame it sent shows a
		// transmission, not a reception (at the sender, "the receiver's
		// MAC" learnt from the ACKs it received is the next hop's).
		node := a.opts.Flows.Node
		if rh := &p.Conn.Half[d.Reverse()]; rh.MACKnown && s.RA == rh.MAC && (node == nil || node.Reception(s) == capture.ReceptionAddressed) {
			lo := p.Seq
			if s.Flags.Has(capture.SYN) {
				lo++
			}
			if cs.rxMAC == nil {
				cs.rxMAC = &[2]spanSet{}
			}
			cs.rxMAC[d].add(lo, lo+int64(s.PayloadLen))
		}
	}
	st := &cs.Dir[d]
	if s.WiFi && !s.RadioSignal {
		if h := &p.Conn.Half[d]; h.MACKnown {
			if s.TA == h.MAC {
				st.OwnTx++
			} else {
				st.RelayTx++
			}
		}
	}
	if p.Dup {
		return &cs.ConnResult
	}
	st.Pkts++
	st.WireBytes += int64(s.WireLen)
	if s.SA != st.lastSA || s.TTL != st.lastTTL {
		st.linkFrame(s)
		if !cs.skip {
			// MaxTTL moves only when the TTL does: every segment of
			// an analysed connection (cs.skip never changes) passes
			// here or has the TTL of one that did.
			st.MaxTTL = max(st.MaxTTL, s.TTL)
		}
	}
	if cs.skip {
		// Enough of the handshake for the table-pressure rule (synOnly)
		// to end a flood's bare SYNs in a counting pass too.
		switch s.Flags & (capture.SYN | capture.ACK | capture.FIN | capture.RST) {
		case capture.SYN:
			if d == flows.AtoB {
				cs.Handshake.SynTx++
			}
		case capture.SYN | capture.ACK:
			if d == flows.BtoA {
				cs.Handshake.SynAckTx++
			}
		}
		if s.PayloadLen > 0 {
			st.DataPkts++
			st.Bytes += int64(s.PayloadLen)
		}
		if p.AckValid {
			rs := &cs.Dir[d.Reverse()]
			if !rs.AckSeen || p.Ack > rs.MaxAck {
				rs.MaxAck = p.Ack
			}
			rs.AckSeen = true
		}
		return &cs.ConnResult
	}
	if !cs.hsDone {
		cs.handshake(s, &p) // until the handshake is over: not a call a packet
	}
	kind := cs.data(s, &p, &a.opts) // and st.HighSeq
	win, winKnown := cs.ack(s, &p, &a.opts)
	cs.timestamps(s, &p)
	if ser := cs.Series; ser != nil {
		parts := a.opts.KeepParts
		if parts == 0 {
			parts = PartsAll
		}
		dirs := a.opts.KeepDirs
		if !dirs[0] && !dirs[1] {
			dirs = [2]bool{true, true}
		}
		if s.SeqLen() > 0 && parts&PartSegs != 0 && dirs[d] {
			ser.Segs[d] = append(ser.Segs[d], SegPoint{Time: s.Time, Frame: s.Frame, Start: p.Seq, End: p.End, Payload: s.PayloadLen, Flags: s.Flags, Kind: kind})
		}
		if rd := d.Reverse(); p.AckValid && dirs[rd] {
			if parts&PartAcks != 0 {
				ser.Acks[rd] = append(ser.Acks[rd], AckPoint{Time: s.Time, Frame: s.Frame, Ack: p.Ack, Window: win, WindowKnown: winKnown})
			}
			for i := 0; i < int(s.Opts.NSACK) && parts&PartSACKs != 0; i++ {
				l, r := sackRel(&p, s, i)
				ser.SACKs[rd] = append(ser.SACKs[rd], SACKPoint{Time: s.Time, Frame: s.Frame, Left: l, Right: r})
			}
		}
		// The window and in-flight view of each direction this packet
		// concerns: its own data, and the data it acknowledges.
		for _, wd := range [2]flows.Direction{d, d.Reverse()} {
			if parts&PartWindow == 0 {
				break
			}
			if dirs[wd] && ((wd == d && (s.PayloadLen > 0 || s.Flags.Has(capture.FIN))) || (wd != d && p.AckValid)) {
				ser.Window[wd] = append(ser.Window[wd], cs.windowPoint(wd, s))
			}
		}
	}
	return &cs.ConnResult
}

// icmp turns an ICMP error quoting a segment of a known connection into an
// event of that connection (docs/metrics.md#events); errors about no
// connection of the capture are only counted by the reader.
func (a *Analyzer) icmp(s *capture.Segment) *ConnResult {
	c, d, ok := a.tracker.Lookup(s)
	if !ok {
		return nil
	}
	cl := ICMPUnreachable
	switch s.ICMP {
	case capture.ICMPFragNeeded:
		cl = ICMPFragNeeded
	case capture.ICMPTimeExceeded:
		cl = ICMPTimeExceeded
	}
	rel, _ := c.RelSeq(d, s.Seq)
	cs := a.res[c.Index-a.base]
	if cl == ICMPFragNeeded && cs.dir[d] != nil {
		cs.ds(d).quotedTooBig(rel, int(s.ICMPMTU))
	}
	cs.event(&a.opts, Event{Time: s.Time, Frame: s.Frame, Dir: d, Class: cl, Seq: rel, Len: int(s.ICMPMTU)})
	return &cs.ConnResult
}

func (cs *connState) windowPoint(d flows.Direction, s *capture.Segment) WindowPoint {
	ds := cs.ds(d)
	wp := WindowPoint{Time: s.Time, Frame: s.Frame, Rwnd: ds.win, RwndKnown: ds.winKnown && ds.ackSeen}
	if ds.ackSeen {
		wp.FlightValid = true
		wp.InFlight = max(0, ds.highSeq-ds.lastAck)
		// The SACKed bytes in [lastAck, highSeq), counted as the set
		// changes (the mark is highSeq): O(1) per point, where walking
		// the spans was O(spans) (docs/robustness.md#quadratic-inputs).
		wp.InFlightSACK = max(0, wp.InFlight-ds.sacked.coveredToMark(ds.lastAck))
	}
	return wp
}

// sackRel returns SACK block i of s in relative offsets of the peer's data.
func sackRel(p *flows.Packet, s *capture.Segment, i int) (int64, int64) {
	b := s.Opts.SACK[i]
	l := p.Ack + s.Ack.Dist(b.Left)
	return l, l + b.Left.Dist(b.Right)
}

// finish frees every connection's streaming state at the end of the
// capture: what the Report holds is the results only.
// With Options.OnDone, every connection not yet streamed out is, in index
// order.
func (a *Analyzer) finish() {
	for _, cs := range a.res {
		if cs == nil {
			continue
		}
		cs.releaseScratch(true)
		cs.Conn.ReleaseFold()
		if a.opts.OnDone != nil {
			a.emit(cs, false)
		}
	}
	a.live = nil
	if a.opts.OnDone != nil {
		a.res, a.base = nil, 0
	}
}

// Results returns the results of every connection in index order, with
// AckedBytes computed from what has been seen so far. With Options.OnDone
// it holds only the connections not yet streamed out.
func (a *Analyzer) Results() []*ConnResult {
	out := make([]*ConnResult, 0, len(a.res))
	for _, cs := range a.res {
		if cs != nil {
			out = append(out, cs.result())
		}
	}
	return out
}

// result returns cs's result with the fields derived at the end
// (AckedBytes, DeliveredBytes, ZeroWindows) computed from what has been
// seen so far.
func (cs *connState) result() *ConnResult {
	{
		// A zero-window period still open at the end of the capture.
		zw := append([]ZeroWindowPeriod(nil), cs.zwClosed...)
		for d := range cs.dir {
			if ds := cs.dir[d]; ds != nil && ds.inZW {
				zw = append(zw, ZeroWindowPeriod{Dir: flows.Direction(d), Start: ds.zwStart, StartFrame: ds.zwFrame})
			}
		}
		for d := range cs.Dir {
			st := &cs.Dir[d]
			h := &cs.Conn.Half[d]
			st.AckedBytes = 0
			if st.AckSeen {
				end := st.MaxAck
				if h.FinSeen && h.FinRel < end {
					end = h.FinRel
				}
				st.AckedBytes = max(0, end-1)
			}
			if st.AckedUnseen == 0 && st.HighSeq > 0 && st.AckedBytes > st.HighSeq {
				// The ACK that went furthest came before anything of this
				// direction was seen, so none was counted then: at least
				// one ACK acknowledged data the capture never saw.
				st.AckedUnseen = 1
			}
			// Extend through in-order bytes the receiver's MAC received.
			pos := max(st.MaxAck, 1)
			if !st.AckSeen {
				pos = 1
			}
			var rx []span
			if cs.rxMAC != nil {
				rx = cs.rxMAC[d].spans()
			}
			for _, sp := range rx {
				if sp.lo <= pos && sp.hi > pos {
					pos = sp.hi
				}
			}
			if h.FinSeen && h.FinRel < pos {
				pos = h.FinRel
			}
			st.DeliveredBytes = max(st.AckedBytes, pos-1)
		}
		cs.ZeroWindows = zw
	}
	return &cs.ConnResult
}

// connWarnings are the Report's warnings about connections: RTT samples
// dropped for timestamps going backwards, degraded sequence-space sets.
func (a *Analyzer) connWarnings() []string {
	d := a.done
	for _, cs := range a.res {
		if cs != nil {
			d.add(&cs.ConnResult)
		}
	}
	return d.warnings(a.tracker.Late)
}

// warnings are the Report's warnings about the connections d counts and
// the late segments the tracker left out (flows.Tracker.Late).
func (d *doneStats) warnings(late int64) []string {
	var ws []string
	if n := late; n > 0 {
		noun := "segments"
		if n == 1 {
			noun = "segment"
		}
		ws = append(ws, fmt.Sprintf("%d %s arrived on the 4-tuple of a connection that was over (silent for 2 s after both FINs were acknowledged or an RST, or 10 s after other closes) and were not a new SYN: left out of every connection (tshark counts them in that stream's frames; docs/robustness.md#finished-connections)", n, noun))
	}
	if d.negRTT > 0 {
		conns := "connections"
		if d.negConns == 1 {
			conns = "connection"
		}
		ws = append(ws, fmt.Sprintf("%d RTT samples in %d %s dropped: the capture's timestamps go backwards between a packet and its answer", d.negRTT, d.negConns, conns))
	}
	if d.degraded > 0 {
		ws = append(ws, fmt.Sprintf("%d connections (first: conn %d) opened more than %d holes in sequence space: the lowest were joined, so their unique and retransmitted bytes are approximate (docs/robustness.md#caps)", d.degraded, d.firstDegraded, maxSpans))
	}
	return ws
}

// Report is the analysis of one capture file.
type Report struct {
	File     string
	Format   capture.Format
	Stats    capture.Stats
	Warnings []string // problems that did not stop the analysis
	// Start is the time of the capture's first frame in file order (any
	// protocol): the origin of every "seconds since the capture start".
	Start capture.Timestamp
	// Conns are the connections in index order; empty when
	// Options.OnDone streamed them out.
	Conns []*ConnResult
	// Node is what the capture showed of the 802.11 node it was taken on
	// (capture.Reader.Node): when Known, the analysis is that node's view
	// and Overheard counts the TCP frames addressed to other nodes it left
	// out (docs/metrics.md#own-frames); with Options.AirView, Node is
	// still reported but nothing is left out (Overheard 0).
	Node      capture.Node
	Overheard int64
	// OverheardConns counts the connections with overheard frames, and
	// OnlyOverheard those with nothing else: the node neither sent nor
	// received any frame of them. OnlyOverheardIdx holds the lowest
	// indexes of those, at most 10, in order.
	OverheardConns, OnlyOverheard int64
	OnlyOverheardIdx              []int
	// LinkOwn are the link-layer addresses the capture's frames showed
	// announcing an IPv4 address as their own (capture.Reader.LinkOwn: ARP
	// requests, IPv4 link-layer broadcasts), every frame counted whatever
	// the connection filter; LinkOwnCut reports that capture.MaxLinkOwn
	// cut the list. With DirStats.Links, package pep's link-address
	// evidence (docs/metrics.md#pep).
	LinkOwn    []capture.LinkOwn
	LinkOwnCut bool
}

// AnalyzeFile reads the capture at path ("-" for standard input) and
// analyses every TCP segment in it, spreading the connections over one
// goroutine per core (shard.go) unless opts asks for callbacks or Keep.
// Errors are those of capture.Open and capture.Reader.Next (a
// *capture.FrameError naming the file and frame); a capture cut mid-record
// is not an error but a warning in the Report.
func AnalyzeFile(path string, opts Options) (*Report, error) {
	r, err := capture.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if n := shards(&opts); n > 1 && rereadable(path) {
		// Connections spread over one Analyzer per core (shard.go); a
		// capture the shards cannot analyse exactly as one Analyzer would
		// is read again by one, which streams out (Options.OnDone) only
		// the results the shards had not: theirs were that Analyzer's.
		var sent bitset
		so := opts
		if on := opts.OnDone; on != nil {
			so.OnDone = func(r *ConnResult, start capture.Timestamp) {
				sent.set(r.Conn.Index)
				on(r, start)
			}
		}
		rep, err := analyze(r, so, n)
		if !errors.Is(err, errShardRedo) {
			return rep, err
		}
		r.Close()
		if r, err = capture.Open(path); err != nil {
			return nil, err
		}
		defer r.Close()
		if on := opts.OnDone; on != nil {
			opts.OnDone = func(r *ConnResult, start capture.Timestamp) {
				if !sent.has(r.Conn.Index) {
					on(r, start)
				}
			}
		}
	}
	return analyze(r, opts, 1)
}

// Analyze reads every segment from r; see AnalyzeFile. Reading (and, but
// for a plain pcap file, decoding) runs in a goroutine of its own, a few
// batches ahead of the analysis (pipeline.go). Unlike AnalyzeFile it never spreads the
// analysis over several cores: a Reader cannot be read again should the
// shards fail to match one Analyzer (shard.go).
func Analyze(r *capture.Reader, opts Options) (*Report, error) {
	return analyze(r, opts, 1)
}

// analyze is Analyze with n shards (1: a single Analyzer).
func analyze(r *capture.Reader, opts Options, n int) (*Report, error) {
	if k := opts.OnlyKey; k != nil {
		r.OnlyEndpoints(k.Lo, k.Hi)
	}
	rep := &Report{File: r.Name(), Format: r.Format(), Node: r.Node()}
	if n := rep.Node; n.Known && !opts.AirView && opts.Flows.Node == nil {
		opts.Flows.Node = &n
	}
	var heard overheardTally
	if on := opts.OnDone; on != nil && opts.Flows.Node != nil {
		opts.OnDone = func(r *ConnResult, start capture.Timestamp) {
			heard.add(r)
			on(r, start)
		}
	}
	var ws []string // warnings about connections
	var replayed *capture.FrameIndex
	if n > 1 {
		conns, w, err := analyzeSharded(r, &opts, n)
		if err != nil {
			return nil, err
		}
		rep.Conns, ws = conns, w
	} else {
		a := New(opts)
		a.start = r.FirstFrameTime
		read := pipeline
		if opts.Inline {
			read = inline
		}
		var err error
		ix := opts.Index
		switch rp := opts.Replay; {
		case rp != nil && opts.OnlyKey != nil && r.CanReadIndexed(rp):
			err = replay(r, a, rp, opts.OnlyKey)
			replayed = rp
		default:
			ix.Begin(r)
			err = read(r, func(s *capture.Segment) {
				if len(opts.Ifaces) > 0 && !slices.Contains(opts.Ifaces, s.Iface) {
					return
				}
				if ix == nil {
					a.Add(s)
					return
				}
				h := flows.PairHash(s.Src, s.Dst) // the index's tag and the tracker's hash
				ix.Add(s, tagOf(h))
				a.add(s, h, true)
			})
			ix.End(r, err)
		}
		if err != nil {
			return nil, err
		}
		a.finish()
		rep.Conns = a.Results()
		ws = a.connWarnings()
	}
	for _, c := range rep.Conns {
		heard.add(c)
	}
	rep.Overheard, rep.OverheardConns, rep.OnlyOverheard = heard.frames.Load(), heard.conns.Load(), heard.only.Load()
	rep.OnlyOverheardIdx = heard.idx
	rep.Stats = r.Stats()
	rep.Warnings = r.Warnings()
	rep.LinkOwn, rep.LinkOwnCut = r.LinkOwn()
	if replayed != nil {
		rep.Stats = replayed.Stats()
		rep.Warnings = slices.Clone(replayed.Warnings())
		rep.LinkOwn, rep.LinkOwnCut = replayed.LinkOwn()
	}
	rep.Start = rep.Stats.First
	rep.Warnings = append(rep.Warnings, ws...)
	return rep, nil
}

// IndexTag is the tag of a segment between a and b in a capture.FrameIndex
// (Options.Index): 1–255, the same both ways (flows.PairHash's top bits).
func IndexTag(a, b netip.AddrPort) uint8 { return tagOf(flows.PairHash(a, b)) }

// tagOf is IndexTag from flows.PairHash.
func tagOf(h uint64) uint8 {
	if t := uint8(h >> 56); t != 0 {
		return t
	}
	return 1
}

// replay is the single Analyzer's pass over the segments of key that ix
// places (Options.Replay): a.Add sees them at the segment numbers of the
// whole capture, and the release of finished connections happens at the
// same segments, at the times ix recorded, as when every segment passes
// through Add (Analyzer.skipTo).
func replay(r *capture.Reader, a *Analyzer, ix *capture.FrameIndex, key *flows.Key) error {
	err := r.ReadIndexed(ix, IndexTag(key.Lo, key.Hi), func(s *capture.Segment, n int64) {
		a.skipTo(n-1, ix)
		a.Add(s)
	})
	if err == nil {
		a.skipTo(ix.Segments(), ix)
	}
	return err
}

// skipTo makes a as if the segments up to number n (1-based) had passed
// through Add without being its connections' (stubs, Options.OnlyKey):
// their count, the first one's time, and the releases at every
// releaseEvery-th one, at its time as ix recorded it.
func (a *Analyzer) skipTo(n int64, ix *capture.FrameIndex) {
	if int64(a.added) >= n {
		return
	}
	if a.added == 0 {
		a.first = ix.First()
	}
	for k := int64(a.added)/releaseEvery + 1; k*releaseEvery <= n; k++ {
		a.release(ix.Tick(k)) // a replay is one Analyzer, never a shard
	}
	a.added = int(n)
}

// The index records the time of every releaseEvery-th segment.
const _ = uint(releaseEvery-capture.IndexTick) + uint(capture.IndexTick-releaseEvery)

// OnlyOverheard reports that the capturing 802.11 node only overheard r:
// it has frames addressed to other nodes (Conn.Overheard) and nothing
// else, neither sent nor received (docs/metrics.md#own-frames).
func OnlyOverheard(r *ConnResult) bool {
	return r.Conn.Overheard > 0 && r.Dir[0].Pkts+r.Dir[1].Pkts == 0
}

// overheardTally sums the overheard frames of the results of a capture
// (Report.Overheard).
type overheardTally struct {
	frames, conns, only atomic.Int64
	mu                  sync.Mutex
	idx                 []int // the lowest indexes of only-overheard connections, at most 10, sorted
}

func (t *overheardTally) add(r *ConnResult) {
	if n := r.Conn.Overheard; n > 0 {
		t.frames.Add(n)
		t.conns.Add(1)
		if OnlyOverheard(r) {
			t.only.Add(1)
			t.mu.Lock()
			if i, found := slices.BinarySearch(t.idx, r.Conn.Index); !found && i < 10 {
				t.idx = slices.Insert(t.idx, i, r.Conn.Index)
				t.idx = t.idx[:min(len(t.idx), 10)]
			}
			t.mu.Unlock()
		}
	}
}

// rereadable reports whether path is a regular file: the shards' fallback
// opens it a second time, which a pipe, a FIFO, /dev/fd/N or standard
// input cannot give again (capture.Open reads them once).
func rereadable(path string) bool {
	if path == "-" {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// LinkSource is one link-layer source address of a direction's segments
// (DirStats.Links) and the lowest and highest TTL (hop limit) of the
// segments it sent.
type LinkSource struct {
	Addr           [6]byte
	MinTTL, MaxTTL uint8
}

// linkFrame records s's link-layer source and TTL in st.Links. The hot
// path calls it only when either differs from the previous segment's, so
// a direction whose segments all come from one address at one TTL costs
// one comparison a segment.
func (st *DirStats) linkFrame(s *capture.Segment) {
	st.lastSA, st.lastTTL = s.SA, s.TTL
	if s.SA == ([6]byte{}) {
		return
	}
	switch s.TTL {
	case 32, 64, 128, 255: // an initial TTL: sent from this link
		switch {
		case st.Link0N == 0:
			st.Link0, st.Link0N, st.Link0TTL = s.SA, 1, s.TTL
		case st.Link0 != s.SA:
			st.Link0N = 2
		}
	}
	for i := range st.NLinks {
		if l := &st.Links[i]; l.Addr == s.SA {
			l.MinTTL, l.MaxTTL = min(l.MinTTL, s.TTL), max(l.MaxTTL, s.TTL)
			return
		}
	}
	if int(st.NLinks) < len(st.Links) {
		st.Links[st.NLinks] = LinkSource{Addr: s.SA, MinTTL: s.TTL, MaxTTL: s.TTL}
		st.NLinks++
		return
	}
	st.LinksMany = true
}
