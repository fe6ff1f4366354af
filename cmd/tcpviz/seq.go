package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

func newSeqCmd(e *env) *cobra.Command {
	var af analysisFlags
	var sf selFlags
	var out string
	var pepMode bool
	var pathRTT time.Duration
	c := &cobra.Command{
		Use:   "seq FILE",
		Short: "draw the time-sequence (Stevens) graph of one connection",
		Long: `seq draws the time-sequence graph of one direction of one connection, in
tcptrace's visual language: data segments as vertical bars (retransmissions red,
out-of-order blue, SYN/FIN orange), the cumulative-ACK line (green), the
receive-window line ack + rwnd (olive) and SACK blocks (purple). x is seconds
since the connection's first packet, y bytes relative to the ISN.

The output format follows the -o extension: .png, .svg, .pdf (the figure),
.csv or .json (the points). Without -o it writes DIR_FILE.connN.DIR.seq.png
(DIR: the capture's directory) in the current directory and prints the path.` + selectionHelp,
		Example: `  tcpviz seq run.pcap
  tcpviz seq run.pcap --conn 2 --dir ba --from 0 --to 5 -o seq.svg
  tcpviz seq run.pcap --port 5201 -o seq.csv`,
		Args: cobra.ExactArgs(1),
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
			if err := checkProgress(nil, 0, pathRTT); err != nil {
				return err
			}
			v, err := e.view(args[0], &af, sel, seqQuery(out, pepMode), true)
			if err != nil {
				return err
			}
			r, d := v.Conn, v.Dir
			if out == "" {
				out = defaultOut(args[0], r.Conn.Index, d, "seq")
			}
			if isHTML(out) {
				return e.htmlOne(out, v, "seq")
			}
			o := seqOptions(v, e.runName(args[0]))
			st, err := e.fig.style()
			if err != nil {
				return err
			}
			if err := writeSeq(out, v, o, st); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, out)
			pepNote(e.stderr, r, d)
			if pepMode {
				return e.pepOne(args[0], r, d, pathRTT)
			}
			return nil
		},
	}
	af.register(c)
	sf.register(c, query.RefSYN)
	e.addFigFlags(c)
	c.Flags().StringVarP(&out, "output", "o", "", "output file: .png, .svg, .pdf, .csv, .json or .html (the interactive report)")
	c.Flags().BoolVar(&pepMode, "pep", false, "also print the evidence for or against a split-TCP PEP on this connection (see 'tcpviz rtt --help')")
	c.Flags().DurationVar(&pathRTT, "path-rtt", 0, "the path's end-to-end RTT if known, for --pep")
	return c
}

// seqOptions is what seq's figure shows of v: its direction and the
// --from/--to window (as offsets from the connection's first packet), the
// run's name, and an ACK line named as the PEP's when a split-TCP PEP
// acknowledged the data (as tput's legend; trial14 C11).
func seqOptions(v *query.View, run string) plot.TimeSeqOptions {
	r, d, sel := v.Conn, v.Dir, v.Sel
	o := plot.TimeSeqOptions{Dir: d, From: v.Ref.Sub(r.Conn.First) + sel.From, Run: run}
	if sel.To > 0 {
		o.To = v.Ref.Sub(r.Conn.First) + sel.To
	}
	if pep.Detect(r, d).Likely {
		o.AckName = plot.PEPAckName
	}
	return o
}

// seqQuery keeps what seq prints: the segments, ACKs and SACK blocks of the
// chosen connection only, unless --pep or the HTML report needs more.
func seqQuery(out string, pepMode bool) query.Options {
	if pepMode || isHTML(out) {
		return query.Options{Events: pepMode}
	}
	return query.Options{OneConn: true, Parts: tcpanalysis.PartSegs | tcpanalysis.PartAcks | tcpanalysis.PartSACKs}
}

// writeSeq writes the time-sequence graph or points of v's connection;
// o's range must be the selection's.
func writeSeq(out string, v *query.View, o plot.TimeSeqOptions, st plot.Style) error {
	r := v.Conn
	ext := strings.ToLower(filepath.Ext(out))
	return writeFileAtomic(out, func(f *os.File) error {
		switch ext {
		case ".csv":
			return export.WriteSeqCSV(f, export.SeqPoints(v))
		case ".json":
			return export.WriteSeqJSON(f, v, export.SeqPoints(v))
		}
		format := plot.FormatOf(out)
		if format == "" {
			return fmt.Errorf("unknown output format %q: use .png, .svg, .pdf, .csv or .json", ext)
		}
		// The garbage of the analysis goes first, so the heap grows from
		// the kept series, not from twice the analysis' peak.
		runtime.GC()
		p, err := plot.TimeSeq(r, o)
		if err != nil {
			return err
		}
		// The figure holds what it draws: the series (a million points on
		// a large capture) can go before it is drawn.
		r.Series = nil
		return p.SaveStyle(f, format, st)
	})
}
