package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/capture/live"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
	"golang.org/x/term"
)

// liveFlags are the flags live.go adds to flows, rtt, retrans and tput.
type liveFlags struct {
	iface     string
	filter    string
	every     time.Duration
	duration  time.Duration
	count     int64
	write     string
	noPromisc bool
}

// liveHonours are the flags a live run uses; others (-o, --json, --pep, …)
// are refused with -i.
var liveHonours = map[string]bool{
	"interface": true, "filter": true, "duration": true, "count": true, "write": true, "no-promisc": true,
	"every": true, "csv": true, "method": true, "interval": true, "conn": true, "port": true, "host": true,
	"dir": true, "wscale": true, "no-fold": true,
}

// liveVerbs are the verbs that take -i.
var liveVerbs = map[string]bool{"flows": true, "rtt": true, "retrans": true, "tput": true}

// addLiveFlags gives the live verbs -i, --filter, --duration, -c, -w (and
// --every for flows) and routes a run with -i to runLive. Without -i,
// --filter applies to the files the verb reads.
func addLiveFlags(e *env, root *cobra.Command) {
	for _, c := range root.Commands() {
		name := c.Name()
		if !liveVerbs[name] {
			continue
		}
		lf := &liveFlags{}
		fl := c.Flags()
		fl.StringVarP(&lf.iface, "interface", "i", "", "capture live on this interface instead of reading FILE (needs root or CAP_NET_RAW)")
		fl.StringVar(&lf.filter, "filter", "", "capture filter, a pcap-filter(7) expression such as 'tcp port 5201': applied to live captures and files alike")
		fl.DurationVar(&lf.duration, "duration", 0, "with -i: stop after this long (e.g. 30s); default: at Ctrl-C")
		fl.Int64VarP(&lf.count, "count", "c", 0, "with -i: stop after this many frames (those that passed --filter)")
		fl.StringVarP(&lf.write, "write", "w", "", "with -i: also write every frame analysed to this pcapng file")
		fl.BoolVar(&lf.noPromisc, "no-promisc", false, "with -i: do not put the interface into promiscuous mode")
		if name == "flows" {
			fl.DurationVar(&lf.every, "every", time.Second, "with -i: refresh the table this often")
		}
		c.Long += "\n\n" + liveHelp(name)
		c.Example = strings.TrimRight(c.Example, "\n") + "\n" + liveExample(name)
		args, run := c.Args, c.RunE
		c.Args = func(cmd *cobra.Command, a []string) error {
			if lf.iface != "" {
				if len(a) > 0 {
					return fmt.Errorf("-i %s captures live: give no FILE (got %q)", lf.iface, a[0])
				}
				return nil
			}
			if args != nil {
				return args(cmd, a)
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, a []string) error {
			if lf.iface == "" {
				for _, f := range []string{"duration", "count", "write", "every", "no-promisc"} {
					if cmd.Flags().Changed(f) {
						return fmt.Errorf("--%s needs -i IFACE (a live capture)", f)
					}
				}
				e.filter = lf.filter
				defer func() { e.filter = "" }()
				return run(cmd, a)
			}
			return e.runLive(cmd, name, lf)
		}
	}
}

func liveHelp(verb string) string {
	what := map[string]string{
		"flows":   "the connection table is printed again every --every (cleared first on a\nterminal); a connection that is over is printed once more as it is released\n(with --csv: one CSV row then)",
		"rtt":     "one line per RTT sample as it is measured, like pping: time, connection,\ndata direction, method, RTT and endpoints (with --csv: the rows of\n'rtt --csv FILE')",
		"retrans": "one line per classified event as it happens (with --csv: the rows of\n'retrans --csv FILE')",
		"tput":    "one row per --interval (default 1s) and active connection direction:\nthroughput and goodput in kbit/s and cumulative acknowledged bytes (with\n--csv: CSV rows)",
	}[verb]
	return `Live capture: with -i IFACE the verb analyses the interface's traffic as it
passes: ` + what + `.
Ctrl-C (or --duration, -c) ends the capture and prints the final summary.
-w FILE.pcapng keeps the frames analysed, so 'tcpviz ` + verb + ` FILE.pcapng' gives the
same numbers afterwards. Connections that are over (closed and silent ` + liveFinishedIdle.String() + `,
or silent ` + liveAbandonedIdle.String() + `) are flushed to the output and released, so memory
follows the open connections on a long run.
Capture backend in this binary: ` + live.Backend + `.
Filter (--filter): ` + live.FilterCompiler + `.`
}

func liveExample(verb string) string {
	switch verb {
	case "rtt":
		return "  sudo tcpviz rtt -i eth0 --filter 'tcp port 5201'\n  sudo tcpviz rtt -i eth0 --duration 30s -w run.pcapng --csv > rtt.csv"
	case "flows":
		return "  sudo tcpviz flows -i eth0 --every 2s\n  tcpviz flows --filter 'host 10.0.0.2 and tcp port 80' run.pcap"
	}
	return "  sudo tcpviz " + verb + " -i eth0 --filter 'tcp port 5201' -c 100000"
}

// analyzeFiltered analyses the capture at path, through the --filter
// expression if one was given.
func (e *env) analyzeFiltered(path string, opts tcpanalysis.Options) (*tcpanalysis.Report, error) {
	if e.filter == "" {
		return tcpanalysis.AnalyzeFile(path, opts)
	}
	ff, err := live.NewFileFilter(e.filter, nil)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	r, err := capture.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.SetFileFilter(ff.Hook) // file frame numbers and time origin (docs/schema.md#selection)
	rep, err := tcpanalysis.Analyze(r, opts)
	if err != nil {
		return nil, err
	}
	if err := ff.Err(); err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("%s: %w", path, err)}
	}
	return rep, nil
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

