package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

func init() {
	addCommand(func(e *env) *cobra.Command {
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
	})
}

func runDemo(e *env, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var names []string
	err := fs.WalkDir(tcpviz.DemoFS, "testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".pcap") || strings.HasSuffix(p, ".pcap.gz")) {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
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
		if err := copyOut(name, src); err != nil {
			return err
		}
		demoCaps = append(demoCaps, demoCapture{name: name, path: src})
		rep, err := tcpanalysis.AnalyzeFile(src, tcpanalysis.Options{})
		if err != nil {
			return fmt.Errorf("demo capture %s: %w", name, err)
		}
		rep.File = name
		csvPath := filepath.Join(out, base+".flows.csv")
		err = writeFileAtomic(csvPath, func(f *os.File) error {
			return writeFlowsCSV(f, []flowsFile{newFlowsFile(name, rep, false)})
		})
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, csvPath)
		// The Stevens graph of the connection that carried most data, in
		// the direction of the data.
		var cf connFlags
		cf.conn = -1
		r, d, err := cf.pick(rep, io.Discard)
		if err != nil {
			continue // no TCP in this capture
		}
		idx := r.Conn.Index
		rep2, err := tcpanalysis.AnalyzeFile(src, tcpanalysis.Options{Keep: func(i int) bool { return i == idx }})
		if err != nil {
			return err
		}
		rep2.File = name
		pngPath := filepath.Join(out, fmt.Sprintf("%s.conn%d.%s.seq.png", base, idx, d))
		p := plot.TimeSeqOptions{Dir: d, Title: fmt.Sprintf("%s — conn %d: %s", name, idx, plot.Endpoints(r.Conn, d))}
		if err := writeSeq(pngPath, rep2, rep2.Conns[idx], p, plot.DefaultStyle); err != nil {
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

// copyOut writes an embedded file to disk, so the reader can map it.
func copyOut(name, dst string) error {
	b, err := tcpviz.DemoFS.ReadFile(name)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
