package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// anaFlags are the flags of the per-analysis verbs (rtt, retrans, window,
// tput): analysis, selection and output.
type anaFlags struct {
	af analysisFlags
	sf selFlags
	rf rowFlags
}

func (f *anaFlags) register(c *cobra.Command, defRef query.Ref) {
	f.af.register(c)
	f.sf.register(c, defRef)
	f.rf.register(c)
}

// check validates every flag; it runs before any capture is read.
func (f *anaFlags) check() (query.Selection, outKind, error) {
	if _, err := f.af.options(); err != nil {
		return query.Selection{}, 0, err
	}
	sel, err := f.sf.selection()
	if err != nil {
		return sel, 0, err
	}
	k, err := f.rf.check()
	return sel, k, err
}

const selectionHelp = `
Selection, the same in every verb (package query): --conn N, --port P and
--host H keep the connections that match all of them; tables, rows and
figures all read the matching one that carried most payload bytes (stderr
says which). --dir ab|ba (a2b, b2a; a = the SYN sender) picks the data
direction, default the one that delivered more. --from/--to limit every
row, table and figure to that many seconds after --ref, the reference point
of the connection's data direction, shared by both directions (bulk falls
back to data, then syn, with a warning).
Time columns: t_s counts from the capture's first frame (with --filter too),
conn_t_s from the connection's first packet (docs/schema.md).`

func newRTTCmd(e *env) *cobra.Command {
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
the data or TSval timed), method, t_s, conn_t_s, rtt_ms, frame (of the
packet closing the sample).

