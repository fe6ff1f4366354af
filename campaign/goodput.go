package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// FlowRow is one flow of a campaign: one data direction of one TCP
// connection (docs/schema.md#goodput).
type FlowRow struct {
	File   string // capture the numbers come from
	RunKey string // the run the capture belongs to (RunKey)
	Conn   int    // connection index within File
	Src    string // sender address
	SPort  uint16 // sender port
	Dst    string // receiver address
	DPort  uint16 // receiver port
	// FirstS is the start of the goodput interval, seconds since the Unix
	// epoch (simulation time for ns-3): the application's start when known,
	// else the receiving application's first data (docs/metrics.md#interval).
	FirstS float64
	LastS  float64 // last packet of the connection in File, same clock
	// Bytes are the goodput bytes delivered inside the interval [FirstS,
	// FirstS + IntervalS): unique payload bytes the receiver acknowledged
	// (802.11: or received in order at the end of the capture) in it
	// (docs/metrics.md#goodput).
	Bytes     int64
	Kbps      float64 // Bytes × 8 / IntervalS / 1000, kbit/s
	IntervalS float64 // seconds the rate is computed over (docs/metrics.md#interval)
	// TotalBytes are all goodput bytes of the flow in File, whatever the
	// interval.
	TotalBytes int64
	Vantage    Vantage
	Captures   int // captures of the run that held this flow (the row is counted once)
	// StartKnown reports that FirstS is the application's start (from
	// Options.Interval, Options.Starts or a sidecar), not the first packet.
	StartKnown bool
	// Source says where the interval came from (docs/metrics.md#interval).
	Source IntervalSource
	// CaptureWarnings counts the reader's warnings about File (e.g. a
	// capture cut mid-record); Result.Warnings lists them.
	CaptureWarnings int
	// Shard is the part of the campaign the row was analysed in
	// (Options.Shard, Shards; 1/1 without sharding), so that a merge of
	// per-flow tables can tell a shard missing or given twice; zero when
	// not known (a table written before tcpviz.goodput/4).
	Shard    Shard
	Labels   map[string]string
	isn      uint32
	isnKnown bool
	// dirGuess: the connection delivered and sent no payload either way in
	// File and its handshake was not captured, so its direction is a
	// guess; peerISN and appRev are the other direction's, for alignTies.
	dirGuess     bool
	peerISN      uint32
	peerISNKnown bool
	appRev       appSpan
	recvFile     string  // dedup: the receiver's capture of the flow, when the row is not from it
	curve        []step  // acknowledged bytes over time (window.go)
	connLast     float64 // the connection's last packet in File
	app          appSpan // the receiving application's interval in File
	closed       bool    // either side sent a FIN or RST in File
	// unacked: payload bytes sent in File of which no captured packet says
	// anything, for a flow whose receiver has no packet in File (a capture
	// of one direction): its delivered bytes are unknown, not 0
	// (UnackedPayload).
	unacked int64
}

