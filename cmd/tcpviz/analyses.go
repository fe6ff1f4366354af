package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// anaFlags are the flags of the per-analysis verbs (rtt, retrans, window,
// tput): connection selection, output file, row format.
type anaFlags struct {
	af        analysisFlags
	cf        connFlags
	out       string
	csv, json bool
}

func (f *anaFlags) register(c *cobra.Command) {
	f.af.register(c)
	f.cf.register(c)
	c.Flags().StringVarP(&f.out, "output", "o", "", "output file: .png, .svg or .pdf (the figure of one connection), .csv or .json (the rows), .html (the interactive report)")
	c.Flags().BoolVar(&f.csv, "csv", false, "write the rows as CSV to standard output instead of the summary table")
	c.Flags().BoolVar(&f.json, "json", false, "write the rows as JSON to standard output instead of the summary table")
}

// selected reports whether the user named connections (--conn, --port,
// --host); then only those are listed.
func (f *anaFlags) selected(r *tcpanalysis.ConnResult) bool {
	k := r.Conn.Key
	if f.cf.conn >= 0 && r.Conn.Index != f.cf.conn {
		return false
	}
	if f.cf.port != 0 && int(k.Lo.Port()) != f.cf.port && int(k.Hi.Port()) != f.cf.port {
		return false
	}
	if f.cf.host != "" && k.Lo.Addr().String() != f.cf.host && k.Hi.Addr().String() != f.cf.host {
		return false
	}
	return true
}

// wantRows reports whether the output is the rows (CSV/JSON), so that a
// verb builds them only then: on a large capture they are millions.
func (f *anaFlags) wantRows() bool {
	ext := strings.ToLower(filepath.Ext(f.out))
	return f.csv || f.json || ext == ".csv" || ext == ".json"
}

func (f *anaFlags) dirs() []flows.Direction {
	switch strings.ToLower(f.cf.dir) {
	case "a2b", "ab":
		return []flows.Direction{flows.AtoB}
	case "b2a", "ba":
		return []flows.Direction{flows.BtoA}
	}
	return []flows.Direction{flows.AtoB, flows.BtoA}
}

// rowsOut writes table rows as CSV or JSON (objects keyed by the header).
func rowsOut(w io.Writer, asJSON bool, schema string, header []string, rows [][]string) error {
	if !asJSON {
		cw := csv.NewWriter(w)
		cw.Write(header)
		cw.WriteAll(rows)
		return cw.Error()
	}
	out := make([]map[string]any, 0, len(rows))
	for _, r := range rows {
		m := map[string]any{}
		for i, h := range header {
			if r[i] == "" {
				m[h] = nil
			} else if v, err := strconv.ParseFloat(r[i], 64); err == nil && h != "dir" {
				m[h] = v
			} else {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"schema": schema, "rows": out})
}

// emit writes rows (CSV/JSON to -o or standard output), a figure (-o with
// an image extension) or the summary table.
func (e *env) emit(f *anaFlags, schema string, header []string, rows [][]string, table [][]string, fig func() (interface {
	Save(w io.Writer, format string) error
}, error)) error {
	ext := strings.ToLower(filepath.Ext(f.out))
	switch {
	case f.out != "" && (ext == ".csv" || ext == ".json"):
		if err := writeFileAtomic(f.out, func(fh *os.File) error { return rowsOut(fh, ext == ".json", schema, header, rows) }); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, f.out)
		return nil
	case f.out != "":
		format := plot.FormatOf(f.out)
		if format == "" {
			return fmt.Errorf("unknown output format %q: use .png, .svg, .pdf, .csv or .json", ext)
		}
		p, err := fig()
		if err != nil {
			return err
		}
		if err := writeFileAtomic(f.out, func(fh *os.File) error { return e.saveFigure(fh, p, format) }); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, f.out)
		return nil
	case f.csv || f.json:
		return rowsOut(e.stdout, f.json, schema, header, rows)
	}
	return writeAligned(e.stdout, table)
}