--pep: a split-TCP PEP answers the sender with its own ACKs, so the sender's
RTT is the RTT to the proxy. With one capture, rtt prints the evidence for
or against a PEP on the chosen connection (RTTs against the handshake and
the path, hop counts, IP IDs, zero-window stalls; give the configured path
RTT with --path-rtt if known). With two captures, one on each side of the
PEP, it matches the two halves of each split connection and gives the RTT of
each half, the bytes held inside the PEP and the end-to-end goodput; -o
held.csv writes the bytes held in the PEP over time. With one pcapng holding
both sides, --two-ifaces takes interface 0 as the client side and 1 as the
server side.` + selectionHelp,
		Example: `  tcpviz rtt run.pcap
  tcpviz rtt run.pcap --method ts --csv > rtt.csv
  tcpviz rtt run.pcap --conn 0 -o rtt.png`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, kind, err := f.check()
			if err != nil {
				return err
			}
			want := map[query.Metric]bool{query.MetricRTTHandshake: true}
			switch method {
			case "ack":
				want[query.MetricRTT] = true
			case "ts":
				want[query.MetricRTTTS] = true
			case "both", "":
				want[query.MetricRTT], want[query.MetricRTTTS] = true, true
			default:
				return fmt.Errorf("--method %q: want ack, ts or both", method)
			}
			if err := checkProgress(nil, 0, pathRTT); err != nil {
				return err
			}
			if len(args) == 2 && !pepMode {
				return fmt.Errorf("two captures need --pep (client side, then server side)")
			}
			if len(args) == 2 || (pepMode && pepIfaces) {
				if kind == outImage {
					return fmt.Errorf("-o %s: the two-capture mode writes the held-bytes series as .csv", f.rf.out)
				}
				return e.pepTwo(args[0], args[len(args)-1], &f.af, f.rf.out)
			}
			// Percentiles over a whole connection come from bounded
			// quantiles; every sample is kept only for rows, a figure or a
			// time range.
			samples := f.rf.wantRows() || kind != outNone || sel.From > 0 || sel.To > 0 || sel.Ref != query.RefSYN
			// One connection is read (the largest matching): a large
			// capture takes a streamed counting pass, then analyses it.
			parts := tcpanalysis.PartEvents // no series; events for --pep only
			if samples {
				parts |= tcpanalysis.PartRTT
			}
			qo := query.Options{RTT: true, RTTSamples: samples, Events: pepMode, OneConn: true, Parts: parts}
			// Rows of whole connections are streamed while the capture is
			// read, not built from samples held in memory (a window from
			// --ref data/bulk needs the reference point first).
			var rows *export.RTTRows
			if f.rf.wantRows() && sel.From == 0 && sel.To == 0 && sel.Ref == query.RefSYN {
				if rows, err = export.NewRTTRows(sel, want); err != nil {
					return err
				}
				defer rows.Close()
				// Rows only: no summary table, so no quantiles either.
				qo.RTT, qo.RTTSamples, qo.OnRTT, qo.Parts = false, false, rows.OnRTT, tcpanalysis.PartEvents
			}
			v, err := e.view(args[0], &f.af, sel, qo, kind == outImage)
			if err != nil {
				return err
			}
			if kind == outHTML {
				return e.htmlOne(f.rf.out, v, "rtt")
			}
			if n := query.LegNote(v.Conn, v.Dir); n != "" {
				fmt.Fprintln(e.stderr, "note:", n)
			}
			t := export.RTT(v, want, f.rf.wantRows() && rows == nil)
			if rows != nil {
				t.Each, t.EachErr = rows.Rows(v), rows.Err
			}
			if pepMode && kind == outNone && !f.rf.csv && !f.rf.json {
				if err := export.WriteAligned(e.stdout, t.Summary); err != nil {
					return err
				}
				return e.pepOne(args[0], v.Conn, v.Dir, pathRTT)
			}
			return e.emit(&f.rf, t, func() (saver, error) {
				// One panel per direction, each with its own y range: the
				// reverse direction's samples (often app-limited, seconds)
				// would squash the data direction's (ms) onto zero.
				var specs []plot.XYSpec
				for _, d := range []flows.Direction{v.Dir, v.Dir.Reverse()} {
					if sel.Dir != query.Auto && sel.Dir.Of(v.Conn) != d {
						continue
					}
					title := "data " + plot.Endpoints(v.Conn.Conn, d)
					if _, other, _, ok := query.OtherLeg(v.Conn, d); ok {
						// The figure says what the stderr note says.
						title += fmt.Sprintf(" — capture point not beside the sender: the rest of the path adds ≈ %.1f ms", other.Seconds()*1000)
					}
					if d != v.Dir {
						title = "reverse direction " + plot.Endpoints(v.Conn.Conn, d)
					}
					sp := plot.XYSpec{Title: title, Robust: true, X: xAxis(v), Y: plot.Axis{Label: "RTT", Unit: plot.UnitMillis}}
					for i, m := range []query.Metric{query.MetricRTT, query.MetricRTTTS, query.MetricRTTHandshake} {
						if !want[m] {
							continue
						}
						name := map[query.Metric]string{query.MetricRTT: "ACK-based (Karn)", query.MetricRTTTS: "TSval/TSecr", query.MetricRTTHandshake: "handshake"}[m]
						s := v.SeriesOf(v.Conn, d, m)
						if m == query.MetricRTTHandshake {
							s = v.HandshakeOf(v.Conn, d) // the connection's, whatever the window
						}
						if len(s.Points) > 0 {
							sp.Series = append(sp.Series, plot.Named{Name: name, Scatter: true, Color: plot.Colour(i),
								Mark: []plot.Mark{plot.MarkDot, plot.MarkRing, plot.MarkTriangle}[i], X: s.X(v.Ref), Y: s.Y()})
						}
					}
					if len(sp.Series) > 0 {
						specs = append(specs, inWindow(sp, sel))
					}
				}
				return plot.Stack(fmt.Sprintf("%s — conn %d: RTT at the capture point", e.runName(args[0]), v.Conn.Conn.Index), specs)
			})
		},
	}
	f.register(c, query.RefSYN)
	e.addFigFlags(c)
	c.Flags().StringVar(&method, "method", "both", "ack, ts or both (the handshake split is always included)")
	c.Flags().BoolVar(&pepMode, "pep", false, "PEP-aware: evidence of a split-TCP proxy (one capture), or both halves of split connections (two captures)")
	c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known (e.g. 600ms), for --pep")
	c.Flags().BoolVar(&pepIfaces, "two-ifaces", false, "with --pep and one pcapng: interface 0 holds the client side of the PEP, interface 1 the server side")
	return c
}

// xAxis is the x axis of a single-connection figure: seconds since the
// reference point.
func xAxis(v *query.View) plot.Axis {
	return plot.Axis{Label: "time since " + v.RefUsed.Describe(), Unit: plot.UnitSeconds}
}

// inWindow fixes a single-connection figure's x range to the --from/--to
// window (seconds since the reference point) when --to is given, as
// compare does; without --to the data's range is drawn.
func inWindow(spec plot.XYSpec, sel query.Selection) plot.XYSpec {
	if sel.To > 0 {
		spec.XFrom, spec.XTo = sel.From.Seconds(), sel.To.Seconds()
	}
	return spec
}

// axisOf is the axis of a metric: its label and unit.
func axisOf(m query.Metric) plot.Axis {
	u := map[query.Unit]plot.Unit{query.Bytes: plot.UnitBytes, query.Milliseconds: plot.UnitMillis, query.Seconds: plot.UnitSeconds, query.Kbps: plot.UnitKbps}[m.Unit()]
	return plot.Axis{Label: m.Label(), Unit: u}
}

func newRetransCmd(e *env) *cobra.Command {
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
x.csv): conn, dir, t_s, conn_t_s, frame, class, seq, len, original_frame,
evidence (what decided the class: docs/metrics.md#evidence).` + selectionHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, kind, err := f.check()
			if err != nil {
				return err
			}
			qo := query.Options{Events: true, OneConn: true, Parts: tcpanalysis.PartEvents}
			if kind == outHTML {
				qo = query.Options{}
			}
			v, err := e.view(args[0], &f.af, sel, qo, kind == outImage)
			if err != nil {
				return err
			}
			if kind == outHTML {
				return e.htmlOne(f.rf.out, v, "") // the events lane is on every view
			}
			t := export.Retrans(v, f.rf.wantRows())
			return e.emit(&f.rf, t, func() (saver, error) {
				var series []plot.Named
				for i, c := range tcpanalysis.Classes() {
					s := plot.Named{Name: c.String(), Scatter: true, Color: plot.Colour(i), Mark: plot.MarkOf(i)}
					for _, ev := range export.Events(v, v.Conn, v.Dir) {
						if ev.Class == c {
							s.X, s.Y = append(s.X, v.RefS(ev.Time)), append(s.Y, float64(ev.Seq))
						}
					}
					if len(s.X) > 0 {
						series = append(series, s)
					}
				}
				return plot.XY(inWindow(plot.XYSpec{Title: fmt.Sprintf("%s — conn %d: events, data %s", e.runName(args[0]), v.Conn.Conn.Index, plot.Endpoints(v.Conn.Conn, v.Dir)),
					X: xAxis(v), Y: plot.Axis{Label: "relative sequence number", Unit: plot.UnitBytes}, Series: series}, sel))
			})
		},
	}
	f.register(c, query.RefSYN)
	e.addFigFlags(c)
	return c
}