// Options control Goodput.
type Options struct {
	// Labels returns a capture's labels, or false to reject the capture
	// (it is then reported as an error). nil gives no labels.
	Labels func(path string) (map[string]string, bool)
	// Port keeps only flows with this port on either side; 0 keeps all.
	Port int
	// Dir chooses the data direction of each connection; query.Auto is
	// query.DataDirection (the direction that delivered more bytes).
	Dir query.Dir
	// MinBytes drops flows that delivered fewer goodput bytes in all (for
	// example iperf3's control connection); flows declared by Starts or a
	// sidecar are never dropped. Result.Dropped counts them.
	MinBytes int64
	// MinBytesClosed limits MinBytes to flows whose connection was closed
	// (a FIN or RST from either side: a finished exchange such as iperf3's
	// control connection); a flow that stalled or never delivered is then
	// kept, since it is a result.
	MinBytesClosed bool
	// End, when > 0, ends every flow's goodput interval at this capture
	// time (seconds since the epoch; the simulation end for ns-3) instead
	// of at the application's stop, its close or the run's end.
	End float64
	// Jobs is the number of captures analysed at once; 0 means GOMAXPROCS.
	Jobs int
	// inline: Jobs fill every core, so each capture is read and analysed
	// on its job's goroutine (tcpanalysis.Options.Inline); set by Goodput.
	inline bool
	// runKeys are the captures' run keys (RunKeys); set by Goodput.
	runKeys map[string]string
	// Shard, Shards select the part of the campaign this process analyses:
	// runs are assigned to shard hash(RunKey) mod Shards, so the captures of
	// one run stay together. Shards ≤ 1 analyses everything; Shard is
	// 0-based.
	Shard, Shards int
	// Progress is called after each capture (nil: nothing).
	Progress func(done, total int)
	// Starts, when set, gives flows' application start times: their
	// goodput interval starts there instead of at their first packet.
	// Listed flows that no capture holds become rows with 0 bytes and
	// Vantage Nowhere.
	Starts *Starts
	// Interval, when set, is one measurement window for every flow; it
	// overrides Starts, the sidecars and End.
	Interval *Interval
	// PathRTT, when > 0, is the end-to-end RTT of every flow's path, given
	// for the whole campaign (--path-rtt): evidence for or against a
	// split-TCP PEP acknowledging each flow in its capture
	// (pep.Options.PathRTT): a connection RTT below a quarter of it proves
	// a PEP (vantage pep), one above rules out a PEP on the sender's link
	// (no vantage pep?). 0: unknown.
	PathRTT time.Duration
	// Sidecars reads each run's ground truth next to its captures
	// (FindSidecar) when Interval and Starts are not set: flows' intervals
	// then run from their application's start to its stop (End, when > 0,
	// still ends them), and declared flows that no capture holds become
	// rows with 0 bytes and Vantage Nowhere.
	Sidecars bool
}

// runKey is the run key of the capture at path: RunKeys' when Goodput
// set them, else RunKey.
func (o Options) runKey(path string) string {
	if k, ok := o.runKeys[path]; ok {
		return k
	}
	return RunKey(path)
}

// Shard is part I of N (1-based) of a campaign's runs (InShard); the
// zero Shard is unknown.
type Shard struct{ I, N int }

// String is "I/N", or "" for the zero Shard.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return strconv.Itoa(s.I) + "/" + strconv.Itoa(s.N)
}

// ParseShard parses "I/N" (1 ≤ I ≤ N); "" is the zero Shard.
func ParseShard(v string) (Shard, error) {
	if v == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 1 ≤ I ≤ N", v)
	}
	return Shard{i, n}, nil
}

// FileError is a capture that could not be analysed.
type FileError struct {
	File string
	Err  error
}

// Result is the outcome of Goodput.
type Result struct {
	Rows   []FlowRow   // one per flow, deduplicated, sorted by run, sender, port
	Files  []string    // captures analysed (this shard)
	Failed []FileError // captures that failed; the batch went on without them
	// Sidecars lists the ground-truth files the intervals came from
	// (Options.Sidecars); SidecarErrors those that could not be read.
	Sidecars      []string
	SidecarErrors []FileError
	// Late lists flows whose interval started at their first packet and
	// which started late relative to their run's other flows: their rate
	// may be overstated (docs/metrics.md#interval).
	Late []LateFlow
	// Warnings are the reader's warnings per capture (a capture cut
	// mid-record, timestamps going backwards): the rows of those captures
	// have CaptureWarnings > 0.
	Warnings []FileWarnings
	// IntervalWarnings say where an interval reaches outside the run's
	// captures (docs/metrics.md#interval): its bytes outside them are
	// unknown and counted as 0.
	IntervalWarnings []Warning
	// VantageWarnings say, for runs of per-node 802.11 captures (each
	// capture telling its node's addresses, docs/metrics.md#vantage),
	// which flows are not read at their receiver and why: no capture of
	// the run was taken on the receiver's node, or its capture holds none
	// of the flow, or it was cut. At most VantageWarningsPerRun lines per
	// run, then a count, then a summary line.
	VantageWarnings []Warning
	// VantageNotes count the flows whose receiver's capture holds none of
	// them and which delivered nothing where they were read: consistent
	// rows (nothing reached the receiver), not warnings.
	VantageNotes []Warning
	// Dropped are the flows Options.MinBytes dropped.
	Dropped []FlowRow
	// NoTCP are the captures analysed that hold no TCP connection (a UDP
	// control run, a capture filter that kept no TCP), with their counts;
	// Conns counts the TCP connections of every capture analysed, before
	// Options.Port, so that a batch of 0 flows can say why.
	NoTCP []CaptureCounts
	Conns int
	// RunEnd is, per run key, the last frame of any of its captures,
	// seconds (captures' clock): where a flow's interval ends when nothing
	// else ends it.
	RunEnd map[string]float64
}

