package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

func newDemoCmd(e *env) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "demo",
		Short: "analyse the captures shipped with tcpviz and write every plot into a folder",
		Long: `demo runs tcpviz on the captures embedded in the binary (testdata/ of the
source tree): a synthetic 600 ms-RTT transfer with a fast retransmit and an
RTO, the satellite testbed's client captures with and without a split-TCP PEP,
and a small ns-3 MANET campaign (AODV vs OLSR). For each capture it writes the
connection table (CSV) and the time-sequence graph of its largest connection
into the output folder; an RTT, throughput, window and compare figure of the
satellite captures; the MANET campaign's goodput rows, tables (Markdown, CSV,
LaTeX) and figures; then the interactive report of every capture
(report.html, open it first) and the PEP comparison (compare-pep.html), and
prints every path it wrote.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDemo(e, out)
		},
	}
	c.Flags().StringVarP(&out, "out", "o", "tcpviz-demo", "output folder")
	return c
}

func runDemo(e *env, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	names, err := tcpviz.DemoCaptures()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "tcpviz-demo-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var demoCaps []demoCapture
	for _, name := range names {
		// A readable name for the outputs: testdata/sat/pep-on_window-20KB/client.pcap
		// → sat_pep-on_window-20KB_client.
		base := strings.TrimPrefix(name, "testdata/")
		base = strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".pcap")
		base = strings.ReplaceAll(base, "/", "_")
		src := filepath.Join(tmp, strings.ReplaceAll(name, "/", "_")) // unique: the report reads them all again
		if err := tcpviz.WriteDemoFile(name, src); err != nil {
			return err
		}
		demoCaps = append(demoCaps, demoCapture{name: name, path: src})
		// One analysis through the selection layer: every connection for
		// the table, and the series of the largest one, in the direction
		// of its data, for the Stevens graph.
		v, err := query.Analyze(src, query.All(), query.Options{})
		if errors.Is(err, query.ErrNoMatch) {
			continue // no TCP in this capture
		}
		if err != nil {
			return fmt.Errorf("demo capture %s: %w", name, err)
		}
		v.File, v.Report.File = name, name
		csvPath := filepath.Join(out, base+".flows.csv")
		err = writeFileAtomic(csvPath, func(f *os.File) error {
			return export.WriteFlowsCSV(f, []export.FlowsFile{export.NewFlowsFile(name, v.Report, false)})
		})
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, csvPath)
		idx, d := v.Conn.Conn.Index, v.Dir
		pngPath := filepath.Join(out, fmt.Sprintf("%s.conn%d.%s.seq.png", base, idx, d))
		p := plot.TimeSeqOptions{Dir: d, Title: fmt.Sprintf("%s — conn %d: %s", name, idx, plot.Endpoints(v.Conn.Conn, d))}
		if err := writeSeq(pngPath, v, p, plot.DefaultStyle); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, pngPath)
	}
	// The other figures and the study's tables, then the reports, whose
	// last line says what to open first.
	if err := e.demoFigures(out); err != nil {
		return err
	}
	return e.demoReports(out, demoCaps)
}