func newWindowCmd(e *env) *cobra.Command {
	var f anaFlags
	c := &cobra.Command{
		Use:   "window FILE",
		Short: "advertised receive window and bytes in flight over time, zero-window periods",
		Long: `window follows one direction of one connection: the receive window its
receiver advertised (scaled per RFC 7323; unknown without the handshake), and
bytes in flight two ways (docs/metrics.md#bytes-in-flight): as tshark computes
it (highest sequence sent − highest ACK) and SACK-aware (minus the bytes
SACKed above the ACK, the pipe of RFC 6675). The table lists the zero-window
periods (times since the connection's first packet). Rows: conn, dir, t_s,
conn_t_s, frame, rwnd_bytes, inflight_bytes, inflight_sack_bytes.` + selectionHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, kind, err := f.check()
			if err != nil {
				return err
			}
			// The window points only (and the segments for --ref bulk).
			qo := query.Options{OneConn: true, Parts: tcpanalysis.PartWindow}
			if sel.Ref == query.RefBulk {
				qo.Parts |= tcpanalysis.PartSegs
			}
			if kind == outHTML {
				qo = query.Options{}
			}
			v, err := e.view(args[0], &f.af, sel, qo, kind == outImage)
			if err != nil {
				return err
			}
			if kind == outHTML {
				return e.htmlOne(f.rf.out, v, "win")
			}
			r, d, t := v.Conn, v.Dir, export.Window(v)
			return e.emit(&f.rf, t, func() (saver, error) {
				// The analysis' garbage goes first, so the heap grows from
				// the kept points, not from twice the analysis' peak.
				runtime.GC()
				var ss []plot.Named
				for _, m := range []query.Metric{query.MetricWindow, query.MetricInFlight, query.MetricInFlightSACK} {
					name := map[query.Metric]string{query.MetricWindow: "receive window (rwnd)", query.MetricInFlight: "in flight (tshark)", query.MetricInFlightSACK: "in flight (SACK-aware)"}[m]
					if x, y := v.XY(m, v.Ref); len(x) > 0 {
						ss = append(ss, plot.Named{Name: name, Step: true, X: x, Y: y})
					}
				}
				// The figure holds its points: the window points (a million
				// on a large capture) can go before it is drawn.
				r.Series.Window[d] = nil
				title := fmt.Sprintf("%s — conn %d: window, data %s", e.runName(args[0]), r.Conn.Index, plot.Endpoints(r.Conn, d))
				if r.Conn.Half[d.Reverse()].WScale < 0 {
					title += "\nwindow scale unknown: rwnd not drawn"
				}
				return plot.XY(inWindow(plot.XYSpec{Title: title, Series: ss, X: xAxis(v), Y: plot.Axis{Label: "bytes", Unit: plot.UnitBytes}}, sel))
			})
		},
	}
	f.register(c, query.RefSYN)
	e.addFigFlags(c)
	return c
}