// runLive runs verb on a live capture described by lf.
func (e *env) runLive(cmd *cobra.Command, verb string, lf *liveFlags) error {
	fl := cmd.Flags()
	str := func(name string) string {
		if f := fl.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	csvOut := str("csv") == "true"
	var unsupported []string
	fl.Visit(func(f *pflag.Flag) {
		if !liveHonours[f.Name] {
			unsupported = append(unsupported, "--"+f.Name)
		}
	})
	if len(unsupported) > 0 {
		return fmt.Errorf("%s not available with -i: use -w FILE to keep the capture, then run 'tcpviz %s' on FILE with them", strings.Join(unsupported, ", "), verb)
	}
	wscale, _ := strconv.Atoi(str("wscale"))
	af := analysisFlags{wscale: wscale, noFold: str("no-fold") == "true"}
	opts, err := af.options()
	if err != nil {
		return err
	}
	sel, err := liveSelection(str("conn"), str("port"), str("host"), str("dir"))
	if err != nil {
		return err
	}
	cp, err := live.Open(e.ctx, live.Options{Iface: lf.iface, Filter: lf.filter, Count: lf.count, Duration: lf.duration, Write: lf.write, NoPromisc: lf.noPromisc})
	if err != nil {
		var fe *capture.FrameError
		if errors.Is(err, live.ErrFilter) || errors.As(err, &fe) {
			return &exitError{code: 2, err: err}
		}
		return err
	}
	defer cp.Close()
	filt := ""
	if lf.filter != "" {
		filt = fmt.Sprintf(", filter %q", lf.filter)
	}
	fmt.Fprintf(e.stderr, "tcpviz %s: capturing on %s (%s)%s; Ctrl-C stops and prints the summary\n", verb, lf.iface, live.Backend, filt)

	out := bufio.NewWriterSize(e.stdout, 1<<16)
	defer out.Flush()
	st := &liveState{e: e, w: out, csv: csvOut, sel: sel, iface: lf.iface}
	switch verb {
	case "rtt":
		opts.RTTQuantiles = true
		st.en = newLiveEngine(opts)
		err = st.rtt(str("method"))
	case "retrans":
		opts.KeepEvents = true
		st.en = newLiveEngine(opts)
		st.retrans()
	case "tput":
		st.en = newLiveEngine(opts)
		iv, _ := time.ParseDuration(str("interval"))
		if iv <= 0 {
			iv = time.Second
		}
		st.tput(iv)
	case "flows":
		st.en = newLiveEngine(opts)
		st.flows(lf.every)
	}
	if err != nil {
		return err
	}

	r := cp.Reader()
	segs := make(chan liveSeg, 4096)
	var readErr error
	go func() {
		defer close(segs)
		var s capture.Segment
		first := capture.Timestamp(0)
		for {
			if err := r.Next(&s); err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
			if first == 0 {
				first = r.Stats().First
			}
			segs <- liveSeg{s, first, r.Stats().Frames}
		}
	}()
	// On an early return, stop the capture and let the goroutine finish
	// (before the deferred Close).
	defer func() {
		cp.Stop()
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
				cp.Stop()
				return err
			}
		}
	}
	if readErr != nil {
		// The interface went away, say: summarise what was captured.
		fmt.Fprintf(e.stderr, "tcpviz %s: capture ended early: %v\n", verb, readErr)
	}
	rs := r.Stats()
	cs := cp.Stats()
	st.en.refresh()
	for _, g := range st.en.gens {
		for _, lc := range g.conns {
			if !lc.done {
				st.en.drain(lc)
			}
		}
	}
	if err := st.out.final(); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if err := cp.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "tcpviz %s: %s: %d frames analysed (%d TCP segments, %d connections), %d dropped by the kernel\n",
		verb, lf.iface, rs.Frames, rs.Segments, st.en.total, cs.Dropped)
	if cs.Dropped > 0 {
		fmt.Fprintf(e.stderr, "warning: the kernel dropped %d frames (the ring was full): the numbers above miss them (a --filter runs in the kernel, and so sheds load, only in the -tags pcap build)\n", cs.Dropped)
	}
	if lf.write != "" {
		fmt.Fprintf(e.stderr, "tcpviz %s: wrote %s\n", verb, lf.write)
	}
	return readErr
}