// FileWarnings are the reader's warnings about one capture.
type FileWarnings struct {
	File     string
	Warnings []string
}

// InShard reports whether a capture belongs to shard i of n (0-based):
// the first 8 bytes of the SHA-256 of its run's name (the last two
// elements of its resolved run key, shardName), big-endian, modulo n.
// Every capture of a run is in one shard, whatever the spelling of its
// path; a well-mixed hash spreads runs whose names differ in a few
// letters, which FNV-1a modulo a small n does not (manet/tcp-aodv-r1 and
// manet/tcp-olsr-r1: one shard for every n from 2 to 6).
func InShard(path string, i, n int) bool {
	if n <= 1 {
		return true
	}
	h := sha256.Sum256([]byte(shardName(path)))
	return int(binary.BigEndian.Uint64(h[:8])%uint64(n)) == i
}

// Goodput analyses the captures in parallel (Options.Jobs at a time, so
// memory is bounded by that many captures' connection state) and returns one
// row per flow. A flow held by several captures of one run (same endpoints
// and ISN) is counted once, from the capture taken at its receiver when
// there is one, else at its sender, else the one that saw most delivered
// bytes. A capture that fails is listed in Result.Failed; the rest go on.
// Goodput returns an error if ctx is cancelled, ErrOutsideCaptures when
// Options.Interval starts at or after the end of every run's captures or
// Options.End is at or before every flow's start, and, before any capture
// is read, an *OptionError when a row of Options.Starts would be declared
// in runs it does not belong to (a column naming runs that is no label;
// Starts.checkRuns).
func Goodput(ctx context.Context, files []string, o Options) (*Result, error) {
	keys := RunKeys(files)
	if o.Interval == nil {
		if err := o.Starts.checkRuns(runsOf(files, func(f string) string { return keys[f] }, o.Labels)); err != nil {
			return nil, err
		}
	}
	var mine []string
	for _, f := range files {
		if InShard(f, o.Shard, o.Shards) {
			mine = append(mine, f)
		}
	}
	o.runKeys = keys
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	// With a capture per core, handing each capture's segments from a
	// reading goroutine to its analysis only costs CPU (--jobs 2 on the
	// per-node ns-3 captures: 11.4 s of CPU, 10.6 s inline); with fewer
	// jobs than cores, reading beside the analysis uses a core that would
	// idle.
	o.inline = jobs >= runtime.GOMAXPROCS(0)
	type out struct {
		rows []FlowRow
		fi   fileInfo
		err  error
	}
	results := make([]out, len(mine))
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				rows, fi, err := safeFileRows(mine[i], o)
				results[i] = out{rows, fi, err}
				if o.Progress != nil {
					mu.Lock()
					done++
					o.Progress(done, len(mine))
					mu.Unlock()
				}
			}
		}()
	}
	var cancelled error
feed:
	for i := range mine {
		select {
		case work <- i:
		case <-ctx.Done():
			cancelled = ctx.Err()
			break feed
		}
	}
	close(work)
	wg.Wait()
	if cancelled == nil {
		cancelled = ctx.Err() // cancelled while the last captures were read
	}
	if cancelled != nil {
		return nil, cancelled
	}
	res := &Result{Files: mine, RunEnd: map[string]float64{}}
	var all []FlowRow
	for i, r := range results {
		if r.err != nil {
			res.Failed = append(res.Failed, FileError{mine[i], r.err})
			continue
		}
		if len(r.fi.warnings) > 0 {
			res.Warnings = append(res.Warnings, FileWarnings{mine[i], r.fi.warnings})
		}
		res.Conns += r.fi.counts.Conns
		if r.fi.counts.Conns == 0 {
			c := r.fi.counts
			c.File = mine[i]
			res.NoTCP = append(res.NoTCP, c)
		}
		if k := o.runKeys[mine[i]]; r.fi.last > res.RunEnd[k] {
			res.RunEnd[k] = r.fi.last
		}
		all = append(all, r.rows...)
	}
	res.Rows = dedup(all)
	applyIntervals(res, o)
	shard := Shard{1, 1}
	if o.Shards > 1 {
		shard = Shard{o.Shard + 1, o.Shards}
	}
	for i := range res.Rows {
		res.Rows[i].Shard = shard
	}
	infos := make([]fileInfo, len(results))
	for i, r := range results {
		infos[i] = r.fi
	}
	res.VantageWarnings, res.VantageNotes = sinkWarnings(res.Rows, mine, infos, o.runKeys)
	if err := checkInterval(res, o); err != nil {
		return res, err
	}
	return res, nil
}

