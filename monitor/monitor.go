// Package monitor analyses a live capture as it passes and prints what
// the flows, rtt, retrans and tput verbs print for a file: per RTT sample,
// per event, per interval, or a refreshed connection table, and a summary
// of each connection as it ends and of those still open at the end.
//
// Memory follows the open connections, not every connection of the run
// (engine.go). The capture itself (AF_PACKET or libpcap, the filter, -w)
// is package capture/live's; monitor only reads its segments.
package monitor

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Verb is what a live run prints.
type Verb int

// Verbs, named as the tcpviz verbs that run them with -i.
const (
	Flows   Verb = iota // the connection table, refreshed every Config.Every
	RTT                 // one line per RTT sample
	Retrans             // one line per classified event
	Tput                // one row per Config.Interval and connection direction
)

// String names v as the tcpviz verb does.
func (v Verb) String() string {
	switch v {
	case Flows:
		return "flows"
	case RTT:
		return "rtt"
	case Retrans:
		return "retrans"
	case Tput:
		return "tput"
	}
	return fmt.Sprintf("Verb(%d)", int(v))
}

// ParseVerb reads a verb name ("flows", "rtt", "retrans", "tput").
func ParseVerb(s string) (Verb, error) {
	for _, v := range []Verb{Flows, RTT, Retrans, Tput} {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("monitor: no live verb %q (flows, rtt, retrans, tput)", s)
}

// Config is one live run.
type Config struct {
	Verb     Verb
	Analysis tcpanalysis.Options
	// Select chooses the connections and directions printed: Conn numbers
	// the run's connections from 0 in order of first packet, as 'tcpviz
	// flows' numbers those of a file; Port, Host and Dir match as for a
	// file (query.Selection.Match); Ref, From and To are not used.
	Select query.Selection
	CSV    bool // rows as CSV (the columns of the verb's --csv on a file)
	// Method is the RTT method printed: "ack", "ts" or "both" (also "").
	Method   string
	Interval time.Duration // tput's interval; 0: 1 s
	Every    time.Duration // how often flows reprints its table; 0: 1 s
	Iface    string        // the interface's name, in titles
	TTY      bool          // Stdout is a terminal: flows clears it before each table
	Stdout   io.Writer     // the lines and tables (buffered; flushed every 100 ms)
	Stderr   io.Writer     // summaries when Stdout holds CSV, and notes
}

// Validate checks c before any capture is opened: a known Verb and, for
// RTT, a known Method. Errors wrap query.ErrMethod for the method.
func (c Config) Validate() error {
	if c.Verb < Flows || c.Verb > Tput {
		return fmt.Errorf("monitor: verb %v", c.Verb)
	}
	if c.Verb == RTT {
		_, err := methods(c.Method)
		return err
	}
	return nil
}

// methods are the RTT methods Config.Method prints (query.RTTMethods, the
// rule of every verb): the handshake's always, ACK, TS or both.
func methods(method string) (map[tcpanalysis.Method]bool, error) {
	ms, err := query.RTTMethods(method)
	if err != nil {
		return nil, err
	}
	want := map[tcpanalysis.Method]bool{}
	for m := range ms {
		want[map[query.Metric]tcpanalysis.Method{query.MetricRTT: tcpanalysis.MethodACK, query.MetricRTTTS: tcpanalysis.MethodTS, query.MetricRTTHandshake: tcpanalysis.MethodHandshake}[m]] = true
	}
	return want, nil
}

// Source is where the segments come from: a live capture's reader.
type Source interface {
	Next(*capture.Segment) error
	Stats() capture.Stats
}

// Result is what a run saw.
type Result struct {
	Frames, Segments int64 // read from the source (capture.Stats)
	Conns            int   // connections seen
	// ReadErr is the error that ended reading early (the interface went
	// away, say), nil at the end of the capture; what was read before it
	// was analysed and summarised.
	ReadErr error
}

// Run reads src until it ends (io.EOF) and prints as c asks: the CSV
// header first, then lines as segments are analysed and every ~100 ms of
// wall time, then the summary of the connections still open. stop ends the
// capture early when Run returns on an error (a write to Stdout failed);
// Run then drains src before returning. The error is Validate's or a
// write error; a read error is Result.ReadErr.
func Run(src Source, stop func(), c Config) (Result, error) {
	opts := c.Analysis
	out := bufio.NewWriterSize(c.Stdout, 1<<16)
	defer out.Flush()
	st := &liveState{stderr: c.Stderr, tty: c.TTY, w: out, csv: c.CSV, sel: newLiveSel(c.Select), iface: c.Iface}
	var err error
	switch c.Verb {
	case RTT:
		opts.RTTQuantiles = true
		st.en = newLiveEngine(opts)
		err = st.rtt(c.Method)
	case Retrans:
		st.en = newLiveEngine(opts)
		st.retrans()
	case Tput:
		st.en = newLiveEngine(opts)
		iv := c.Interval
		if iv <= 0 {
			iv = time.Second
		}
		st.tput(iv)
	case Flows:
		st.en = newLiveEngine(opts)
		st.flows(c.Every)
	default:
		err = fmt.Errorf("monitor: verb %v", c.Verb)
	}
	if err != nil {
		return Result{}, err
	}

	segs := make(chan liveSeg, 4096)
	var readErr error
	go func() {
		defer close(segs)
		var s capture.Segment
		first := capture.Timestamp(0)
		for {
			if err := src.Next(&s); err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
			if first == 0 {
				first = src.Stats().First
			}
			segs <- liveSeg{s, first, src.Stats().Frames}
		}
	}()
	// On an early return, stop the capture and let the goroutine finish.
	defer func() {
		stop()
		for range segs {
		}
	}()
	if st.out.start != nil {
		st.out.start()
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	lastExpire := time.Now()
loop:
	for {
		select {
		case ls, ok := <-segs:
			if !ok {
				break loop
			}
			if st.start == 0 {
				st.start = ls.first
			}
			st.now = ls.s.Time
			st.frames = ls.frames
			st.segs++
			if st.out.seg != nil {
				st.out.seg(&ls.s)
			}
			st.en.add(&ls.s)
		case now := <-tick.C:
			if now.Sub(lastExpire) >= time.Second {
				// Live timestamps come from the same clock as time.Now.
				st.en.expire(capture.Timestamp(now.UnixNano()))
				lastExpire = now
			}
			if st.out.tick != nil {
				st.out.tick(now)
			}
			if err := out.Flush(); err != nil {
				return Result{}, err
			}
		}
	}
	if readErr != nil {
		// The interface went away, say: summarise what was captured.
		fmt.Fprintf(c.Stderr, "tcpviz %s: capture ended early: %v\n", c.Verb, readErr)
	}
	rs := src.Stats()
	st.en.refresh()
	res := Result{Frames: rs.Frames, Segments: rs.Segments, Conns: st.en.total, ReadErr: readErr}
	if err := st.out.final(); err != nil {
		return res, err
	}
	return res, out.Flush()
}

// liveSel is the --conn/--port/--host/--dir selection of a live run.
type liveSel struct {
	conn int
	sel  query.Selection // port and host: query's one matching rule
	dirs []flows.Direction
}

func newLiveSel(sel query.Selection) liveSel {
	s := liveSel{conn: sel.Conn, sel: sel, dirs: sel.Dir.Dirs()}
	s.sel.Conn = -1 // live indexes are lc.idx
	return s
}

// connections is "1 connection" or "N connections".
func connections(n int) string {
	if n == 1 {
		return "1 connection"
	}
	return strconv.Itoa(n) + " connections"
}

// liveOut is what one verb prints during and after a live run.
type liveOut struct {
	// start prints the header (CSV) before the first frame.
	start func()
	// seg is called before each segment is analysed (tput closes its
	// intervals there); tick about every 100 ms of wall time.
	seg  func(s *capture.Segment)
	tick func(now time.Time)
	// final prints the summary of the connections still held.
	final func() error
}

// liveSeg carries a segment from the capture goroutine with the capture's
// start time (the first frame's, any protocol).
type liveSeg struct {
	s      capture.Segment
	first  capture.Timestamp
	frames int64 // frames read so far, the segment's included
}

func (s liveSel) ok(lc *liveConn) bool {
	return (s.conn < 0 || lc.idx == s.conn) && s.sel.Match(lc.r)
}

func (s liveSel) dir(d flows.Direction) bool {
	for _, x := range s.dirs {
		if x == d {
			return true
		}
	}
	return false
}

// liveState is the output side of a live run.
type liveState struct {
	stderr io.Writer // summaries in CSV mode
	tty    bool      // standard output is a terminal: flows clears it
	w      *bufio.Writer
	cw     *csv.Writer
	csv    bool
	sel    liveSel
	iface  string
	en     *liveEngine
	out    liveOut
	start  capture.Timestamp // first frame
	now    capture.Timestamp // latest segment
	// frames and segs count the frames read and TCP segments analysed so
	// far, as the table headers show them.
	frames, segs int64
}

func (st *liveState) rel(t capture.Timestamp) string { return export.FormatSeconds(t.Sub(st.start)) }

func clock(t capture.Timestamp) string { return t.Time().Local().Format("15:04:05.000000") }

func (st *liveState) csvRow(rec ...string) {
	if st.cw == nil {
		st.cw = csv.NewWriter(st.w)
	}
	st.cw.Write(rec)
	st.cw.Flush() // into st.w, which is flushed every 100 ms
}

// summary prints a table to standard output, or to standard error in CSV
// mode, where standard output holds the rows.
func (st *liveState) summary(title string, rows [][]string) error {
	w := io.Writer(st.w)
	if st.csv {
		st.w.Flush()
		w = st.stderr
	}
	if title != "" {
		fmt.Fprintln(w, title)
	}
	if len(rows) <= 1 {
		_, err := fmt.Fprintln(w, "(no connection)")
		return err
	}
	return export.WriteAligned(w, rows)
}

func (st *liveState) rtt(method string) error {
	want, err := methods(method)
	if err != nil {
		return err
	}
	st.out.start = func() {
		if st.csv {
			st.csvRow("conn", "dir", "method", "t_s", "conn_t_s", "rtt_ms", "frame")
		}
	}
	st.en.onRTT = func(lc *liveConn, x tcpanalysis.RTTSample) {
		if !want[x.Method] || !st.sel.ok(lc) || !st.sel.dir(x.Dir) {
			return
		}
		if st.csv {
			st.csvRow(strconv.Itoa(lc.idx), x.Dir.String(), x.Method.String(), st.rel(x.Time), export.FormatSeconds(x.Time.Sub(lc.r.Conn.First)),
				strconv.FormatFloat(x.RTT.Seconds()*1000, 'f', 6, 64), strconv.FormatInt(x.Frame, 10))
			return
		}
		fmt.Fprintf(st.w, "%s  conn %d  %s  %-9s  %10s ms  %s\n", clock(x.Time), lc.idx, x.Dir, x.Method, export.FormatMS(x.RTT), plot.Endpoints(lc.r.Conn, x.Dir))
	}
	// The table of 'tcpviz rtt FILE': percentiles from the bounded
	// quantiles of Options.RTTQuantiles (exact up to tcpanalysis.ExactQuantileLimit samples).
	head := []string{"conn", "dir", "method", "count", "min_ms", "p50_ms", "mean_ms", "p95_ms", "max_ms"}
	rows := func(lc *liveConn) [][]string {
		var out [][]string
		for _, d := range st.sel.dirs {
			for _, m := range []tcpanalysis.Method{tcpanalysis.MethodHandshake, tcpanalysis.MethodACK, tcpanalysis.MethodTS} {
				a := &lc.r.RTTAgg[d][m]
				if !want[m] || a.N == 0 {
					continue
				}
				p50, _ := a.Quantile(0.5)
				p95, _ := a.Quantile(0.95)
				out = append(out, []string{strconv.Itoa(lc.idx), d.String(), m.String(), strconv.FormatInt(a.N, 10), export.FormatMS(a.Min), export.FormatMS(p50), export.FormatMS(a.Mean()), export.FormatMS(p95), export.FormatMS(a.Max)})
			}
		}
		return out
	}
	st.perConnTables(head, rows, "RTT summary of the open connections:")
	return nil
}

func endpoints(lc *liveConn) string { return plot.Endpoints(lc.r.Conn, flows.AtoB) }

func (st *liveState) retrans() {
	st.out.start = func() {
		if st.csv {
			st.csvRow("conn", "dir", "t_s", "conn_t_s", "frame", "class", "seq", "len", "original_frame", "evidence")
		}
	}
	st.en.onEvent = func(lc *liveConn, ev tcpanalysis.Event, later bool) {
		if !st.sel.ok(lc) || !st.sel.dir(ev.Dir) {
			return
		}
		orig := ""
		if ev.Original > 0 {
			orig = strconv.FormatInt(ev.Original, 10)
		}
		if st.csv {
			st.csvRow(strconv.Itoa(lc.idx), ev.Dir.String(), st.rel(ev.Time), export.FormatSeconds(ev.Time.Sub(lc.r.Conn.First)), strconv.FormatInt(ev.Frame, 10), ev.Class.String(),
				strconv.FormatInt(ev.Seq, 10), strconv.Itoa(ev.Len), orig, ev.Evidence.String())
			return
		}
		if orig != "" {
			orig = " original frame " + orig
		}
		if e := ev.Evidence.String(); e != "" {
			orig += " (" + e + ")"
		}
		if later {
			// A retransmission printed before, shown spurious now.
			orig += ", reclassified: replaces the line of frame " + strconv.FormatInt(ev.Frame, 10)
		}
		fmt.Fprintf(st.w, "%s  conn %d  %s  %-13s  seq %d len %d  frame %d%s  %s\n", clock(ev.Time), lc.idx, ev.Dir, ev.Class, ev.Seq, ev.Len, ev.Frame, orig, plot.Endpoints(lc.r.Conn, ev.Dir))
	}
	head := []string{"conn", "dir"}
	for _, c := range tcpanalysis.Classes() {
		head = append(head, c.String())
	}
	rows := func(lc *liveConn) [][]string {
		var out [][]string
		for _, d := range st.sel.dirs {
			row := []string{strconv.Itoa(lc.idx), d.String()}
			for _, c := range tcpanalysis.Classes() {
				row = append(row, strconv.FormatInt(lc.r.Counts[d][c], 10))
			}
			out = append(out, row)
		}
		return out
	}
	st.perConnTables(head, rows, "event counts of the open connections:")
}

// perConnTables prints a connection's rows (under head) when it is over,
// and at the end the rows of every connection still open, titled final.
func (st *liveState) perConnTables(head []string, rows func(*liveConn) [][]string, final string) {
	st.en.onDone = func(lc *liveConn) {
		if st.sel.ok(lc) {
			st.summary(fmt.Sprintf("connection %d is over (%s):", lc.idx, endpoints(lc)), append([][]string{head}, rows(lc)...))
		}
	}
	st.out.final = func() error {
		table := [][]string{head}
		st.en.open(func(lc *liveConn) {
			if st.sel.ok(lc) {
				table = append(table, rows(lc)...)
			}
		})
		return st.summary(final, table)
	}
}

// tput closes an interval [start+k·w, start+(k+1)·w) of capture time when
// the first segment past it arrives, or when the wall clock is past it and
// no segment came.
func (st *liveState) tput(w time.Duration) {
	var end capture.Timestamp // end of the open interval; 0 before the first segment
	kb := func(b int64) string { return strconv.FormatFloat(float64(b)*8/w.Seconds()/1000, 'f', 3, 64) }
	closeInterval := func() {
		st.en.refresh()
		from := end - capture.Timestamp(w)
		st.en.open(func(lc *liveConn) {
			if !st.sel.ok(lc) {
				return
			}
			for _, d := range st.sel.dirs {
				ds := &lc.r.Dir[d]
				l := &lc.last[d]
				db, da := ds.Bytes-l.bytes, ds.AckedBytes-l.acked
				l.bytes, l.acked = ds.Bytes, ds.AckedBytes
				if db == 0 && da == 0 {
					continue
				}
				if st.csv {
					st.csvRow(strconv.Itoa(lc.idx), d.String(), st.rel(from), export.FormatSeconds(from.Sub(lc.r.Conn.First)), export.FormatSeconds(w), kb(db), kb(da), strconv.FormatInt(ds.AckedBytes, 10))
					continue
				}
				fmt.Fprintf(st.w, "%s  conn %d  %s  %12s kbit/s sent  %12s kbit/s goodput  %12d B acked  %s\n", clock(from), lc.idx, d, kb(db), kb(da), ds.AckedBytes, plot.Endpoints(lc.r.Conn, d))
			}
		})
		end += capture.Timestamp(w)
	}
	st.out.start = func() {
		if st.csv {
			st.csvRow("conn", "dir", "t_s", "conn_t_s", "interval_s", "throughput_kbps", "goodput_kbps", "cum_acked_bytes")
		}
	}
	st.out.seg = func(s *capture.Segment) {
		if end == 0 {
			end = st.start + capture.Timestamp(w)
		}
		for s.Time >= end {
			closeInterval()
		}
	}
	st.out.tick = func(now time.Time) {
		for end != 0 && capture.Timestamp(now.UnixNano()) >= end+capture.Timestamp(100*time.Millisecond) {
			closeInterval()
		}
	}
	head := []string{"conn", "dir", "bytes", "acked_bytes", "duration_s", "throughput_kbps", "goodput_kbps"}
	rows := func(lc *liveConn) [][]string {
		var out [][]string
		for _, d := range st.sel.dirs {
			ds := &lc.r.Dir[d]
			if ds.Bytes == 0 {
				continue
			}
			out = append(out, []string{strconv.Itoa(lc.idx), d.String(), strconv.FormatInt(ds.Bytes, 10), strconv.FormatInt(ds.AckedBytes, 10),
				strconv.FormatFloat(lc.r.Duration().Seconds(), 'f', 3, 64),
				strconv.FormatFloat(lc.r.ThroughputKbps(d), 'f', 1, 64), strconv.FormatFloat(lc.r.GoodputKbps(d), 'f', 1, 64)})
		}
		return out
	}
	st.en.onDone = func(lc *liveConn) {
		if st.sel.ok(lc) {
			st.summary(fmt.Sprintf("connection %d is over (%s):", lc.idx, endpoints(lc)), append([][]string{head}, rows(lc)...))
		}
	}
	st.out.final = func() error {
		if end != 0 && st.now >= end-capture.Timestamp(w) {
			closeInterval() // the last, partial interval
		}
		table := [][]string{head}
		st.en.open(func(lc *liveConn) {
			if st.sel.ok(lc) {
				table = append(table, rows(lc)...)
			}
		})
		return st.summary("totals of the open connections:", table)
	}
}

func (st *liveState) flows(every time.Duration) {
	if every <= 0 {
		every = time.Second
	}
	tty := st.tty
	rep := &tcpanalysis.Report{}
	row := func(lc *liveConn) export.FlowRow {
		rep.Start = st.start
		fr := export.NewFlowRow(st.iface, rep, lc.r, false)
		fr.Conn = lc.idx
		return fr
	}
	st.out.start = func() {
		if st.csv {
			st.csvRow(export.FlowColumns...)
		}
	}
	csvw := func(fr export.FlowRow) { st.csvRow(fr.CSV()...) }
	table := func(title string, rows []export.FlowRow) error {
		if rows == nil {
			rows = []export.FlowRow{}
		}
		ff := export.FlowsFile{File: title, Format: "live", Frames: st.frames, Segments: st.segs, Conns: rows}
		return export.WriteFlowsTable(st.w, []export.FlowsFile{ff})
	}
	st.en.onDone = func(lc *liveConn) {
		if !st.sel.ok(lc) {
			return
		}
		if st.csv {
			csvw(row(lc))
			return
		}
		table(fmt.Sprintf("%s, connection %d is over", st.iface, lc.idx), []export.FlowRow{row(lc)})
	}
	last := time.Now()
	st.out.tick = func(now time.Time) {
		if st.csv || now.Sub(last) < every {
			return
		}
		last = now
		st.en.refresh()
		var rows []export.FlowRow
		st.en.open(func(lc *liveConn) {
			if st.sel.ok(lc) {
				rows = append(rows, row(lc))
			}
		})
		if tty {
			st.w.WriteString("\033[H\033[2J")
		}
		table(fmt.Sprintf("%s %s (%s so far, open ones listed)", now.Format("15:04:05"), st.iface, connections(st.en.total)), rows)
	}
	st.out.final = func() error {
		var rows []export.FlowRow
		st.en.open(func(lc *liveConn) {
			if st.sel.ok(lc) {
				rows = append(rows, row(lc))
			}
		})
		if st.csv {
			for _, fr := range rows {
				csvw(fr)
			}
			return nil
		}
		return table(fmt.Sprintf("%s, final (open connections)", st.iface), rows)
	}
}
