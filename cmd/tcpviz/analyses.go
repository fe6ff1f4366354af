package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/figures"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
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

// want is what the output flags ask of the view (query.Want).
func (f *anaFlags) want(kind outKind) query.Want {
	return query.Want{Rows: f.rf.wantRows(), Figure: kind == outImage, Report: kind == outHTML}
}

// analyse is the body of retrans, window and tput: it reads the view plan
// keeps of path, then writes the report for -o x.html (opened at panel),
// else the table, rows (table) or figure (fig) of the view.
func (e *env) analyse(f *anaFlags, path string, sel query.Selection, kind outKind, plan query.Options, panel string,
	table func(*query.View) (export.Table, error), fig func(*query.View, string) (plot.Figure, error)) error {
	v, err := e.view(path, &f.af, sel, plan, kind == outImage)
	if err != nil {
		return err
	}
	if kind == outHTML {
		return e.htmlOne(f.rf.out, v, panel)
	}
	t, err := table(v)
	if err != nil {
		return err
	}
	return e.emit(&f.rf, t, func() (saver, error) { return fig(v, e.runName(path)) })
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
			want, err := query.RTTMethods(method)
			if err != nil {
				return fmt.Errorf("--method %w", err)
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
			qo, stream := query.PlanRTT(sel, f.want(kind), pepMode)
			var rows *export.RTTRows
			if stream {
				if rows, err = export.NewRTTRows(sel, want); err != nil {
					return err
				}
				defer rows.Close()
				qo.OnRTT = rows.OnRTT
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
			return e.emit(&f.rf, t, func() (saver, error) { return figures.RTT(v, e.runName(args[0]), want) })
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
			// The report's events lane is on every view: no panel.
			return e.analyse(&f, args[0], sel, kind, query.PlanEvents(f.want(kind)), "", func(v *query.View) (export.Table, error) {
				return export.Retrans(v, f.rf.wantRows()), nil
			}, figures.Events)
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
			return e.analyse(&f, args[0], sel, kind, query.PlanWindow(sel, f.want(kind)), "win", func(v *query.View) (export.Table, error) {
				return export.Window(v), nil
			}, figures.Window)
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
			return e.analyse(&f, args[0], sel, kind, query.PlanRate(interval, f.want(kind)), "tput", func(v *query.View) (export.Table, error) {
				t, err := export.Tput(v, at, toBytes)
				if err != nil {
					return t, &exitError{code: 2, err: fmt.Errorf("%s conn %d: %w (--interval sets the width)", args[0], v.Conn.Conn.Index, err)}
				}
				t.Summary = pepTputTable(t.Summary, v.Conn, v.Dir)
				pepNote(e.stderr, v.Conn, v.Dir)
				return t, nil
			}, figures.Rate)
		},
	}
	f.register(c, query.RefBulk)
	e.addFigFlags(c)
	secondsVar(c.Flags(), &interval, "interval", 0, "interval width, e.g. 100ms or 0.1 (seconds) (default: 1, 2 or 5 × 10^k, at most 50 intervals)")
	c.Flags().Float64SliceVar(&at, "at", nil, "also report bytes acknowledged this many seconds after --ref (repeatable)")
	c.Flags().Int64Var(&toBytes, "bytes", 0, "report the time until this many bytes were acknowledged")
	return c
}
