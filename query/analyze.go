package query

import (
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/atomicfile"
	"github.com/tcpviz/tcpviz/internal/prefault"
	"github.com/tcpviz/tcpviz/internal/textcol"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Options configure Analyze.
type Options struct {
	// Analysis are the analyzer's options (window-scale override,
	// folding, interfaces). Keep, KeepRTT and KeepEvents are set by
	// Analyze.
	Analysis tcpanalysis.Options
	// Stdin is read when the path is "-"; it is spooled to a temporary
	// file so that a second pass can read it again.
	Stdin io.Reader
	// RTT keeps, for every connection, what RTTAgg.Quantile needs
	// (bounded memory), for tables that list all matching connections;
	// RTTSamples also keeps every RTT sample of every connection (rows,
	// figures, a time range). Events keeps every event of every
	// connection. Otherwise samples and events are kept for the chosen
	// connection only.
	RTT, RTTSamples, Events bool
	// Interval is the width of goodput and throughput intervals; 0 chooses
	// NiceInterval of the chosen connection's duration.
	Interval time.Duration
	// OnePassLimit overrides the package's OnePassLimit (bytes) when > 0.
	OnePassLimit int64
	// Name, when set, names the capture in the View and its messages
	// instead of the path (for example "-" for standard input that the
	// caller spooled to a file itself).
	Name string
	// Parts are the series parts the caller reads from the chosen
	// connection (tcpanalysis.Options.KeepParts; 0: every part, with its
	// RTT samples and events). A verb keeps only what it prints: the
	// memory of a kept connection grows with its packets.
	Parts tcpanalysis.SeriesParts
	// OneConn says the caller reads the chosen connection only (View.Conn):
	// a pass that knows the connection analyses only it
	// (tcpanalysis.Options.Only), so View.Report and View.Conns hold, for
	// every other connection, its addresses, times, packets and payload
	// bytes only, and View.Warnings only the capture's and Conn's.
	OneConn bool
	// OnRTT, when set, is called with every RTT sample of the pass that
	// makes the View (tcpanalysis.Options.OnRTT), for output streamed
	// while the capture is read (export.RTTRows); without a connection
	// named, that pass analyses every connection.
	OnRTT func(*tcpanalysis.ConnResult, tcpanalysis.RTTSample)
	// AnalyzeFile, when set, replaces tcpanalysis.AnalyzeFile for every
	// pass (for example to apply a capture filter).
	AnalyzeFile func(path string, opts tcpanalysis.Options) (*tcpanalysis.Report, error)
}

// OnePassLimit is the capture size in bytes up to which Analyze keeps
// every connection's series in one pass (memory grows with packets);
// larger captures without a connection index take a counting pass to
// choose the connection first (connections tracked and their payload bytes
// counted, nothing analysed: about half the time of a full analysis), and a
// second pass to keep its series.
const OnePassLimit = 16 << 20

// indexBudget bounds, in bytes, the counting pass's capture.FrameIndex:
// about 1.4 bytes a frame, so captures up to about 45 M frames get a
// second pass that reads the chosen connection's records only; larger
// ones are read whole again.
const indexBudget = 64 << 20

// View is one analysed capture seen through a Selection: the matching
// connections, the chosen one with its direction and reference point, and
// the warnings found on the way. Series and times are read from it.
type View struct {
	// File is the capture as the caller named it ("-" for standard input).
	File   string
	Report *tcpanalysis.Report
	Sel    Selection
	// Conns are the connections that match Sel, in index order; empty
	// after a streamed counting pass (Options.OneConn on a large capture),
	// which keeps only their number (Matched).
	Conns []*tcpanalysis.ConnResult
	// Matched is how many connections match Sel (len(Conns) when Conns
	// are kept); Tied how many others of them carry as many payload bytes
	// as Conn when Conn was picked as the largest (Pick takes the first).
	Matched, Tied int
	// Conn is the chosen connection (Sel.Conn, else the largest that
	// matches) and Dir its data direction (Sel.Dir, else DataDirection).
	// Conn's series are kept.
	Conn *tcpanalysis.ConnResult
	Dir  flows.Direction
	// Ref is Sel.Ref's time on Conn in Dir, and RefUsed the reference
	// point it is: Sel.Ref, or what it fell back to when Conn has none in
	// Dir (Ref.Resolve; a WarnRefFallback warning says so).
	Ref     capture.Timestamp
	RefUsed Ref
	// Picked is true when Conn was chosen by the largest rule, not named.
	Picked bool
	// Interval is the goodput/throughput interval width of Series.
	Interval time.Duration
	// Warnings are the problems found in the capture (Warnings) and in the
	// selection (an empty time range).
	Warnings []Warning
	// PathRTT is the path's end-to-end RTT the user gave (--path-rtt; 0:
	// unknown): evidence for the split-TCP PEP verdict that every output
	// of the view names its acknowledged bytes by (figures.PEPVerdict,
	// package pep, docs/metrics.md#pep). Analyze leaves it 0; the caller
	// sets it.
	PathRTT time.Duration
}

// growing are the series parts whose points are kept per packet.
const growing = tcpanalysis.PartSegs | tcpanalysis.PartAcks | tcpanalysis.PartSACKs | tcpanalysis.PartWindow

// Analyze reads the capture at path and returns the View of sel. With a
// capture of at most OnePassLimit bytes, or sel.Conn set and no series
// of one connection asked for (OneConn with Parts of growing), it is one
// pass; otherwise a counting pass chooses the connection and a second pass keeps
// its series (with OneConn, a pass over that connection's addresses and
// ports only). With RTT, RTTSamples, Events or OnRTT, a large capture and
// no connection named, it is one full pass that keeps no series. Errors:
// those of tcpanalysis.AnalyzeFile (a *capture.FrameError naming the file
// and frame, fs errors), a Selection error, or Pick's ErrNoMatch /
// ErrNoConn.
func Analyze(path string, sel Selection, o Options) (*View, error) {
	if err := sel.Validate(); err != nil {
		return nil, err
	}
	p, cleanup, err := spool(path, o.Stdin)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if o.Name != "" {
		path = o.Name
	}
	analyze := o.AnalyzeFile
	if analyze == nil {
		analyze = tcpanalysis.AnalyzeFile
	}
	opts := o.Analysis
	opts.RTTQuantiles = o.RTT
	opts.KeepRTT, opts.KeepEvents = o.RTTSamples, o.Events
	opts.KeepParts = o.Parts
	if o.OneConn {
		// RTT medians for the PEP verdict (pep.Detect) without every
		// sample: bounded per connection, and one connection analysed.
		opts.RTTQuantiles = true
	}
	limit := int64(OnePassLimit)
	if o.OnePassLimit > 0 {
		limit = o.OnePassLimit
	}
	small := false
	st1, err := os.Stat(p)
	if err == nil && st1.Size() <= limit {
		small = true
	}
	// Two passes when the connection is not named and the capture is
	// large, unless every connection's samples or events are asked for
	// (then one full pass, and no series).
	twoPass := false
	var cp *countPick
	pass1 := opts
	switch {
	case sel.Conn >= 0 && (small || !o.OneConn || o.Parts&growing == 0):
		// A connection named on a large capture takes the two passes
		// below when its series are wanted (growing): one pass would keep
		// both directions (the data direction is known only at the end)
		// in slices that grow, twice the memory (248 against 142 MB for
		// window on the bulk benchmark, docs/performance.md).
		want := sel.Conn
		pass1.Keep = func(i int) bool { return i == want }
		if o.OneConn {
			pass1.Only = pass1.Keep
			if sel.Dir != Auto {
				pass1.KeepDirs[sel.Dir.Of(nil)] = true
			}
		}
	case small:
		pass1.Keep = func(int) bool { return true }
	case (o.RTT || o.RTTSamples || o.Events || o.OnRTT != nil) && !o.OneConn:
		pass1.Keep = nil
	default:
		// The counting pass: Pick needs each connection's key and payload
		// bytes only.
		twoPass = true
		pass1.Keep, pass1.Only = nil, func(int) bool { return false }
		if o.OneConn {
			// Streamed: each connection is dropped when it is over,
			// keeping the best match so far and, per 4-tuple, the
			// indexes of its connections (for the second pass).
			cp = &countPick{sel: sel, seed: maphash.MakeSeed(), onKey: map[uint64][]int32{}}
			pass1.OnDone = cp.add
			// Where every segment is, so that the second pass reads
			// the chosen 4-tuple's records only.
			pass1.Index = capture.NewFrameIndex(indexBudget)
		}
	}
	if !twoPass {
		pass1.OnRTT = o.OnRTT
	}
	rep, err := analyze(p, pass1)
	if err != nil {
		return nil, err
	}
	rep.File = path
	renameIn(rep, p, path)
	if cp != nil {
		if cp.best == nil {
			if sel.Conn >= cp.all {
				return nil, fmt.Errorf("%w: %s has %s, no connection %d", ErrNoConn, rep.File, textcol.Count(cp.all, "connection"), sel.Conn)
			}
			return nil, fmt.Errorf("%w in %s (%s)", ErrNoMatch, rep.File, sel.describe())
		}
		opts.Replay = pass1.Index
		return onePair(path, p, st1, rep, cp.best, cp.rank(), cp.matched, cp.tied, sel, o, opts, analyze)
	}
	r, err := sel.Pick(rep)
	if err != nil {
		return nil, err
	}
	if twoPass && o.OneConn {
		return onePair(path, p, st1, rep, r, -1, 0, 0, sel, o, opts, analyze)
	}
	if twoPass {
		idx := r.Conn.Index
		opts.Keep = func(i int) bool { return i == idx }
		opts.OnRTT = o.OnRTT
		if err := sameFile(path, p, st1); err != nil {
			return nil, err
		}
		if rep, err = analyze(p, opts); err != nil {
			return nil, err
		}
		if err := sameFile(path, p, st1); err != nil {
			return nil, err
		}
		rep.File = path
		renameIn(rep, p, path)
		r = rep.Conns[idx]
	}
	return newView(path, rep, r, sel, o), nil
}

// sameFile checks that the file at p is still the one the first pass read
// (st1): the same file (device and inode, os.SameFile), not shorter. A
// file replaced between the passes (mv, a rotated capture) would give the
// second pass another capture's data under the first pass's connection
// numbers; one that grew (a capture still being written) is read up to
// where the first pass ended when the second pass has its index, whole
// otherwise. Errors: a *capture.FrameError naming path and wrapping
// capture.ErrFileChanged; nil without st1 (standard input spooled).
func sameFile(path, p string, st1 os.FileInfo) error {
	if st1 == nil {
		return nil
	}
	st2, err := os.Stat(p)
	if err != nil {
		return &capture.FrameError{File: path, Err: fmt.Errorf("%w: %w", capture.ErrFileChanged, err)}
	}
	if !os.SameFile(st1, st2) {
		return &capture.FrameError{File: path, Err: fmt.Errorf("%w: the file was replaced between the two passes (another file, %d bytes, where the first pass read %d)", capture.ErrFileChanged, st2.Size(), st1.Size())}
	}
	if st2.Size() < st1.Size() {
		return &capture.FrameError{File: path, Err: fmt.Errorf("%w: the file shrank between the two passes (%d bytes, the first pass read %d)", capture.ErrFileChanged, st2.Size(), st1.Size())}
	}
	return nil
}

// renameIn names the capture name instead of the file read (a spooled
// standard input) in the reader's warnings.
func renameIn(rep *tcpanalysis.Report, file, name string) {
	if file == name {
		return
	}
	for i, w := range rep.Warnings {
		rep.Warnings[i] = strings.ReplaceAll(w, file, name)
	}
}

// FromReport is the View of sel on a report analysed elsewhere (a live
// capture, a report kept in memory): the connection is picked as Analyze
// picks it; its series are there only if the analysis kept them
// (tcpanalysis.Options.Keep). Errors: a Selection error, ErrNoMatch,
// ErrNoConn.
func FromReport(rep *tcpanalysis.Report, sel Selection, o Options) (*View, error) {
	if err := sel.Validate(); err != nil {
		return nil, err
	}
	r, err := sel.Pick(rep)
	if err != nil {
		return nil, err
	}
	return newView(rep.File, rep, r, sel, o), nil
}

func newView(path string, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, sel Selection, o Options) *View {
	v := &View{File: path, Report: rep, Sel: sel, Conns: sel.Matching(rep), Conn: r, Picked: sel.Conn < 0, Warnings: Warnings(rep)}
	if o.OneConn {
		// A verb of one connection warns about that one (and the
		// capture): the same whether one pass or two read the file.
		v.Warnings = slices.DeleteFunc(v.Warnings, func(w Warning) bool { return w.Conn >= 0 && w.Conn != r.Conn.Index })
	}
	v.Matched = len(v.Conns)
	if v.Picked {
		for _, c := range v.Conns {
			if c != r && PayloadBytes(c) == PayloadBytes(r) {
				v.Tied++
			}
		}
	}
	v.Dir = sel.Dir.Of(r)
	v.Ref, v.RefUsed = sel.Ref.Resolve(r, v.Dir)
	v.Warnings = append(v.Warnings, v.refWarnings()...)
	v.Interval = o.Interval
	if v.Interval <= 0 {
		// At most 50 intervals over what is shown: the selected window
		// when one is (a zoom of 50 ms gets 1 ms intervals, not the
		// whole connection's 2 s), else the connection.
		span := r.Conn.Duration()
		if sel.From > 0 || sel.To > 0 {
			// The window is counted from the reference point.
			lo, hi := v.Ref+capture.Timestamp(sel.From), r.Conn.Last
			if sel.To > 0 {
				hi = min(hi, v.Ref+capture.Timestamp(sel.To))
			}
			if w := hi.Sub(lo); w > 0 && w < span {
				span = w
			}
		}
		v.Interval = NiceInterval(span)
	}
	if (sel.From > 0 || sel.To > 0) && !v.anyInRange() {
		v.Warnings = append(v.Warnings, Warning{Kind: WarnEmptyRange, File: path, Conn: r.Conn.Index, Dir: v.Dir,
			Text: emptyRangeText(sel)})
	}
	return v
}

// onePair is the second pass of a OneConn view: only the segments of the
// chosen connection's addresses and ports (its flows.Key) are tracked and
// analysed (tcpanalysis.Options.Filter). The connections on that key are
// those of the counting pass rep1, in the same order, so the k-th of them
// is the k-th the pass finds; the View's Report is rep1's with the chosen
// connection's result in its place, and the pass's warnings (the reader's,
// and those of the chosen connection).
func onePair(path, p string, st1 os.FileInfo, rep1 *tcpanalysis.Report, r1 *tcpanalysis.ConnResult, k, matched, tied int, sel Selection, o Options, opts tcpanalysis.Options,
	analyze func(string, tcpanalysis.Options) (*tcpanalysis.Report, error)) (*View, error) {
	key, idx := r1.Conn.Key, r1.Conn.Index
	nOnKey := -1 // unknown after a streamed counting pass
	if k < 0 {
		nOnKey, k = 0, -1
		for _, c := range rep1.Conns {
			if c.Conn.Key == key {
				if c.Conn.Index == idx {
					k = nOnKey
				}
				nOnKey++
			}
		}
	}
	d := sel.Dir.Of(r1) // the counting pass counts what DataDirection reads
	opts.OnlyKey = &key
	opts.Keep = func(i int) bool { return i == k }
	opts.Only = opts.Keep
	opts.KeepDirs[d] = true
	opts.NewSeries = func(int) *tcpanalysis.Series { return sized(r1, d, o.Parts) }
	if o.OnRTT != nil {
		// The pass numbers the connections on key from 0: the chosen
		// one is k there, idx in the capture.
		opts.OnRTT = func(r *tcpanalysis.ConnResult, x tcpanalysis.RTTSample) {
			if r.Conn.Index != k {
				return
			}
			r.Conn.Index = idx
			o.OnRTT(r, x)
			r.Conn.Index = k
		}
	}
	if err := sameFile(path, p, st1); err != nil {
		return nil, err
	}
	rep2, err := analyze(p, opts)
	opts.Replay.Release()
	if err != nil {
		return nil, err
	}
	if err := sameFile(path, p, st1); err != nil {
		return nil, err
	}
	renameIn(rep2, p, path)
	if (nOnKey >= 0 && len(rep2.Conns) != nOnKey) || k < 0 || k >= len(rep2.Conns) || rep2.Conns[k].Conn.First != r1.Conn.First {
		first := fmt.Sprint(nOnKey)
		if nOnKey < 0 {
			first = fmt.Sprintf("connection %d of them", k+1)
		}
		return nil, &capture.FrameError{File: path, Err: fmt.Errorf("%w: the second pass found %d connections between %s and %s, the first %s", capture.ErrFileChanged, len(rep2.Conns), key.Lo, key.Hi, first)}
	}
	r := rep2.Conns[k]
	r.Conn.Index = idx
	rep := *rep2
	rep.File = path
	// The frames the node only overheard are the file's: the counting
	// pass saw them all, the second only the chosen 4-tuple's.
	rep.Overheard, rep.OverheardConns, rep.OnlyOverheard, rep.OnlyOverheardIdx = rep1.Overheard, rep1.OverheardConns, rep1.OnlyOverheard, rep1.OnlyOverheardIdx
	if len(rep1.Conns) > idx {
		rep.Conns = slices.Clone(rep1.Conns)
		rep.Conns[idx] = r
	} else {
		// A streamed counting pass kept no connection list: the
		// chosen connection alone (Report.Conns is then not indexed
		// by Conn.Index).
		rep.Conns = []*tcpanalysis.ConnResult{r}
	}
	v := newView(path, &rep, r, sel, o)
	if matched > 0 {
		v.Conns, v.Matched, v.Tied = nil, matched, tied
	}
	return v, nil
}

// sized is the Series of direction d of r with the capacity the counting
// pass's packet counts bound: a data segment, or an ACK of d's data, per
// packet of its direction, a window point per packet of either.
func sized(r *tcpanalysis.ConnResult, d flows.Direction, parts tcpanalysis.SeriesParts) *tcpanalysis.Series {
	if parts == 0 {
		parts = tcpanalysis.PartsAll
	}
	s := &tcpanalysis.Series{}
	n, rn := int(r.Dir[d].Pkts), int(r.Dir[d.Reverse()].Pkts)
	if parts&tcpanalysis.PartSegs != 0 {
		s.Segs[d] = make([]tcpanalysis.SegPoint, 0, n)
	}
	if parts&tcpanalysis.PartAcks != 0 {
		s.Acks[d] = make([]tcpanalysis.AckPoint, 0, rn)
	}
	if parts&tcpanalysis.PartWindow != 0 {
		s.Window[d] = make([]tcpanalysis.WindowPoint, 0, n+rn)
	}
	// Their pages mapped on another core while the pass fills them
	// (0.06 s of the bulk benchmark's window pass; docs/performance.md).
	prefault.Ahead(s.Segs[d])
	prefault.Ahead(s.Acks[d])
	prefault.Ahead(s.Window[d])
	return s
}

// RefOf is the reference time of connection r for the outputs of
// direction d (Sel.Ref): a connection's reference point is that of its
// data direction (Sel.Dir.Of(r): --dir, else DataDirection), so both
// directions of one connection — the data and the ACKs that answer it —
// share one time axis and one --from/--to window (docs/metrics.md#slow-start).
// d is accepted for the callers' symmetry; it does not change the time.
func (v *View) RefOf(r *tcpanalysis.ConnResult, d flows.Direction) capture.Timestamp {
	t, _ := v.Sel.Ref.Resolve(r, v.Sel.Dir.Of(r))
	return t
}

// CaptureS is t in seconds since the capture's first frame: the t_s
// column of every output (docs/schema.md).
func (v *View) CaptureS(t capture.Timestamp) float64 { return t.Sub(v.Report.Start).Seconds() }

// ConnS is t in seconds since the chosen connection's first packet: the
// conn_t_s column and the x axis of single-connection figures.
func (v *View) ConnS(t capture.Timestamp) float64 { return t.Sub(v.Conn.Conn.First).Seconds() }

// RefS is t in seconds since the reference point Ref.
func (v *View) RefS(t capture.Timestamp) float64 { return t.Sub(v.Ref).Seconds() }

// NoteAs says which connection and direction were chosen and why (every
// verb reads that one connection, Selection.Pick): how many others
// matched, or, when the caller named the connection, its endpoints and
// the data direction used. how is the way a user names one, without the
// index ("--conn" for the verbs, "FILE#" for compare's runs: "FILE#N
// picks another", "as FILE#0 asks").
// When the receiver's window scale was not captured and --wscale set it
// (flows.WScaleOverride), the note ends by saying so: an assumed scale
// must not read as a measured one.
func (v *View) NoteAs(how string) string {
	c := v.Conn
	sep := " "
	if strings.HasSuffix(how, "#") {
		sep = ""
	}
	assumed := ""
	if h := c.Conn.Half[v.Dir.Reverse()]; h.WScaleFrom == flows.WScaleOverride {
		assumed = fmt.Sprintf("; rwnd with window scale %d assumed (--wscale): the handshake was not captured", h.WScale)
	}
	if !v.Picked {
		return fmt.Sprintf("%s: using conn %d (%s ↔ %s, %d payload bytes; as %s%s%d asks), data %s%s",
			v.File, c.Conn.Index, c.Conn.Half[0].Addr, c.Conn.Half[1].Addr, PayloadBytes(c), how, sep, c.Conn.Index, v.Dir, assumed)
	}
	of := "the only one matching"
	if n := v.Matched; n > 1 {
		of = fmt.Sprintf("the largest of %d matching", n)
	}
	if v.Tied > 0 {
		of += fmt.Sprintf(", tied with %s of as many bytes (the first taken)", textcol.Count(v.Tied, "other"))
	}
	return fmt.Sprintf("%s: using conn %d (%s ↔ %s, %d payload bytes; %s; %s%sN picks another), data %s%s",
		v.File, c.Conn.Index, c.Conn.Half[0].Addr, c.Conn.Half[1].Addr, PayloadBytes(c), of, how, sep, v.Dir, assumed)
}

func (v *View) anyInRange() bool {
	r, d := v.Conn, v.Dir
	if r.Series == nil {
		return true
	}
	ser := r.Series
	if len(ser.Segs[d]) == 0 && len(ser.Acks[d]) == 0 && len(ser.Window[d]) == 0 {
		// No per-packet part kept (rtt, retrans read samples and
		// events): the range is empty when it misses the connection.
		lo, hi := v.Ref+capture.Timestamp(v.Sel.From), r.Conn.Last
		if v.Sel.To > 0 {
			hi = min(hi, v.Ref+capture.Timestamp(v.Sel.To))
		}
		return lo <= hi && lo <= r.Conn.Last && hi >= r.Conn.First
	}
	// The window points are at the direction's data segments and ACKs:
	// with the ACKs not kept (window --ref bulk keeps the segments, for
	// the bulk start, beside them), one in the range is an ACK in it.
	for _, w := range ser.Window[d] {
		if v.Sel.InRange(w.Time, v.Ref) {
			return true
		}
	}
	for _, s := range ser.Segs[d] {
		if v.Sel.InRange(s.Time, v.Ref) {
			return true
		}
	}
	for _, a := range ser.Acks[d] {
		if v.Sel.InRange(a.Time, v.Ref) {
			return true
		}
	}
	return false
}

// emptyRangeText is the WarnEmptyRange warning of sel's window.
func emptyRangeText(sel Selection) string {
	if sel.To <= 0 {
		return fmt.Sprintf("no data segment or ACK from %g s after %s on: the connection ended before", sel.From.Seconds(), sel.Ref.Describe())
	}
	return fmt.Sprintf("no data segment or ACK between %g and %g s after %s", sel.From.Seconds(), sel.To.Seconds(), sel.Ref.Describe())
}

// NiceInterval is the default goodput/throughput interval for a connection
// lasting d: the smallest 1-2-5 × 10^k width (1 ms at least) that cuts d
// into at most 50 intervals.
func NiceInterval(d time.Duration) time.Duration {
	for w := time.Millisecond; ; w *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if m*w*50 >= d {
				return m * w
			}
		}
	}
}