// fileInfo is what Goodput keeps of a capture besides its rows.
type fileInfo struct {
	last     float64  // its last frame, seconds
	warnings []string // the reader's warnings
	// identity reports that the capture told its node's identity (an
	// 802.11 capture on the node, nodeID); own are the node's addresses.
	identity bool
	own      []netip.Addr
	counts   CaptureCounts
}

// CaptureCounts are what one capture held, for the batch's summary of
// captures without TCP (Result.NoTCP): frames read, frames that yielded
// a TCP segment, IP packets that are not TCP (UDP, ICMP, …), frames
// without IP (ARP, 802.11 management and control, …), and TCP
// connections (before Options.Port).
type CaptureCounts struct {
	File                            string
	Frames, Segments, NonTCP, NonIP int64
	Conns                           int
}

// ErrNoLabels is the error of a capture the label pattern or the manifest
// rejected.
var ErrNoLabels = errors.New("no labels: the path does not match the label pattern (or is not in the manifest)")

// safeFileRows is fileRows with a panic (a bug in tcpviz, or in a library,
// hit by this capture) turned into an error, so the capture is reported as
// failed and the batch goes on.
func safeFileRows(path string, o Options) (rows []FlowRow, fi fileInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			rows, fi, err = nil, fileInfo{}, fmt.Errorf("%w: %v (please report it with the capture)", ErrInternal, p)
		}
	}()
	if beforeFile != nil {
		beforeFile(path)
	}
	return fileRows(path, o)
}

// beforeFile, when set by a test, runs before each capture is analysed.
var beforeFile func(path string)

// ErrInternal marks a capture whose analysis panicked: a bug, reported as
// that capture's failure.
var ErrInternal = errors.New("internal error")

