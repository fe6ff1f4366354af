package tcpviz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/figures"
	"github.com/tcpviz/tcpviz/internal/atomicfile"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// DemoCapture is one capture of DemoFS written out by DemoConnections: its
// name in DemoFS (testdata/…) and the path of its copy on disk.
type DemoCapture struct{ Name, Path string }

// DemoConnections is the first step of 'tcpviz demo': it creates the
// folder out, writes every capture of DemoFS (DemoCaptures) into a
// temporary directory and, for each capture that holds TCP, writes into out
// its connection table (BASE.flows.csv, docs/schema.md#flows) and the
// time-sequence graph of its largest connection in the direction of its
// data (BASE.connN.DIR.seq.png), where BASE is the capture's name without
// testdata/ and its extension, slashes turned into underscores
// (sat_pep-on_window-20KB_client). Each analysis is one query.Analyze of
// every connection. wrote is called with every path written, in order.
// It returns the captures written (also those without TCP, for the
// reports) and a function that removes their copies; on error nothing is
// left behind. Errors: file-system errors, and an analysis error naming
// the capture.
func DemoConnections(out string, wrote func(path string)) (caps []DemoCapture, cleanup func(), err error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, nil, err
	}
	names, err := DemoCaptures()
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "tcpviz-demo-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	for _, name := range names {
		base := strings.TrimPrefix(name, "testdata/")
		base = strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".pcap")
		base = strings.ReplaceAll(base, "/", "_")
		src := filepath.Join(tmp, strings.ReplaceAll(name, "/", "_")) // unique: the reports read them all again
		if err := WriteDemoFile(name, src); err != nil {
			return nil, nil, err
		}
		caps = append(caps, DemoCapture{Name: name, Path: src})
		v, err := query.Analyze(src, query.All(), query.Options{})
		if errors.Is(err, query.ErrNoMatch) {
			continue // no TCP in this capture
		}
		if err != nil {
			return nil, nil, fmt.Errorf("demo capture %s: %w", name, err)
		}
		v.File, v.Report.File = name, name
		csvPath := filepath.Join(out, base+".flows.csv")
		err = atomicfile.Write(csvPath, func(f *os.File) error {
			return export.WriteFlowsCSV(f, []export.FlowsFile{export.NewFlowsFile(name, v.Report, false)})
		})
		if err != nil {
			return nil, nil, err
		}
		wrote(csvPath)
		idx, d := v.Conn.Conn.Index, v.Dir
		pngPath := filepath.Join(out, fmt.Sprintf("%s.conn%d.%s.seq.png", base, idx, d))
		o := plot.TimeSeqOptions{Dir: d, Title: fmt.Sprintf("%s — conn %d: %s", name, idx, plot.Endpoints(v.Conn.Conn, d))}
		if err := figures.WriteSeq(pngPath, v, o, plot.DefaultStyle); err != nil {
			return nil, nil, err
		}
		wrote(pngPath)
	}
	return caps, cleanup, nil
}

// DemoVerbs is the second step of 'tcpviz demo': the command lines of
// tcpviz (without the program name) that draw one figure of each other
// kind (RTT, throughput and window of the satellite testbed's runs; the
// compare figure without and with the PEP) and the MANET study's goodput
// rows, tables (Markdown, CSV, LaTeX) and figures, on copies of the
// shipped captures in a temporary directory.
type DemoVerbs struct {
	// Args are the command lines, each to run with its flags at their
	// defaults; their outputs go into the folder given to NewDemoVerbs.
	Args [][]string
	// Also are outputs the verbs write but do not print (the goodput
	// tables), in the order demo lists them after the verbs' own.
	Also []string
	dir  string
}

// NewDemoVerbs writes the satellite testbed's client captures (each in
// its run directory, which names the run in figure titles) and the MANET
// campaign with its joined ground truth (WriteDemoManet) into a new
// temporary directory, and returns the verbs that write their outputs into
// out. Close removes the directory. Errors: file-system errors.
func NewDemoVerbs(out string) (*DemoVerbs, error) {
	tmp, err := os.MkdirTemp("", "tcpviz-demo-figs-*")
	if err != nil {
		return nil, err
	}
	d := &DemoVerbs{dir: tmp}
	if err := d.build(out); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *DemoVerbs) build(out string) error {
	tmp := d.dir
	sat := func(run string) (string, error) {
		dst := filepath.Join(tmp, run, "client.pcap")
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		return dst, WriteDemoFile("testdata/sat/"+run+"/client.pcap", dst)
	}
	pep, err := sat("pep-on_window-20KB")
	if err != nil {
		return err
	}
	nopep, err := sat("pep-off_window-20KB")
	if err != nil {
		return err
	}
	manet := filepath.Join(tmp, "manet")
	if err := os.MkdirAll(manet, 0o755); err != nil {
		return err
	}
	gt, err := WriteDemoManet(manet)
	if err != nil {
		return err
	}
	starts := filepath.Join(tmp, "groundtruth-all.csv")
	if err := os.WriteFile(starts, gt, 0o644); err != nil {
		return err
	}
	o := func(name string) string { return filepath.Join(out, name) }
	d.Args = [][]string{
		{"rtt", pep, "-o", o("sat_pep-on_window-20KB.rtt.png")},
		{"tput", pep, "-o", o("sat_pep-on_window-20KB.tput.png")},
		{"window", nopep, "-o", o("sat_pep-off_window-20KB.window.png")},
		{"compare", "no PEP=" + nopep, "PEP=" + pep, "-o", o("sat_compare-pep.seq.png")},
		{"goodput", manet, "--labels", "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap", "--group", "protocol", "--pair", "seed",
			"--end", "30", "--starts", starts, "--starts-rename", "run=seed", "--label", "testdata/manet",
			"--csv", "-o", o("manet.goodput.csv"), "--tables", o("manet.tables.md"), "--tables-csv", o("manet"),
			"--tables-tex", o("manet.tables.tex"), "--plot", o("manet.goodput.png")},
	}
	d.Also = []string{o("manet.goodput.csv"), o("manet.tables.md"), o("manet.groups.csv"), o("manet.pairs.csv")}
	return nil
}

// Shown maps a capture path the verbs read to the name the user knows it
// by, for the rows they write: testdata/sat/RUN/client.pcap and
// testdata/manet/…, not the copies, which are gone when demo ends; other
// paths are returned as they are.
func (d *DemoVerbs) Shown(p string) string {
	if rel, err := filepath.Rel(d.dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		if strings.HasPrefix(rel, "manet") {
			return filepath.ToSlash(filepath.Join("testdata", rel))
		}
		return filepath.ToSlash(filepath.Join("testdata", "sat", rel))
	}
	return p
}

// Close removes the copies of the captures. Errors: those of
// os.RemoveAll.
func (d *DemoVerbs) Close() error { return os.RemoveAll(d.dir) }
