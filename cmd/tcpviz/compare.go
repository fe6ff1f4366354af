package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/figures"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/query"
)

func newCompareCmd(e *env) *cobra.Command {
	var af analysisFlags
	var sf selFlags
	var metric, layout, out string
	var at []float64
	var toBytes int64
	var interval, pathRTT time.Duration
	var pepMode, asCSV, asJSON bool
	var align string
	c := &cobra.Command{
		Use:     "compare LABEL=FILE[#conn]...",
		Short:   "compare runs side by side: one series on shared axes, and a summary table with ratios to the first run",
		Long:    help("compare.txt", "{metrics}", query.MetricNames()) + selectionHelp,
		Example: help("compare.examples.txt"),
		Args:    named(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := query.ParseMetric(metric)
			if err != nil {
				return fmt.Errorf("--metric: %w", err)
			}
			switch {
			case asCSV && asJSON:
				return fmt.Errorf("choose one of --csv and --json")
			case (asCSV || asJSON) && out != "":
				return fmt.Errorf("-o %s and --csv/--json: the summary's rows go to standard output, the series to -o; give one", out)
			}
			lay, err := figures.ParseLayout(layout)
			if err != nil {
				return fmt.Errorf("--layout %w", err)
			}
			if _, err := af.options(); err != nil {
				return err
			}
			if err := alignFlag(cmd, &sf, align); err != nil {
				return err
			}
			sel, err := sf.selection()
			if err != nil {
				return err
			}
			if k, err := checkOut(out, true); err != nil {
				return err
			} else if k == outRows && strings.ToLower(filepath.Ext(out)) == ".json" {
				return fmt.Errorf("-o %s: compare writes its series as .csv", out)
			}
			if err := sel.CheckInterval(interval); err != nil {
				return intervalError(interval, err)
			}
			specs, err := compare.ParseSpecs(args) // duplicate labels and runs refused
			if err != nil {
				return err
			}
			runs, views, err := e.compareRuns(specs, &af, sel, interval)
			if err != nil {
				return err
			}
			if pathRTT > 0 {
				// The path RTT given is evidence for every output, the
				// notes and table labels too, not only --pep's verdicts.
				for i, r := range runs {
					views[i].PathRTT = pathRTT
					if !r.IsPair() {
						runs[i].PEP = pep.DetectWith(r.Result, r.Dir, pep.Options{PathRTT: pathRTT, Links: r.Links})
					}
				}
			}
			// The summary table, always: aligned text, or its rows as CSV
			// or JSON on standard output with the notes on standard error.
			rows := compare.Summary(runs, at, toBytes)
			text := e.stdout
			switch {
			case asCSV:
				err, text = compare.WriteSummaryCSV(e.stdout, runs, rows), e.stderr
			case asJSON:
				err, text = compare.WriteSummaryJSON(e.stdout, runs, rows), e.stderr
			default:
				err = export.WriteAligned(e.stdout, compare.SummaryTable(runs, rows))
			}
			if err != nil {
				return err
			}
			compare.WriteRuns(text, runs, sel.Ref)
			compare.WriteNotes(text, runs)
			for _, t := range at {
				if !compare.Lasted(runs, t) {
					fmt.Fprintf(text, "note: --at %g: no run lasted %g s after its reference point: no row\n", t, t)
				}
			}
			for i, r := range runs {
				// Vantage: the summary's RTT rows of a run captured away
				// from its sender time only part of the path
				// (docs/metrics.md#rtt), a relay holds only the frames
				// routed through it (its goodput follows the ACKs seen
				// there), "sent" away from the sender is what reached the
				// capture point, at the sender's own radio the samples and
				// in flight leave out its queues, a node that only
				// overheard the connection has nothing of its own, and in
				// flight is the capture point's
				// (docs/metrics.md#bytes-in-flight).
				// (The rows of the sender's side of a run captured away
				// from its sender are "–", with compare's own note:
				// query.SentNote would explain values no longer shown.)
				notes := []string{query.OverheardNote(r.Result, r.Dir), query.LegNote(r.Result, r.Dir), query.AirNote(r.Result, r.Dir), query.RelayNote(r.Result, r.Dir)}
				if m == query.MetricInFlight || m == query.MetricInFlightSACK {
					notes = append(notes, query.InFlightNote(r.Result, r.Dir), query.AirFlightNote(r.Result, r.Dir))
					if w := views[i].FlightOverWindow(); w != "" {
						fmt.Fprintf(text, "warning: %s: %s\n", r.Label, w)
					}
				}
				for _, n := range notes {
					if n != "" {
						fmt.Fprintf(text, "note: %s: %s\n", r.Label, n)
					}
				}
			}
			if pepMode {
				// With --csv/--json the verdicts go to standard error
				// with the notes, so that --path-rtt's evidence can shape
				// the rows too.
				err := compare.PEPVerdicts(runs, pathRTT, func(r compare.Run, v pep.Verdict) error { return writeVerdict(text, " for "+r.Label, v, pathRTT) })
				if err != nil {
					return inputError(err)
				}
			}
			if out == "" {
				return nil
			}
			if isHTML(out) {
				return e.htmlCompare(out, runs, sel.Ref.String(), pathRTT)
			}
			ext := strings.ToLower(filepath.Ext(out))
			if ext == ".csv" {
				if err := writeFileAtomic(out, func(f *os.File) error { return compare.WriteCSV(f, runs, views, m) }); err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, out)
				return nil
			}
			fig, err := figures.Compare(runs, views, m, sel, lay, e.fig.label)
			if err != nil {
				return err
			}
			return e.writeFigure(out, fig)
		},
	}
	af.register(c)
	e.addFigFlags(c)
	sf.registerNoConn(c, query.RefBulk)
	c.Flags().StringVar(&align, "align", query.RefBulk.String(), "alias of --ref: align runs at bulk, data or syn")
	c.Flags().BoolVar(&asCSV, "csv", false, "write the summary table's rows as CSV to standard output (schema "+compare.SummarySchema+"), the notes to standard error")
	c.Flags().BoolVar(&asJSON, "json", false, "write the summary table's rows as JSON to standard output, the notes to standard error")
	c.Flags().StringVar(&metric, "metric", "seq", "series to compare: "+query.MetricNames()+" (tput: goodput)")
	c.Flags().StringVar(&layout, "layout", "overlay", "overlay (one set of axes) or grid (small multiples, shared axes)")
	c.Flags().Float64SliceVar(&at, "at", nil, "also report bytes acknowledged this many seconds after the reference point")
	c.Flags().Int64Var(&toBytes, "bytes", 0, "report the time until this many bytes were acknowledged")
	secondsVar(c.Flags(), &interval, "interval", 0, "goodput interval (e.g. 500ms or 0.5 seconds) for --metric goodput/throughput (default: the finest of the runs' 1-2-5 defaults)")
	c.Flags().StringVarP(&out, "output", "o", "", "figure (.png, .svg, .pdf), the series as .csv, or the interactive report in compare mode (.html)")
	c.Flags().BoolVar(&pepMode, "pep", false, "also print, per run, the evidence for or against a split-TCP PEP (see 'tcpviz rtt --help')")
	c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known (e.g. 600ms): evidence for or against a split-TCP PEP in one-capture runs, for the rows, notes and --pep's verdicts (docs/metrics.md#pep)")
	return c
}
