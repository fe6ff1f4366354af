package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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
flight (zero-window periods shaded), and an events lane, each with the notes
its verb prints about where the capture was taken (a relay, a node that only
overheard the connection, not beside the sender, the sender's own radio, a
PEP, bytes in flight over twice the window). The panels share
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
		Args: named(cobra.MinimumNArgs(1)),
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
			args = e.onceEach(args)
			job := report.Job{Paths: args, Out: out, Title: title, Analysis: opts,
				Limits: report.Limits{Conns: maxConns, Packets: maxPackets, OnePass: query.OnePassLimit},
				Open: func(path string) (string, func(), error) {
					p, err := e.input(path) // "-": spooled once for the run
					return p, func() {}, err
				},
				Read: e.reportRead, Stdout: e.stdout, Stderr: e.stderr}
			if len(args) == 1 {
				// One capture: named with its run folder, as figure
				// titles (runName), not the bare client.pcap (trial14 C13).
				job.Label = e.runName(args[0])
			}
			return reportErr(job.Run())
		},
	}
	af.register(c)
	c.Flags().StringVarP(&out, "output", "o", "", "the HTML file to write (required)")
	c.Flags().StringVar(&title, "title", "", "page title (default: the capture names)")
	c.Flags().IntVar(&maxConns, "max-conns", 200, "keep series for at most this many connections per capture, those that carried most payload")
	c.Flags().Int64Var(&maxPackets, "max-packets", 2_000_000, "and only while their packets add up to at most this many (about 10 bytes of report each); the largest connection is always kept")
	return c
}

// reportRead reads a capture for the report: warnings once, from the
// first pass (the last pass of a large capture warns again).
func (e *env) reportRead(path string, o tcpanalysis.Options, pass int) (*tcpanalysis.Report, error) {
	if pass == 1 {
		return e.analyze(path, o)
	}
	rep, err := e.analyzeFile(path, o)
	return rep, inputError(err)
}

// reportErr gives package report's errors their exit status: 2 when no
// capture could be read or none holds a connection, 3 when the report
// left some captures out ("partial").
func reportErr(err error) error {
	var re *report.ReadError
	switch {
	case errors.As(err, &re) && re.Partial():
		return &exitError{code: 3, err: err}
	case errors.As(err, &re), errors.Is(err, report.ErrNothing):
		return &exitError{code: 2, err: err}
	}
	return err
}

// isHTML reports whether -o names an HTML report (the graph verbs' html
// branch).
func isHTML(out string) bool { return strings.ToLower(filepath.Ext(out)) == ".html" }

// htmlOne writes the report of one connection chosen by a graph verb,
// opened at its panel (seq, rtt, tput, win): report.WriteOne.
func (e *env) htmlOne(out string, v *query.View, panel string) error {
	return reportErr(report.WriteOne(out, v, e.runName(v.File), panel, e.stdout))
}

// htmlCompare writes the report of compare's runs in compare mode:
// report.WriteCompare.
func (e *env) htmlCompare(out string, runs []compare.Run, align string, pathRTT time.Duration) error {
	return reportErr(report.WriteCompare(out, runs, align, pathRTT, e.stdout))
}

// demoCapture is one shipped capture written out by demo: its name in
// testdata/ and its temporary path.
type demoCapture struct{ name, path string }

// demoReports writes demo's interactive reports into dir: report.WriteDemo.
func (e *env) demoReports(dir string, caps []demoCapture) error {
	dc := make([]report.DemoCapture, len(caps))
	for i, c := range caps {
		dc[i] = report.DemoCapture{Name: c.name, Path: c.path}
	}
	return reportErr(report.WriteDemo(dir, dc, e.stdout, e.stderr))
}

// onceEach returns paths with every capture once: a file named twice,
// under one spelling or two (./a.pcap and a.pcap, a link, a relative and
// an absolute path: os.SameFile), is read once, at its first place, with
// a note naming both. report F F had shown each connection twice ("8
// connections in 2 captures"); compare refuses a run given twice
// (compare.ErrDuplicate), and goodput reads a capture once. Standard input
// ("-") and paths that cannot be stat'ed are kept as given: reading them
// reports what is wrong.
func (e *env) onceEach(paths []string) []string {
	var kept []string
	var seen []os.FileInfo
	var names []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if p == "-" || err != nil || !st.Mode().IsRegular() {
			kept = append(kept, p)
			continue
		}
		dup := false
		for i, s := range seen {
			if os.SameFile(s, st) {
				fmt.Fprintf(e.stderr, "note: %s is %s, given before: read once\n", p, names[i])
				dup = true
				break
			}
		}
		if !dup {
			seen, names = append(seen, st), append(names, p)
			kept = append(kept, p)
		}
	}
	return kept
}