// fileRows analyses one capture into flow rows. The connections whose
// delivered-bytes curve or receiver's close is needed (seriesNeeded) are
// analysed a second time with their ACKs and segments kept, so memory
// stays bounded by the connections' counts in the common case.
func fileRows(path string, o Options) ([]FlowRow, fileInfo, error) {
	var labels map[string]string
	if o.Labels != nil {
		l, ok := o.Labels(path)
		if !ok {
			return nil, fileInfo{}, ErrNoLabels
		}
		labels = l
	}
	id := &nodeID{}
	onePass := smallCapture(path)
	rep, err := analyzeKeeping(path, id, onePass, o.inline)
	if err == nil && onePass && len(rep.Conns) > onePassMaxConns {
		// Too many connections to be sure no table pressure changed the
		// analysis (kept connections are never bare SYNs to end): again,
		// as two passes do.
		id, onePass = &nodeID{}, false
		rep, err = analyzeWithID(path, id, o.inline)
	}
	if err != nil {
		return nil, fileInfo{}, err
	}
	need, parts := seriesNeeded(rep, boundaries(path, labels, o), o.Interval == nil && o.End <= 0)
	if onePass {
		// Every connection's segments and ACKs were kept: keep what the
		// second pass would have kept, nothing more.
		for _, r := range rep.Conns {
			switch {
			case !need[r.Conn.Index]:
				r.Series = nil
			case parts&tcpanalysis.PartSegs == 0:
				r.Series.Segs = [2][]tcpanalysis.SegPoint{}
			}
		}
	} else if len(need) > 0 {
		again, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Flows: flows.Options{WScale: -1}, RTTQuantiles: true,
			Keep: func(c int) bool { return need[c] }, KeepParts: parts, Inline: o.inline})
		if err != nil {
			return nil, fileInfo{}, err
		}
		if len(again.Conns) == len(rep.Conns) {
			for c := range need {
				rep.Conns[c].Series = again.Conns[c].Series
			}
		}
	}
	fi := fileInfo{last: rep.Stats.Last.Seconds(), warnings: rep.Warnings, identity: id.known(), own: id.ownAddrs(),
		counts: CaptureCounts{Frames: rep.Stats.Frames, Segments: rep.Stats.Segments, NonTCP: rep.Stats.NonTCP, NonIP: rep.Stats.NonIP, Conns: len(rep.Conns)}}
	var rows []FlowRow
	var dirs []flows.Direction
	for _, r := range rep.Conns {
		c := r.Conn
		if sel := (query.Selection{Conn: -1, Port: uint16(o.Port)}); !sel.Match(r) {
			continue
		}
		d, tie := dataDir(r, o.Dir)
		st := r.Dir[d]
		snd, rcv := c.Half[d], c.Half[d.Reverse()]
		row := FlowRow{
			File: path, RunKey: o.runKey(path), Conn: c.Index,
			Src: snd.Addr.Addr().String(), SPort: snd.Addr.Port(),
			Dst: rcv.Addr.Addr().String(), DPort: rcv.Addr.Port(),
			FirstS: c.First.Seconds(), LastS: c.Last.Seconds(),
			Bytes: st.DeliveredBytes, TotalBytes: st.DeliveredBytes,
			Vantage: vantageAt(id, r, d),
			Labels:  labels, CaptureWarnings: len(rep.Warnings),
			curve: ackCurve(r, d), connLast: c.Last.Seconds(), app: appSpanOf(r, d),
			closed: c.Half[0].FinSeen || c.Half[0].RstSeen || c.Half[1].FinSeen || c.Half[1].RstSeen,
		}
		if row.Vantage != AtReceiver {
			// Only the receiver's own capture shows which frames its radio
			// decoded; elsewhere — and wherever the capturing node is not
			// known — the frames "to the receiver's MAC" after its last
			// ACK may be to a relay or lost: count the ACKs only
			// (docs/metrics.md#vantage). On a wired link the two are
			// equal.
			row.Bytes, row.TotalBytes = st.AckedBytes, st.AckedBytes
		}
		if st.Bytes > 0 && row.TotalBytes == 0 && r.Dir[d.Reverse()].Pkts == 0 {
			row.unacked = st.Bytes
		}
		if snd.ISNKnown {
			row.isn, row.isnKnown = uint32(snd.ISN), true
		}
		if tie {
			// No data either way and no handshake to tell the client: the
			// direction is aligned with the other captures' in dedup.
			row.dirGuess = true
			row.peerISN, row.peerISNKnown = uint32(rcv.ISN), rcv.ISNKnown
			row.appRev = appSpanOf(r, d.Reverse())
		}
		end := row.LastS
		if o.End > 0 {
			end = o.End
		}
		row.IntervalS = end - row.FirstS
		row.Kbps = Kbps(row.Bytes, row.IntervalS)
		rows = append(rows, row)
		dirs = append(dirs, d)
	}
	markProxied(path, rep, rows, dirs, o.inline, o.PathRTT)
	for _, r := range rep.Conns {
		r.Series = nil // the rows hold what they need
	}
	return rows, fi, nil
}

// onePassMaxBytes is the largest capture file (bytes on disk, compressed
// or not) fileRows analyses in one pass with every connection's segments
// and ACKs kept, instead of a second pass over the connections whose
// delivered-bytes curve or close it needs (seriesNeeded): reading a
// small capture twice cost as much as analysing it (half the CPU of a
// campaign of per-node MANET captures), and keeping its series costs a few
// megabytes per job at most. onePassMaxConns is the most connections such
// a pass may find: kept connections are never ended as bare SYNs under
// table pressure (docs/robustness.md#finished-connections), which needs
// more than 16 384 connections alive at once, so with fewer the analysis
// is the one of the two passes.
var onePassMaxBytes int64 = 4 << 20

const onePassMaxConns = 1 << 13

// smallCapture reports whether the capture at path is a file of at most
// onePassMaxBytes.
func smallCapture(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() <= onePassMaxBytes
}