// spool is Spool when path is "-" (standard input); otherwise it returns
// path and a cleanup that does nothing.
func spool(path string, r io.Reader) (string, func(), error) {
	if path != "-" {
		return path, func() {}, nil
	}
	return Spool(r)
}

// Spool copies r (os.Stdin when nil) to a temporary file
// ($TMPDIR/tcpviz-stdin-*.pcap), so that a capture read from standard
// input can be read twice: Analyze's counting and keeping passes, a
// report's summary pass. It is the one spool of standard input: until
// cleanup, capture.Open names the file "stdin" (capture.NameFile) in
// every error, warning and Report.File. The file
// is registered with internal/atomicfile (Track) from its creation, so a
// signal handler that calls atomicfile.RemoveTracked removes it even while
// r is still being copied; cleanup removes and unregisters it. Errors: the
// temporary file's creation, or reading r ("read standard input: …",
// wrapping the reader's error).
func Spool(r io.Reader) (path string, cleanup func(), err error) {
	if r == nil {
		r = os.Stdin
	}
	f, err := os.CreateTemp("", "tcpviz-stdin-*.pcap")
	if err != nil {
		return "", nil, err
	}
	name := f.Name()
	atomicfile.Track(name)
	// Every reader of the spool names it as Open("-") does: no error,
	// warning or output names the temporary file.
	unname := capture.NameFile(name, "stdin")
	cleanup = func() { os.Remove(name); atomicfile.Untrack(name); unname() }
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("read standard input: %w", err)
	}
	return name, cleanup, nil
}