// liveSel is the --conn/--port/--host/--dir selection of a live run.
type liveSel struct {
	conn int
	sel  query.Selection // port and host: query's one matching rule
	dirs []flows.Direction
}

func liveSelection(conn, port, host, dir string) (liveSel, error) {
	s := liveSel{conn: -1, dirs: []flows.Direction{flows.AtoB, flows.BtoA}}
	sf := selFlags{conn: -1, host: host, dir: dir, ref: "syn"}
	if conn != "" {
		v, err := strconv.Atoi(conn)
		if err != nil {
			return s, fmt.Errorf("--conn %q: %w", conn, err)
		}
		sf.conn = v
	}
	if port != "" {
		v, err := strconv.Atoi(port)
		if err != nil {
			return s, fmt.Errorf("--port %q: %w", port, err)
		}
		sf.port = v
	}
	sel, err := sf.selection() // the same checks and vocabulary as every verb
	if err != nil {
		return s, err
	}
	s.conn, s.sel, s.dirs = sel.Conn, sel, sel.Dir.Dirs()
	s.sel.Conn = -1 // live indexes are lc.idx
	return s, nil
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
	e     *env
	w     *bufio.Writer
	cw    *csv.Writer
	csv   bool
	sel   liveSel
	iface string
	en    *liveEngine
	out   liveOut
	start capture.Timestamp // first frame
	now   capture.Timestamp // latest segment
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
		w = st.e.stderr
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
	want := map[tcpanalysis.Method]bool{tcpanalysis.MethodHandshake: true}
	switch method {
	case "ack":
		want[tcpanalysis.MethodACK] = true
	case "ts":
		want[tcpanalysis.MethodTS] = true
	case "both", "":
		want[tcpanalysis.MethodACK], want[tcpanalysis.MethodTS] = true, true
	default:
		return fmt.Errorf("--method %q: want ack, ts or both", method)
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
	// quantiles of Options.RTTQuantiles (exact up to 65 536 samples).
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
		return st.summary("RTT summary of the open connections:", table)
	}
	return nil
}

func endpoints(lc *liveConn) string { return plot.Endpoints(lc.r.Conn, flows.AtoB) }

func (st *liveState) retrans() {
	st.out.start = func() {
		if st.csv {
			st.csvRow("conn", "dir", "t_s", "conn_t_s", "frame", "class", "seq", "len", "original_frame", "evidence")
		}
	}
	st.en.onEvent = func(lc *liveConn, ev tcpanalysis.Event) {
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
		return st.summary("event counts of the open connections:", table)
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
	tty := false
	if f, ok := st.e.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tty = true
	}
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
		table(fmt.Sprintf("%s %s (%d connections so far, open ones listed)", now.Format("15:04:05"), st.iface, st.en.total), rows)
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