// analyzeKeeping is analyzeWithID, with every connection's segments and
// ACKs kept when keep is set.
func analyzeKeeping(path string, id *nodeID, keep, inline bool) (*tcpanalysis.Report, error) {
	if !keep {
		return analyzeWithID(path, id, inline)
	}
	r, err := capture.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.SetFrameHook(frameHook(capture.FrameHook(nil), id))
	return tcpanalysis.Analyze(r, tcpanalysis.Options{Flows: flows.Options{WScale: -1}, RTTQuantiles: true,
		Keep: func(int) bool { return true }, KeepParts: tcpanalysis.PartSegs | tcpanalysis.PartAcks, Inline: inline})
}

// markProxied sets Vantage AtProxy on the rows (of rep's connections, in
// data direction dirs[i]) whose ACKs a split-TCP PEP sent, and
// AtProxyPossible on those whose ACKs a PEP may have sent (one capture
// cannot tell: pep.Verdict.Possible), by package pep's one-capture
// evidence with the campaign's path RTT (pathRTT; 0: unknown). Only wired
// captures are examined: on 802.11 MANET captures one-hop receivers and
// route discovery imitate a PEP's signature. A zero-window stall still
// open at the end needs the connection's detail, and an acknowledger on
// the sender's link the capture's link layer: pep.Recheck looks again at
// the connections it names (at most pep.MaxRecheck per capture with their
// detail kept, rare outside PEP runs; the link layer from the same pass,
// pep.LinksOf).
func markProxied(path string, rep *tcpanalysis.Report, rows []FlowRow, dirs []flows.Direction, inline bool, pathRTT time.Duration) {
	rc := pep.Recheck{PathRTT: pathRTT, Links: pep.LinksOf(rep)}
	row := map[int]int{} // connection index → row, of the connections rc holds
	mark := func(i int, v pep.Verdict) {
		switch {
		case v.Likely:
			rows[i].Vantage = AtProxy
		case v.Possible:
			rows[i].Vantage = AtProxyPossible
		}
	}
	for i := range rows {
		r := rep.Conns[rows[i].Conn]
		if r.Conn.Half[0].MACKnown || r.Conn.Half[1].MACKnown {
			continue
		}
		v := pep.DetectWith(r, dirs[i], pep.Options{PathRTT: pathRTT, Links: rc.Links}) // the whole report's link layer: nothing waits for it
		if rc.Add(r, v) {
			row[rows[i].Conn] = i
			continue
		}
		mark(i, v)
	}
	rc.Run(path, tcpanalysis.Options{Flows: flows.Options{WScale: -1}, Inline: inline}, nil, func(c int, v pep.Verdict) {
		mark(row[c], v)
	})
}

// vantage decides where the capture sat for data direction d
// (docs/metrics.md#vantage). On 802.11 captures only the radio's own
// transmissions count: at the receiver if it sent frames with the
// receiver's MAC as transmitter and none with the sender's, at the sender
// symmetrically; a radio that transmitted both directions as their own
// (a relay whose address both halves learned) or neither (an overhearing
// or relaying node) is Elsewhere — a relay next to the receiver hears the
// receiver's ACKs with their initial TTL, so TTLs decide nothing there.
// On wired captures (no 802.11 addresses) the receiver's packets arrive
// with a higher TTL than the sender's at the receiver, and vice versa.
func vantage(r *tcpanalysis.ConnResult, d flows.Direction) Vantage {
	data, ack := r.Dir[d], r.Dir[d.Reverse()]
	wifi := r.Conn.Half[d].MACKnown || r.Conn.Half[d.Reverse()].MACKnown
	switch radio := tcpanalysis.RadioOf(r, d); {
	case radio == tcpanalysis.RadioReceiver:
		return AtReceiver
	case radio == tcpanalysis.RadioSender:
		return AtSender
	case wifi: // both ends' or a relay's frames sent, or none
		return Elsewhere
	case ack.MaxTTL > data.MaxTTL:
		return AtReceiver
	case data.MaxTTL > ack.MaxTTL:
		return AtSender
	}
	return Elsewhere
}

func rank(v Vantage) int {
	switch v {
	case AtReceiver:
		return 2
	case AtSender:
		return 1
	}
	return 0
}

