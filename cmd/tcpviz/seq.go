package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/figures"
	"github.com/tcpviz/tcpviz/query"
)

func newSeqCmd(e *env) *cobra.Command {
	var af analysisFlags
	var sf selFlags
	var out string
	var pepMode, asCSV, asJSON bool
	var pathRTT time.Duration
	c := &cobra.Command{
		Use:     "seq FILE",
		Short:   "draw the time-sequence (Stevens) graph of one connection",
		Long:    help("seq.txt") + selectionHelp,
		Example: help("seq.examples.txt"),
		Args:    named(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := af.options(); err != nil {
				return err
			}
			sel, err := sf.selection()
			if err != nil {
				return err
			}
			if _, err := checkOut(out, true); err != nil {
				return err
			}
			toStdout := (asCSV || asJSON) && out == "" // --csv -o x.csv: -o's
			if asCSV && asJSON {
				return fmt.Errorf("choose one of --csv and --json")
			}
			if err := stdoutOrFile(out, asCSV, asJSON); err != nil {
				return err
			}
			if (asCSV || asJSON) && pepMode {
				return fmt.Errorf("--pep prints a verdict: not with --csv/--json")
			}
			v, err := e.view(args[0], &af, sel, query.PlanSeq(query.Want{Report: isHTML(out)}, pepMode), true)
			if err != nil {
				return err
			}
			v.PathRTT = pathRTT // the verdict of the legend and the notes
			r, d := v.Conn, v.Dir
			printCaveats(e.stderr, v, query.OutSeq)
			if toStdout {
				// The points, as -o FILE.csv or .json writes them
				// (docs/schema.md#seq), like window's and tput's --csv.
				if asCSV {
					err = export.WriteSeqCSV(e.stdout, v, export.SeqPoints(v))
				} else {
					err = export.WriteSeqJSON(e.stdout, v, export.SeqPoints(v))
				}
				if err == nil {
					pepViewNote(e.stderr, v)
				}
				return err
			}
			if out == "" {
				out = defaultOut(args[0], r.Conn.Index, d, "seq")
			}
			if isHTML(out) {
				if err := e.htmlOne(out, v, "seq"); err != nil {
					return err
				}
				return e.pepAfter(pepMode, args[0], v, pathRTT)
			}
			st, err := e.fig.style()
			if err != nil {
				return err
			}
			// A figure warns when it draws nothing (its legend, which
			// lists what shows within the axes, is empty), as the other
			// verbs' figures do (writeFigure): an ACK line holding across
			// a zoomed window from before it is drawn, so no warning.
			so := figures.SeqOptions(v, e.runName(args[0])) // the ACK line named by the PEP verdict (v.PathRTT)
			drawn, err := figures.WriteSeqDrawn(out, v, so, st)
			if err != nil {
				return err
			}
			if !drawn {
				e.warnEmpty(out)
			}
			fmt.Fprintln(e.stdout, out)
			return e.pepAfter(pepMode, args[0], v, pathRTT)
		},
	}
	af.register(c)
	sf.register(c, query.RefSYN)
	e.addFigFlags(c)
	c.Flags().StringVarP(&out, "output", "o", "", "output file: .png, .svg, .pdf, .csv, .json or .html (the interactive report)")
	c.Flags().BoolVar(&asCSV, "csv", false, "write the points as CSV to standard output (as -o FILE.csv) instead of a figure")
	c.Flags().BoolVar(&asJSON, "json", false, "write the points as JSON to standard output (as -o FILE.json) instead of a figure")
	c.Flags().BoolVar(&pepMode, "pep", false, "also print the evidence for or against a split-TCP PEP on this connection (see 'tcpviz rtt --help')")
	c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known (e.g. 600ms): evidence for or against a split-TCP PEP, in the legend, the notes and --pep's verdict (docs/metrics.md#pep)")
	return c
}
