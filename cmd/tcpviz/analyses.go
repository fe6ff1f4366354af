package main

import (
	"fmt"
	"io"
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
// keeps of path, prints notes' notes and warnings about it (nil: none) for
// every output, the report included, then writes the report for -o x.html
// (opened at panel), else the table, rows (table) or figure (fig) of the
// view.
func (e *env) analyse(f *anaFlags, path string, sel query.Selection, kind outKind, plan query.Options, panel string,
	notes func(*query.View), table func(*query.View) (export.Table, error), fig func(*query.View, string) (plot.Figure, error)) error {
	v, err := e.view(path, &f.af, sel, plan, kind == outImage)
	if err != nil {
		return err
	}
	if notes != nil {
		notes(v)
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

var selectionHelp = help("selection.txt")

func newRTTCmd(e *env) *cobra.Command {
	var f anaFlags
	var method string
	var pepMode, pepIfaces bool
	var pathRTT time.Duration
	c := &cobra.Command{
		Use:     "rtt FILE [SERVER-SIDE-FILE]",
		Short:   "round-trip times: ACK-based with Karn's rule, TSval/TSecr, and the handshake split",
		Long:    help("rtt.txt") + selectionHelp,
		Example: help("rtt.examples.txt"),
		Args:    named(cobra.RangeArgs(1, 2)),
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
			if pepMode && (f.rf.csv || f.rf.json) {
				// As seq: the verdict is a table of its own, and it was
				// dropped without a word beside the rows.
				return fmt.Errorf("--pep prints a verdict: not with --csv/--json")
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
			v.PathRTT = pathRTT
			printCaveats(e.stderr, v, query.OutRTT)
			if n := v.HandshakeNote(); n != "" && want[query.MetricRTTHandshake] {
				fmt.Fprintln(e.stderr, "note:", n)
			}
			// A PEP's ACKs time only the capture point ↔ PEP part: the
			// PEP's word ends every output (pepAfter).
			if kind == outHTML {
				if err := e.htmlOne(f.rf.out, v, "rtt"); err != nil {
					return err
				}
				return e.pepAfter(pepMode, args[0], v, pathRTT)
			}
			t := export.RTT(v, want, f.rf.wantRows() && rows == nil)
			if len(t.Summary) <= 1 && kind == outNone {
				// A header alone reads as a failure: say why it is empty.
				where := "in the selection (" + export.WindowText(v, v.Conn, v.Dir) + ")"
				if v.Whole(v.Conn, v.Dir) {
					where = "in the whole connection"
				}
				fmt.Fprintf(e.stderr, "warning: %s conn %d: no RTT sample %s: nothing to list\n", v.File, v.Conn.Conn.Index, where)
			}
			if rows != nil {
				t.Each, t.EachErr = rows.Rows(v), rows.Err
			}
			if pepMode && kind == outNone && !f.rf.csv && !f.rf.json {
				if err := export.WriteAligned(e.stdout, t.Summary); err != nil {
					return err
				}
				return e.pepOne(args[0], v.Report, v.Conn, v.Dir, pathRTT)
			}
			if err := e.emit(&f.rf, t, func() (saver, error) { return figures.RTT(v, e.runName(args[0]), want) }); err != nil {
				return err
			}
			return e.pepAfter(pepMode, args[0], v, pathRTT)
		},
	}
	f.register(c, query.RefSYN)
	e.addFigFlags(c)
	c.Flags().StringVar(&method, "method", "both", "ack, ts or both (the handshake split is always included)")
	c.Flags().BoolVar(&pepMode, "pep", false, "PEP-aware: evidence of a split-TCP proxy (one capture), or both halves of split connections (two captures)")
	c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known (e.g. 600ms): evidence for or against a split-TCP PEP, in --pep's verdict and the notes (docs/metrics.md#pep)")
	c.Flags().BoolVar(&pepIfaces, "two-ifaces", false, "with --pep and one pcapng: interface 0 holds the client side of the PEP, interface 1 the server side")
	return c
}

func newRetransCmd(e *env) *cobra.Command {
	var f anaFlags
	c := &cobra.Command{
		Use:   "retrans FILE",
		Short: "retransmissions and other events, classified: rto, fast, spurious, out_of_order, dup_ack, zero_window, …",
		Long:  help("retrans.txt") + selectionHelp,
		Args:  named(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, kind, err := f.check()
			if err != nil {
				return err
			}
			// The report's events lane is on every view: no panel.
			return e.analyse(&f, args[0], sel, kind, query.PlanEvents(f.want(kind)), "", func(v *query.View) { printCaveats(e.stderr, v, query.OutEvents) }, func(v *query.View) (export.Table, error) {
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
		Long:  help("window.txt") + selectionHelp,
		Args:  named(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, kind, err := f.check()
			if err != nil {
				return err
			}
			return e.analyse(&f, args[0], sel, kind, query.PlanWindow(sel, f.want(kind)), "win", func(v *query.View) {
				printCaveats(e.stderr, v, query.OutWindow)
				// The window and a zero-window stall may be a PEP's.
				pepViewNote(e.stderr, v)
			}, func(v *query.View) (export.Table, error) {
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
	var interval, pathRTT time.Duration
	var at []float64
	var toBytes int64
	c := &cobra.Command{
		Use:   "tput FILE",
		Short: "throughput and goodput over time, cumulative bytes, slow-start end, bytes acknowledged at t, time to N bytes",
		Long:  help("tput.txt") + selectionHelp,
		Args:  named(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, kind, err := f.check()
			if err != nil {
				return err
			}
			if err := sel.CheckInterval(interval); err != nil {
				return intervalError(interval, err)
			}
			return e.analyse(&f, args[0], sel, kind, query.PlanRate(interval, f.want(kind)), "tput", func(v *query.View) {
				v.PathRTT = pathRTT // the verdict of the note, the table's rows and the figure's legend
				printCaveats(e.stderr, v, query.OutRate)
				pepViewNote(e.stderr, v)
			}, func(v *query.View) (export.Table, error) {
				pv := figures.PEPVerdict(v)
				by := export.AckedByReceiver
				switch {
				case pv.Likely:
					by = export.AckedByPEP
				case pv.Possible:
					by = export.AckedByPEPMaybe
				}
				t, err := export.Tput(v, at, toBytes, by)
				if err != nil {
					return t, &exitError{code: 2, err: fmt.Errorf("%s conn %d: %w (--interval sets the width)", args[0], v.Conn.Conn.Index, err)}
				}
				t.Summary = pepTputTable(t.Summary, pv)
				return t, nil
			}, figures.Rate)
		},
	}
	f.register(c, query.RefBulk)
	e.addFigFlags(c)
	secondsVar(c.Flags(), &interval, "interval", 0, "interval width, e.g. 100ms or 0.1 (seconds) (default: 1, 2 or 5 × 10^k, at most 50 intervals)")
	c.Flags().Float64SliceVar(&at, "at", nil, "also report bytes acknowledged this many seconds after --ref (repeatable)")
	c.Flags().Int64Var(&toBytes, "bytes", 0, "report the time until this many bytes were acknowledged")
	c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known (e.g. 600ms): evidence for or against a split-TCP PEP acknowledging the data (docs/metrics.md#pep)")
	return c
}

// printCaveats prints what output o says about the vantage of v's
// connection (query.View.Caveats): its notes, then its warnings.
func printCaveats(w io.Writer, v *query.View, o query.Output) {
	c := v.Caveats(o)
	printNotes(w, c.Notes...)
	for _, x := range c.Warnings {
		fmt.Fprintln(w, "warning:", x)
	}
}

// printNotes prints each note that is not empty on a line of its own.
func printNotes(w io.Writer, notes ...string) {
	for _, n := range notes {
		if n != "" {
			fmt.Fprintln(w, "note:", n)
		}
	}
}