func newTputCmd(e *env) *cobra.Command {
	var f anaFlags
	var interval time.Duration
	var at []float64
	var toBytes int64
	c := &cobra.Command{
		Use:   "tput FILE",
		Short: "throughput and goodput over time, cumulative bytes, slow-start end, bytes acknowledged at t, time to N bytes",
		Long: `tput cuts one direction of one connection into intervals and gives throughput
(payload bytes sent, retransmissions included) and goodput (bytes newly
acknowledged) in kbit/s per interval, and the cumulative acknowledged bytes
(docs/metrics.md#throughput-over-time). The default interval is the
smallest 1, 2 or 5 × 10^k width that cuts the connection into at most 50.
The summary adds where slow start ended (docs/metrics.md#slow-start: first
retransmission, or the first RTT round whose bytes in flight did not grow
1.5×), the bytes acknowledged 1, 5 and 10 s (those the connection lasted;
and --at T) after the reference point (--ref: the first bulk segment by
default), and the time to --bytes N. Rows: conn, dir, t_s, conn_t_s
(interval start), interval_s, throughput_kbps, goodput_kbps,
cum_acked_bytes.` + selectionHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, kind, err := f.check()
			if err != nil {
				return err
			}
			if interval < 0 {
				return fmt.Errorf("--interval %v: want a positive duration", interval)
			}
			if err := checkProgress(at, toBytes, 0); err != nil {
				return err
			}
			// Bins, acknowledged bytes and slow start: segments, ACKs and
			// events of the chosen connection (bytes in flight rebuilt
			// from them: tcpanalysis.FlightPoints).
			qo := query.Options{Interval: interval, OneConn: true, Parts: tcpanalysis.PartSegs | tcpanalysis.PartAcks | tcpanalysis.PartEvents}
			if kind == outHTML {
				qo = query.Options{Interval: interval}
			}
			v, err := e.view(args[0], &f.af, sel, qo, kind == outImage)
			if err != nil {
				return err
			}
			if kind == outHTML {
				return e.htmlOne(f.rf.out, v, "tput")
			}
			r, d, w := v.Conn, v.Dir, v.Interval
			t, err := export.Tput(v, at, toBytes)
			if err != nil {
				return &exitError{code: 2, err: fmt.Errorf("%s conn %d: %w (--interval sets the width)", args[0], r.Conn.Index, err)}
			}
			t.Summary = pepTputTable(t.Summary, r, d)
			pepNote(e.stderr, r, d)
			return e.emit(&f.rf, t, func() (saver, error) {
				var ss []plot.Named
				for _, m := range []query.Metric{query.MetricThroughput, query.MetricGoodput} {
					s := v.Series(m)
					name := "throughput (sent, incl. retransmissions)"
					if m == query.MetricGoodput {
						name = tputAckLegend(r, d)
					}
					x, y := s.X(v.Ref), s.Y()
					// The last interval's step runs to its end.
					if iv, _ := v.Intervals(r, d); len(iv) > 0 && len(x) > 0 {
						last := iv[len(iv)-1]
						x, y = append(x, v.RefS(last.Start)+last.Width.Seconds()), append(y, y[len(y)-1])
					}
					ss = append(ss, plot.Named{Name: name, Step: true, X: x, Y: y})
				}
				spec := plot.XYSpec{Title: fmt.Sprintf("%s — conn %d: data %s, %s intervals", e.runName(args[0]), r.Conn.Index, plot.Endpoints(r.Conn, d), intervalLabel(w)),
					X: xAxis(v), Y: plot.Axis{Label: "rate", Unit: plot.UnitKbps}, Series: ss}
				return plot.XY(inWindow(spec, sel))
			})
		},
	}
	f.register(c, query.RefBulk)
	e.addFigFlags(c)
	secondsVar(c.Flags(), &interval, "interval", 0, "interval width, e.g. 100ms or 0.1 (seconds) (default: 1, 2 or 5 × 10^k, at most 50 intervals)")
	c.Flags().Float64SliceVar(&at, "at", nil, "also report bytes acknowledged this many seconds after --ref (repeatable)")
	c.Flags().Int64Var(&toBytes, "bytes", 0, "report the time until this many bytes were acknowledged")
	return c
}