// better reports whether row r of a flow is to be kept over row b: the
// better vantage, then more goodput bytes; but when the reader warned
// about either capture (one cut mid-record ends early), the one that saw
// more goodput bytes.
func better(r, b FlowRow) bool {
	if (r.CaptureWarnings > 0 || b.CaptureWarnings > 0) && r.TotalBytes != b.TotalBytes {
		return r.TotalBytes > b.TotalBytes
	}
	return rank(r.Vantage) > rank(b.Vantage) || (rank(r.Vantage) == rank(b.Vantage) && r.Bytes > b.Bytes)
}

// JoinGap is how far apart, in seconds, two captures' spans of one
// connection (same endpoints, ISNs that do not contradict) may be and
// still be one flow: a sender's capture can end with a SYN that a relay
// held while it looked for a route (ns-3 AODV queues packets up to 30 s)
// and the sink's capture start after it. Two connections on the same
// endpoints within one capture are never joined (flows splits port reuse).
const JoinGap = 30.0

// dedup keeps one row per flow. Rows of one run with the same endpoints
// are the same flow when their time spans overlap or are at most JoinGap
// apart (a capture that overheard only part of the connection still
// overlaps it), they come from different captures and their ISNs do not
// contradict each other. The row kept is the best vantage (receiver, then
// sender, then most bytes); its FirstS becomes the earliest first packet
// any capture saw, so the rate's interval starts where the connection
// started. Rows whose direction was a guess are first aligned (alignTies).
func dedup(rows []FlowRow) []FlowRow {
	alignTies(rows)
	type key struct {
		run, src, dst string
		sp, dp        uint16
	}
	groups := map[key][]FlowRow{}
	var order []key
	for _, r := range rows {
		k := key{r.RunKey, r.Src, r.Dst, r.SPort, r.DPort}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []FlowRow
	for _, k := range order {
		g := groups[k]
		sort.SliceStable(g, func(i, j int) bool { return g[i].FirstS < g[j].FirstS })
		type cluster struct {
			best        FlowRow
			first, last float64
			isn         uint32
			isnKnown    bool
			n           int
			files       map[string]bool
			recvFile    string // a capture that held the flow at its receiver
		}
		var cs []*cluster
		for _, r := range g {
			var c *cluster
			for _, x := range cs {
				if r.FirstS <= x.last+JoinGap && r.LastS >= x.first-JoinGap && !x.files[r.File] &&
					!(x.isnKnown && r.isnKnown && x.isn != r.isn) {
					c = x
					break
				}
			}
			if c == nil {
				cs = append(cs, &cluster{best: r, first: r.FirstS, last: r.LastS, isn: r.isn, isnKnown: r.isnKnown, n: 1,
					files: map[string]bool{r.File: true}})
				continue
			}
			c.n++
			c.files[r.File] = true
			c.first, c.last = min(c.first, r.FirstS), max(c.last, r.LastS)
			if r.isnKnown && !c.isnKnown {
				c.isn, c.isnKnown = r.isn, true
			}
			if r.Vantage == AtReceiver || c.best.Vantage == AtReceiver {
				c.recvFile = r.File
				if c.best.Vantage == AtReceiver {
					c.recvFile = c.best.File
				}
			}
			if better(r, c.best) {
				c.best = r
			}
		}
		for _, c := range cs {
			r := c.best
			r.Captures = c.n
			if r.Vantage != AtReceiver {
				r.recvFile = c.recvFile
			}
			if c.first < r.FirstS {
				end := r.FirstS + r.IntervalS
				r.FirstS = c.first
				r.IntervalS = end - r.FirstS
				r.Kbps = Kbps(r.Bytes, r.IntervalS)
			}
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.RunKey != b.RunKey {
			return a.RunKey < b.RunKey
		}
		return a.FirstS < b.FirstS
	})
	return out
}

// UnackedPayload is the payload in bytes a flow's sender sent in its
// capture when the capture holds no packet of its receiver (one direction
// captured: a filter on the source, an asymmetric return path): its
// delivered bytes are then unknown, though they read 0; 0 otherwise. Such
// a flow is left out like a small one (Options.MinBytes), and the batch
// says why (study: "delivered bytes unknown").
func (r FlowRow) UnackedPayload() int64 { return r.unacked }
