package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/report"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

func newReportCmd(e *env) *cobra.Command {
	var af analysisFlags
	var out, title string
	var maxConns int
	var maxPackets int64
	c := &cobra.Command{
		Use:   "report CAPTURE...",
		Short: "write an interactive HTML report: linked, zoomable panels for every connection",
		Long: `report writes one self-contained HTML file (it works offline; the plotting
library, uPlot, is embedded with its licence) for one or more captures: a
connection picker listing every connection with its summary row, and for the
chosen connection and data direction the Stevens graph (data segments, ACK
line, receive-window line, SACK blocks, retransmission and out-of-order
marks), RTT by method, throughput and goodput, receive window and bytes in
flight (zero-window periods shaded), and an events lane. The panels share
the time axis: a drag zooms (a box on the Stevens graph), ctrl+wheel zooms,
shift+wheel pans, a double-click resets; hover a mark for its frame number,
time, sequence numbers and class. The address (#c=CONN&d=ab&x=FROM,TO, with
f=N for the N-th capture from 0 when there are several) keeps the view, to
bookmark or send. Tick several connections and press "Compare
ticked" to overlay them, aligned at their first bulk segment.

Series are stored at several resolutions (min/max per bucket; every
retransmission and out-of-order mark kept): a connection of 1.25 million
packets opened in about a second in chromium, and zooming in shows every
segment. Series are kept
for the connections that carried most data (--max-conns, --max-packets);
the others are listed with their summary row only. Of several captures, one
that cannot be read is left out with a warning (exit status 3, partial).`,
		Example: `  tcpviz report run.pcap -o report.html
  tcpviz report nopep/client.pcap pep/client.pcap -o sat.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("report needs -o FILE.html")
			}
			if strings.ToLower(filepath.Ext(out)) != ".html" {
				return fmt.Errorf("-o %s: the report is an .html file", out)
			}
			if maxConns < 1 {
				return fmt.Errorf("--max-conns %d: want at least 1", maxConns)
			}
			if maxPackets < 1 {
				return fmt.Errorf("--max-packets %d: want at least 1", maxPackets)
			}
			opts, err := af.options()
			if err != nil {
				return err
			}
			var caps []report.Capture
			var failed []string
			for _, path := range args {
				rep, err := e.reportCapture(path, opts, maxConns, maxPackets)
				if err != nil && len(args) > 1 {
					// One unreadable capture of several: reported,
					// left out, exit status 3 ("partial").
					fmt.Fprintf(e.stderr, "warning: %v: left out of the report\n", err)
					failed = append(failed, path)
					continue
				}
				if err != nil {
					return err
				}
				caps = append(caps, report.Capture{Report: rep})
			}
			if len(caps) == 0 {
				return &exitError{code: 2, err: fmt.Errorf("none of the %s could be read", count(len(args), "capture"))}
			}
			if len(caps) == 1 && len(args) == 1 {
				// One capture: named with its run folder, as figure
				// titles (runName), not the bare client.pcap (trial14 C13).
				caps[0].Label = e.runName(args[0])
			}
			if err := e.writeReport(out, caps, report.Options{Title: title}); err != nil {
				return err
			}
			if len(failed) > 0 {
				return &exitError{code: 3, err: fmt.Errorf("partial: %d of %s could not be read: %s", len(failed), count(len(args), "capture"), strings.Join(failed, ", "))}
			}
			return nil
		},
	}
	af.register(c)
	c.Flags().StringVarP(&out, "output", "o", "", "the HTML file to write (required)")
	c.Flags().StringVar(&title, "title", "", "page title (default: the capture names)")
	c.Flags().IntVar(&maxConns, "max-conns", 200, "keep series for at most this many connections per capture, those that carried most payload")
	c.Flags().Int64Var(&maxPackets, "max-packets", 2_000_000, "and only while their packets add up to at most this many (about 10 bytes of report each); the largest connection is always kept")
	return c
}

// reportCapture analyses path keeping the series of its largest
// connections (by payload bytes), at most maxConns of them and, past the
// first, only while their packets add up to at most maxPackets: one pass
// when the capture is small and within both limits, else a summary pass
// first. It says on stderr when it left connections out.
func (e *env) reportCapture(path string, opts tcpanalysis.Options, maxConns int, maxPackets int64) (*tcpanalysis.Report, error) {
	p, cleanup, err := spoolStdin(path, e.stdin)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	// The last pass of a large capture warns again: warnings once, from
	// the first pass.
	passes := 0
	analyze := func(path string, o tcpanalysis.Options) (*tcpanalysis.Report, error) {
		passes++
		if passes == 1 {
			return e.analyze(path, o)
		}
		rep, err := e.analyzeFile(path, o)
		return rep, inputError(err)
	}
	rep, kept, total, pkts, err := report.Analyze(p, opts, report.Limits{Conns: maxConns, Packets: maxPackets, OnePass: query.OnePassLimit}, analyze)
	if err != nil {
		return nil, err
	}
	if kept < total {
		fmt.Fprintf(e.stderr, "%s: series kept for the %d largest of %d connections (%d packets; --max-conns %d, --max-packets %d); the others are listed with their summary only\n",
			path, kept, total, pkts, maxConns, maxPackets)
	}
	rep.File = path
	return rep, nil
}

// writeReport writes the HTML report atomically and prints its path.
func (e *env) writeReport(out string, caps []report.Capture, o report.Options) error {
	n := 0
	var files []string
	for _, c := range caps {
		n += len(c.Report.Conns)
		files = append(files, c.Report.File)
	}
	if n == 0 {
		return &exitError{code: 2, err: fmt.Errorf("%s: no TCP connection: nothing to report", strings.Join(files, ", "))}
	}
	if err := writeFileAtomic(out, func(f *os.File) error { return report.Write(f, caps, o) }); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, out)
	return nil
}

// isHTML reports whether -o names an HTML report (the graph verbs' html
// branch).
func isHTML(out string) bool { return strings.ToLower(filepath.Ext(out)) == ".html" }

// htmlOne writes the report of one connection chosen by a graph verb:
// every connection of rep is listed, the chosen one (direction d) opens,
// scrolled to the verb's panel (seq, rtt, tput, win).
func (e *env) htmlOne(out string, v *query.View, panel string) error {
	pick := report.Pick{Conn: v.Conn.Conn.Index, Dir: v.Dir}
	o := report.Options{Open: &pick, Focus: panel}
	if sel := v.Sel; sel.From > 0 || sel.To > 0 || v.Ref != v.Conn.Conn.First {
		// Open zoomed to the window, on the report's axis (seconds since
		// the connection's first packet).
		lo, hi, _ := v.Span(v.Conn, v.Dir)
		o.X = &[2]float64{v.ConnS(lo), v.ConnS(hi)}
	}
	return e.writeReport(out, []report.Capture{{Label: e.runName(v.File), Report: v.Report}}, o)
}

// htmlCompare writes the report of compare's runs opened in compare mode,
// each run under its label, aligned as --align. The picker lists the
// compared connections (a pair run shows its client-side half).
func (e *env) htmlCompare(out string, runs []compare.Run, align string) error {
	var caps []report.Capture
	var picks []report.Pick
	for _, r := range runs {
		// Start: the capture's first frame, so that the picker's start_s
		// is flows' (trial14 A1).
		start, srvStart := r.Start, r.ServerStart
		if start == 0 {
			start = r.Result.Conn.First
		}
		if srvStart == 0 && r.Server != nil {
			srvStart = r.Server.Conn.First
		}
		rep := &tcpanalysis.Report{File: r.File, Start: start, Conns: []*tcpanalysis.ConnResult{r.Result}}
		caps = append(caps, report.Capture{Label: r.Label, Report: rep})
		// Aligned where compare aligns it; a run that fell back to another
		// reference point names it in its label (trial14 C12).
		label := r.Label
		if r.RefUsed.String() != align {
			label += " (aligned at " + r.RefUsed.Describe() + ")"
		}
		picks = append(picks, report.Pick{Capture: len(caps) - 1, Conn: r.Result.Conn.Index, Dir: r.Dir, Label: label, At: r.Ref, EndToEndKbps: r.EndToEndKbps()})
		if r.Server != nil && r.Server.Series != nil {
			// The server side of a pair: what was delivered end to end,
			// aligned where the client side is (one clock).
			srv := &tcpanalysis.Report{File: r.ServerFile, Start: srvStart, Conns: []*tcpanalysis.ConnResult{r.Server}}
			caps = append(caps, report.Capture{Label: r.Label + " server side", Report: srv})
			client := len(picks) - 1
			picks = append(picks, report.Pick{Capture: len(caps) - 1, Conn: r.Server.Conn.Index, Dir: r.Dir, Label: r.Label + " server side (delivered end to end)", At: r.Ref, HalfOf: &client})
		}
	}
	o := report.Options{Compare: picks, Align: align, Title: "tcpviz compare: " + compare.JoinLabels(runs)}
	if r := runs[0]; r.Windowed() { // open zoomed to --from/--to (since each run's reference point)
		hi := r.To
		if hi <= 0 {
			for _, r := range runs {
				hi = max(hi, compare.End(r).Sub(r.Ref))
			}
		}
		o.X = &[2]float64{r.From.Seconds(), hi.Seconds()}
	}
	return e.writeReport(out, caps, o)
}

// demoCapture is one shipped capture written out by demo: its name in
// testdata/ and its temporary path.
type demoCapture struct{ name, path string }

// demoReports writes demo's interactive reports into dir: report.html with
// every shipped capture, and compare-pep.html with the satellite testbed's
// 20 KB-window runs without and with the PEP in compare mode. It tells on
// stderr which file to open first.
func (e *env) demoReports(dir string, caps []demoCapture) error {
	var all []report.Capture
	var pep []report.Pick
	for i, c := range caps {
		rep, err := tcpanalysis.AnalyzeFile(c.path, tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			return fmt.Errorf("demo capture %s: %w", c.name, err)
		}
		rep.File = c.name
		all = append(all, report.Capture{Label: strings.TrimPrefix(c.name, "testdata/"), Report: rep})
		label := map[string]string{"testdata/sat/pep-off_window-20KB/client.pcap": "no PEP", "testdata/sat/pep-on_window-20KB/client.pcap": "PEP"}[c.name]
		if label != "" {
			r, err := query.All().Pick(rep)
			if err != nil {
				return err
			}
			d := query.Auto.Of(r)
			pep = append(pep, report.Pick{Capture: i, Conn: r.Conn.Index, Dir: d, Label: label})
		}
	}
	first := filepath.Join(dir, "report.html")
	if err := e.writeReport(first, all, report.Options{Title: "tcpviz demo: the shipped captures"}); err != nil {
		return err
	}
	if len(pep) == 2 {
		if err := e.writeReport(filepath.Join(dir, "compare-pep.html"), all, report.Options{Title: "tcpviz demo: satellite link, 20 KB window, without and with a PEP", Compare: pep}); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "open %s first: every connection of every shipped capture, zoomable; then compare-pep.html\n", first)
	return nil
}