func ms(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1000, 'f', 3, 64) }
func secsStr(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 6, 64)
}

// detailed analyses every connection of path with RTT samples and events
// kept (one pass), and picks the connection a figure shows.
func (e *env) detailed(path string, f *anaFlags, rtt, events bool) (*tcpanalysis.Report, *tcpanalysis.ConnResult, flows.Direction, error) {
	opts, err := f.af.options()
	if err != nil {
		return nil, nil, 0, err
	}
	// Percentiles come from bounded per-series quantiles; every sample is
	// kept only for rows or a figure.
	opts.RTTQuantiles = rtt
	opts.KeepRTT, opts.KeepEvents = rtt && (f.wantRows() || f.out != ""), events
	rep, err := e.analyze(path, opts)
	if err != nil {
		return nil, nil, 0, err
	}
	var pick *tcpanalysis.ConnResult
	var d flows.Direction
	if len(rep.Conns) > 0 {
		msg := io.Discard
		if filepath.Ext(f.out) != "" && plot.FormatOf(f.out) != "" {
			msg = e.stderr
		}
		pick, d, err = f.cf.pick(rep, msg)
		if err != nil {
			return nil, nil, 0, &exitError{code: 2, err: err}
		}
	}
	return rep, pick, d, nil
}

func init() {
	addCommand(func(e *env) *cobra.Command {
		var f anaFlags
		var method string
		var pepMode, pepIfaces bool
		var pathRTT time.Duration
		c := &cobra.Command{
			Use:   "rtt FILE [SERVER-SIDE-FILE]",
			Short: "round-trip times: ACK-based with Karn's rule, TSval/TSecr, and the handshake split",
			Long: `rtt measures round-trip times at the capture point, three ways, always labelled
(docs/metrics.md#rtt):
  ack        data segment → the ACK that first covers exactly its end; no
             sample when that ACK covers any byte sent more than once (Karn,
             RFC 6298), as tcptrace does
  ts         TSval first seen → its first echo in TSecr (RFC 7323), as pping
             does: works in both directions from any capture point
  handshake  SYN → SYN-ACK (dir ab) and SYN-ACK → ACK (dir ba)
The table gives per connection, direction and method: count, min, p50,
mean, p95, max in ms. Rows (--csv, -o x.csv): conn, dir (the direction of
the data or TSval timed; a = SYN sender), method, t_s (seconds since the
capture's first packet), rtt_ms, frame (of the packet closing the sample).

--pep: a split-TCP PEP answers the sender with its own ACKs, so the sender's
RTT is the RTT to the proxy. With one capture, rtt prints the evidence for
or against a PEP on the chosen connection (RTTs against the handshake and
the path, hop counts, IP IDs, zero-window stalls; give the configured path
RTT with --path-rtt if known). With two captures, one on each side of the
PEP, it matches the two halves of each split connection and gives the RTT of
each half, the bytes held inside the PEP and the end-to-end goodput; -o
held.csv writes the bytes held in the PEP over time. With one pcapng holding
both sides, --two-ifaces takes interface 0 as the client side and 1 as the
server side.`,
			Example: `  tcpviz rtt run.pcap
  tcpviz rtt run.pcap --method ts --csv > rtt.csv
  tcpviz rtt run.pcap --conn 0 -o rtt.png`,
			Args: cobra.RangeArgs(1, 2),
			RunE: func(cmd *cobra.Command, args []string) error {
				if len(args) == 2 {
					if !pepMode {
						return fmt.Errorf("two captures need --pep (client side, then server side)")
					}
					return e.pepTwo(args[0], args[1], &f.af, f.out)
				}
				if pepMode && pepIfaces {
					return e.pepTwo(args[0], args[0], &f.af, f.out)
				}
				if isHTML(f.out) {
					rep, r, d, err := e.analyzeOne(args[0], &f.af, &f.cf)
					if err != nil {
						return err
					}
					return e.htmlOne(f.out, rep, r, d, "rtt")
				}
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
				rep, pick, pd, err := e.detailed(args[0], &f, true, pepMode)
				if err != nil {
					return err
				}
				header := []string{"conn", "dir", "method", "t_s", "rtt_ms", "frame"}
				rowsWanted := f.wantRows()
				var rows [][]string
				table := [][]string{{"conn", "dir", "method", "count", "min_ms", "p50_ms", "mean_ms", "p95_ms", "max_ms"}}
				for _, r := range rep.Conns {
					if !f.selected(r) {
						continue
					}
					for _, s := range r.RTT {
						if !want[s.Method] || !rowsWanted {
							continue
						}
						rows = append(rows, []string{strconv.Itoa(r.Conn.Index), s.Dir.String(), s.Method.String(),
							secsStr(s.Time.Sub(rep.Start)), strconv.FormatFloat(s.RTT.Seconds()*1000, 'f', 6, 64), strconv.FormatInt(s.Frame, 10)})
					}
					for _, d := range f.dirs() {
						for _, m := range []tcpanalysis.Method{tcpanalysis.MethodHandshake, tcpanalysis.MethodACK, tcpanalysis.MethodTS} {
							a := &r.RTTAgg[d][m]
							if !want[m] || a.N == 0 {
								continue
							}
							p50, _ := a.Quantile(0.5)
							p95, _ := a.Quantile(0.95)
							table = append(table, []string{strconv.Itoa(r.Conn.Index), d.String(), m.String(), strconv.FormatInt(a.N, 10), ms(a.Min), ms(p50), ms(a.Mean()), ms(p95), ms(a.Max)})
						}
					}
				}
				if pepMode && pick != nil && f.out == "" && !f.csv && !f.json {
					if err := writeAligned(e.stdout, table); err != nil {
						return err
					}
					return e.pepOne(args[0], pick, pd, pathRTT)
				}
				return e.emit(&f, "tcpviz.rtt/1", header, rows, table, func() (interface {
					Save(io.Writer, string) error
				}, error) {
					if pick == nil {
						return nil, fmt.Errorf("no TCP connection")
					}
					// One panel per direction, each with its own y range: the
					// reverse direction's samples (often app-limited, seconds)
					// would squash the data direction's (ms) onto zero.
					var specs []plot.XYSpec
					for _, d := range []flows.Direction{pd, pd.Reverse()} {
						if len(f.dirs()) == 1 && f.dirs()[0] != d {
							continue
						}
						title := "data " + plot.Endpoints(pick.Conn, d)
						if d != pd {
							title = "reverse direction " + plot.Endpoints(pick.Conn, d)
						}
						sp := plot.XYSpec{Title: title, Robust: true,
							X: plot.Axis{Label: "time since connection start", Unit: plot.UnitSeconds}, Y: plot.Axis{Label: "RTT", Unit: plot.UnitMillis}}
						for i, m := range []tcpanalysis.Method{tcpanalysis.MethodACK, tcpanalysis.MethodTS, tcpanalysis.MethodHandshake} {
							if !want[m] {
								continue
							}
							name := map[tcpanalysis.Method]string{tcpanalysis.MethodACK: "ACK-based (Karn)", tcpanalysis.MethodTS: "TSval/TSecr", tcpanalysis.MethodHandshake: "handshake"}[m]
							s := plot.Named{Name: name, Scatter: true, Color: plot.Colour(i), Mark: []plot.Mark{plot.MarkDot, plot.MarkRing, plot.MarkTriangle}[i]}
							for _, x := range pick.RTT {
								if x.Method == m && x.Dir == d {
									s.X = append(s.X, x.Time.Sub(pick.Conn.First).Seconds())
									s.Y = append(s.Y, x.RTT.Seconds()*1000)
								}
							}
							if len(s.X) > 0 {
								sp.Series = append(sp.Series, s)
							}
						}
						if len(sp.Series) > 0 {
							specs = append(specs, sp)
						}
					}
					return plot.Stack(fmt.Sprintf("%s — conn %d: RTT at the capture point", e.runName(args[0]), pick.Conn.Index), specs)
				})
			},
		}
		f.register(c)
		e.addFigFlags(c)
		c.Flags().StringVar(&method, "method", "both", "ack, ts or both (the handshake split is always included)")
		c.Flags().BoolVar(&pepMode, "pep", false, "PEP-aware: evidence of a split-TCP proxy (one capture), or both halves of split connections (two captures)")
		c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known (e.g. 600ms), for --pep")
		c.Flags().BoolVar(&pepIfaces, "two-ifaces", false, "with --pep and one pcapng: interface 0 holds the client side of the PEP, interface 1 the server side")
		return c
	})

	addCommand(func(e *env) *cobra.Command {
		var f anaFlags
		c := &cobra.Command{
			Use:   "retrans FILE",
			Short: "retransmissions and other events, classified: rto, fast, spurious, out_of_order, dup_ack, zero_window, …",
			Long: `retrans classifies every segment and ACK (docs/metrics.md#events): rto, fast,
spurious (retransmissions), out_of_order, lost_segment (a gap in the
capture), dup_ack, zero_window, zw_probe, keepalive, window_full. Copies of one
packet inside the capture (802.11 retries, relayed copies) are folded first
and are never retransmissions. Time rules scale with the connection's
measured RTT, never fixed milliseconds.
The table counts classes per connection and data direction; rows (--csv, -o
x.csv): conn, dir, t_s, frame, class, seq, len, original_frame, evidence (what
decided the class: docs/metrics.md#evidence).`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				rep, pick, pd, err := e.detailed(args[0], &f, false, true)
				if err != nil {
					return err
				}
				header := []string{"conn", "dir", "t_s", "frame", "class", "seq", "len", "original_frame", "evidence"}
				rowsWanted := f.wantRows()
				var rows [][]string
				head := []string{"conn", "dir"}
				for _, c := range tcpanalysis.Classes() {
					head = append(head, c.String())
				}
				table := [][]string{head}
				for _, r := range rep.Conns {
					if !f.selected(r) {
						continue
					}
					for _, ev := range r.Events {
						orig := ""
						if ev.Original > 0 {
							orig = strconv.FormatInt(ev.Original, 10)
						}
						if rowsWanted {
							rows = append(rows, []string{strconv.Itoa(r.Conn.Index), ev.Dir.String(), secsStr(ev.Time.Sub(rep.Start)),
								strconv.FormatInt(ev.Frame, 10), ev.Class.String(), strconv.FormatInt(ev.Seq, 10), strconv.Itoa(ev.Len), orig, ev.Evidence.String()})
						}
					}
					for _, d := range f.dirs() {
						row := []string{strconv.Itoa(r.Conn.Index), d.String()}
						for _, c := range tcpanalysis.Classes() {
							row = append(row, strconv.FormatInt(r.Counts[d][c], 10))
						}
						table = append(table, row)
					}
				}
				return e.emit(&f, "tcpviz.retrans/2", header, rows, table, func() (interface {
					Save(io.Writer, string) error
				}, error) {
					if pick == nil {
						return nil, fmt.Errorf("no TCP connection")
					}
					var series []plot.Named
					for i, c := range tcpanalysis.Classes() {
						s := plot.Named{Name: c.String(), Scatter: true, Color: plot.Colour(i), Mark: plot.MarkOf(i)}
						for _, ev := range pick.Events {
							if ev.Class == c && ev.Dir == pd {
								s.X = append(s.X, ev.Time.Sub(pick.Conn.First).Seconds())
								s.Y = append(s.Y, float64(ev.Seq))
							}
						}
						if len(s.X) > 0 {
							series = append(series, s)
						}
					}
					return plot.XY(plot.XYSpec{Title: fmt.Sprintf("%s — conn %d: events, data %s", e.runName(args[0]), pick.Conn.Index, plot.Endpoints(pick.Conn, pd)),
						X: plot.Axis{Label: "time since connection start", Unit: plot.UnitSeconds}, Y: plot.Axis{Label: "relative sequence number", Unit: plot.UnitBytes}, Series: series})
				})
			},
		}
		f.register(c)
		e.addFigFlags(c)
		return c
	})

	addCommand(func(e *env) *cobra.Command {
		var f anaFlags
		c := &cobra.Command{
			Use:   "window FILE",
			Short: "advertised receive window and bytes in flight over time, zero-window periods",
			Long: `window follows one direction of one connection (chosen as 'seq' does): the
receive window its receiver advertised (scaled per RFC 7323; unknown without
the handshake), and bytes in flight two ways (docs/metrics.md#bytes-in-flight):
as tshark computes it (highest sequence sent − highest ACK) and SACK-aware
(minus the bytes SACKed above the ACK, the pipe of RFC 6675). The table lists
the zero-window periods. Rows: t_s (since the connection's first packet),
frame, rwnd_bytes, inflight_bytes, inflight_sack_bytes.`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				rep, r, d, err := e.analyzeOne(args[0], &f.af, &f.cf)
				if err != nil {
					return err
				}
				if isHTML(f.out) {
					return e.htmlOne(f.out, rep, r, d, "win")
				}
				header := []string{"conn", "dir", "t_s", "frame", "rwnd_bytes", "inflight_bytes", "inflight_sack_bytes"}
				var rows [][]string
				t0 := r.Conn.First
				for _, w := range r.Series.Window[d] {
					rw, fl, fs := "", "", ""
					if w.RwndKnown {
						rw = strconv.FormatInt(w.Rwnd, 10)
					}
					if w.FlightValid {
						fl, fs = strconv.FormatInt(w.InFlight, 10), strconv.FormatInt(w.InFlightSACK, 10)
					}
					rows = append(rows, []string{strconv.Itoa(r.Conn.Index), d.String(), secsStr(w.Time.Sub(t0)), strconv.FormatInt(w.Frame, 10), rw, fl, fs})
				}
				table := [][]string{{"conn", "dir", "zero-window start_s", "end_s", "duration_ms", "frames"}}
				for _, z := range r.ZeroWindows {
					if z.Dir == d && z.End == 0 {
						table = append(table, []string{strconv.Itoa(r.Conn.Index), d.String(), secsStr(z.Start.Sub(t0)), "open at the end", ms(r.Conn.Last.Sub(z.Start)) + "+", fmt.Sprintf("%d-", z.StartFrame)})
					} else if z.Dir == d {
						table = append(table, []string{strconv.Itoa(r.Conn.Index), d.String(), secsStr(z.Start.Sub(t0)), secsStr(z.End.Sub(t0)), ms(z.End.Sub(z.Start)), fmt.Sprintf("%d-%d", z.StartFrame, z.EndFrame)})
					}
				}
				if len(table) == 1 {
					table = append(table, []string{strconv.Itoa(r.Conn.Index), d.String(), "none", "", "", ""})
				}
				return e.emit(&f, "tcpviz.window/1", header, rows, table, func() (interface {
					Save(io.Writer, string) error
				}, error) {
					rw := plot.Named{Name: "receive window (rwnd)", Step: true}
					fl := plot.Named{Name: "in flight (tshark)", Step: true}
					fs := plot.Named{Name: "in flight (SACK-aware)", Step: true}
					for _, w := range r.Series.Window[d] {
						x := w.Time.Sub(t0).Seconds()
						if w.RwndKnown {
							rw.X, rw.Y = append(rw.X, x), append(rw.Y, float64(w.Rwnd))
						}
						if w.FlightValid {
							fl.X, fl.Y = append(fl.X, x), append(fl.Y, float64(w.InFlight))
							fs.X, fs.Y = append(fs.X, x), append(fs.Y, float64(w.InFlightSACK))
						}
					}
					var ss []plot.Named
					for _, s := range []plot.Named{rw, fl, fs} {
						if len(s.X) > 0 {
							ss = append(ss, s)
						}
					}
					title := fmt.Sprintf("%s — conn %d: window, data %s", e.runName(args[0]), r.Conn.Index, plot.Endpoints(r.Conn, d))
					if r.Conn.Half[d.Reverse()].WScale < 0 {
						title += "\nwindow scale unknown: rwnd not drawn"
					}
					return plot.XY(plot.XYSpec{Title: title, Series: ss,
						X: plot.Axis{Label: "time since connection start", Unit: plot.UnitSeconds}, Y: plot.Axis{Label: "bytes", Unit: plot.UnitBytes}})
				})
			},
		}
		f.register(c)
		e.addFigFlags(c)
		return c
	})

	addCommand(func(e *env) *cobra.Command {
		var f anaFlags
		var interval time.Duration
		var at []float64
		var toBytes int64
		var refFrom string
		c := &cobra.Command{
			Use:   "tput FILE",
			Short: "throughput and goodput over time, cumulative bytes, slow-start end, bytes acknowledged at t, time to N bytes",
			Long: `tput cuts one direction of one connection (chosen as 'seq' does) into intervals
and gives throughput (payload bytes sent, retransmissions included) and goodput
(bytes newly acknowledged) in kbit/s per interval, and the cumulative
acknowledged bytes (docs/metrics.md#throughput-over-time). The summary adds
where slow start ended (docs/metrics.md#slow-start: first retransmission, or
the first RTT round whose bytes in flight did not grow 1.5×), the bytes
acknowledged 1, 5 and 10 s (and --at T) after the reference point (--ref:
the first bulk segment by default), and the time to --bytes N. The default interval is 1 s, or 1/20 of the connection for
connections shorter than 20 s.`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				rep, r, d, err := e.analyzeOne(args[0], &f.af, &f.cf)
				if err != nil {
					return err
				}
				if isHTML(f.out) {
					return e.htmlOne(f.out, rep, r, d, "tput")
				}
				if interval < 0 {
					return fmt.Errorf("--interval %v: want a positive duration", interval)
				}
				w := interval
				if w <= 0 {
					w = time.Second
					if dur := r.Conn.Duration(); dur < 20*time.Second {
						w = max(dur/20, time.Millisecond)
					}
				}
				if toBytes < 0 {
					return fmt.Errorf("--bytes %d: want a positive byte count", toBytes)
				}
				bins, err := tcpanalysis.Bins(r, d, w)
				if err != nil {
					return &exitError{code: 2, err: fmt.Errorf("%s conn %d: %w", args[0], r.Conn.Index, err)}
				}
				header := []string{"conn", "dir", "t_s", "interval_s", "throughput_kbps", "goodput_kbps", "cum_acked_bytes"}
				var rows [][]string
				kb := func(b int64) float64 { return float64(b) * 8 / w.Seconds() / 1000 }
				for _, b := range bins {
					rows = append(rows, []string{strconv.Itoa(r.Conn.Index), d.String(), secsStr(b.Start), secsStr(w),
						strconv.FormatFloat(kb(b.Bytes), 'f', 3, 64), strconv.FormatFloat(kb(b.Acked), 'f', 3, 64), strconv.FormatInt(b.CumAcked, 10)})
				}
				var ref capture.Timestamp
				refName := ""
				switch refFrom {
				case "bulk":
					ref, refName = tcpanalysis.BulkStart(r, d), "the first bulk segment (≥ 512 B payload)"
				case "data":
					ref, refName = tcpanalysis.FirstData(r, d), "the first data segment"
				case "syn":
					ref, refName = r.Conn.First, "the connection's first packet"
				default:
					return fmt.Errorf("--ref %q: want bulk, data or syn", refFrom)
				}
				ss := tcpanalysis.SlowStartEnd(r, d, ref)
				table := [][]string{{"metric", "value"}}
				table = append(table, []string{"connection", fmt.Sprintf("%d, data %s", r.Conn.Index, plot.Endpoints(r.Conn, d))})
				table = append(table, []string{"interval", w.String()})
				table = append(table, []string{"times from", fmt.Sprintf("%s, %.3f s after the connection's first packet", refName, ref.Sub(r.Conn.First).Seconds())})
				if ss.Rule != "" {
					table = append(table, []string{"slow start ended", fmt.Sprintf("%.3f s (rule: %s, frame %d)", ss.End.Seconds(), ss.Rule, ss.Frame)})
				} else {
					table = append(table, []string{"slow start ended", "not detected"})
				}
				for _, t := range append([]float64{1, 5, 10}, at...) {
					table = append(table, []string{fmt.Sprintf("acked after %g s", t), fmt.Sprintf("%d bytes (sent up to %d)", tcpanalysis.AckedAt(r, d, ref, secs(t)), tcpanalysis.SentAt(r, d, ref, secs(t)))})
				}
				if toBytes > 0 {
					if tt, ok := tcpanalysis.TimeTo(r, d, ref, toBytes); ok {
						table = append(table, []string{fmt.Sprintf("time to %d bytes", toBytes), fmt.Sprintf("%.3f s", tt.Seconds())})
					} else {
						table = append(table, []string{fmt.Sprintf("time to %d bytes", toBytes), "never"})
					}
				}
				table = append(table, []string{"goodput", fmt.Sprintf("%.1f kbit/s over %.3f s", r.GoodputKbps(d), r.Duration().Seconds())})
				table = pepTputTable(table, r, d)
				pepNote(e.stderr, r, d)
				return e.emit(&f, "tcpviz.tput/1", header, rows, table, func() (interface {
					Save(io.Writer, string) error
				}, error) {
					tp := plot.Named{Name: "throughput (sent, incl. retransmissions)", Step: true}
					gp := plot.Named{Name: tputAckLegend(r, d), Step: true}
					for _, b := range bins {
						tp.X, tp.Y = append(tp.X, b.Start.Seconds()), append(tp.Y, kb(b.Bytes))
						gp.X, gp.Y = append(gp.X, b.Start.Seconds()), append(gp.Y, kb(b.Acked))
					}
					return plot.XY(plot.XYSpec{Title: fmt.Sprintf("%s — conn %d: data %s, %v intervals", e.runName(args[0]), r.Conn.Index, plot.Endpoints(r.Conn, d), w.Round(time.Microsecond)),
						X: plot.Axis{Label: "time since connection start", Unit: plot.UnitSeconds}, Y: plot.Axis{Label: "rate", Unit: plot.UnitKbps}, Series: []plot.Named{tp, gp}})
				})
			},
		}
		f.register(c)
		e.addFigFlags(c)
		c.Flags().DurationVar(&interval, "interval", 0, "interval width, e.g. 100ms (default 1s, or 1/20 of a connection shorter than 20 s)")
		c.Flags().Float64SliceVar(&at, "at", nil, "also report bytes acknowledged this many seconds after the first data segment (repeatable)")
		c.Flags().Int64Var(&toBytes, "bytes", 0, "report the time until this many bytes were acknowledged")
		c.Flags().StringVar(&refFrom, "ref", "bulk", "where the times start: bulk (first segment with ≥ 512 B payload, after a request or iperf3's cookie), data (first data segment) or syn (connection start)")
		return c
	})
}