// countPick is a streamed counting pass (tcpanalysis.Options.OnDone): it
// keeps the largest connection that matches sel (Selection.Pick's rule,
// ties to the lower index) and, per 4-tuple (a 64-bit hash of its
// flows.Key), the indexes of its connections, so that the second pass can
// tell which of the connections on the chosen 4-tuple it is. Memory: one
// result, and a few bytes per 4-tuple.
type countPick struct {
	sel     Selection
	seed    maphash.Seed
	onKey   map[uint64][]int32
	best    *tcpanalysis.ConnResult
	matched int
	tied    int // others matching with best's payload bytes
	all     int // connections seen
}

func (cp *countPick) add(r *tcpanalysis.ConnResult, _ capture.Timestamp) {
	h := maphash.Comparable(cp.seed, r.Conn.Key)
	cp.onKey[h] = append(cp.onKey[h], int32(r.Conn.Index))
	cp.all++
	if !cp.sel.Match(r) {
		return
	}
	cp.matched++
	switch b := cp.best; {
	case b == nil || PayloadBytes(r) > PayloadBytes(b):
		cp.best, cp.tied = r, 0
	case PayloadBytes(r) == PayloadBytes(b):
		cp.tied++
		if r.Conn.Index < b.Conn.Index {
			cp.best = r
		}
	}
}

// rank is the position of the best connection among those on its 4-tuple,
// in index order.
func (cp *countPick) rank() int {
	n := 0
	for _, i := range cp.onKey[maphash.Comparable(cp.seed, cp.best.Conn.Key)] {
		if int(i) < cp.best.Conn.Index {
			n++
		}
	}
	return n
}
