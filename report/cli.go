package report

// cli.go holds what 'tcpviz report' and the verbs' -o x.html do, as
// library calls: cmd/tcpviz parses flags and maps the errors below to exit
// statuses.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/internal/atomicfile"
	"github.com/tcpviz/tcpviz/internal/textcol"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// count is textcol.Count: "1 file", "3 files".
var count = textcol.Count

// ErrNothing means the captures hold no TCP connection: there is nothing
// to report (WriteFile wraps it, naming the files).
var ErrNothing = errors.New("no TCP connection: nothing to report")

// A ReadError says that some of the captures given to Job.Run could not be
// read; each was named on Job.Stderr as it failed. When others could
// (Partial), the report was written without them.
type ReadError struct {
	Failed []string // the captures that could not be read, in argument order
	Total  int      // how many captures were given
}

// Error says how many of the captures could not be read and names them:
// "none of the 2 captures could be read", or "partial: 1 of 2 captures
// could not be read: FILE".
func (e *ReadError) Error() string {
	if !e.Partial() {
		return fmt.Sprintf("none of the %s could be read", count(e.Total, "capture"))
	}
	return fmt.Sprintf("partial: %d of %s could not be read: %s", len(e.Failed), count(e.Total, "capture"), strings.Join(e.Failed, ", "))
}

// Partial reports whether some captures could be read: the report was
// written without the others.
func (e *ReadError) Partial() bool { return len(e.Failed) < e.Total }

// Job is one 'tcpviz report' run: every capture of Paths analysed within
// Limits (Analyze) and written as one report to Out.
type Job struct {
	Paths []string
	// Out is the HTML file, written atomically (internal/atomicfile); its
	// path is printed on Stdout once written.
	Out   string
	Title string // page title; the capture labels when empty
	// Limits bound the connections whose series are kept (Conns, Packets)
	// and the file size analysed in one pass (OnePass).
	Limits Limits
	// Analysis are the analyzer's options (window scale, folding, …);
	// Keep is set per pass.
	Analysis tcpanalysis.Options
	// Label names the capture in the picker when Paths holds one; its
	// file's name when empty.
	Label string
	// Open turns a path into the file to read and a cleanup (standard
	// input "-" spooled to a temporary file); nil reads the path itself.
	Open func(path string) (file string, cleanup func(), err error)
	// Read analyses a capture in pass 1, 2, … of Analyze (the caller's way
	// of reading files: a capture filter, warnings printed once, from pass
	// 1); nil is tcpanalysis.AnalyzeFile. Its errors are returned as they
	// are.
	Read func(path string, opts tcpanalysis.Options, pass int) (*tcpanalysis.Report, error)
	// Stdout gets the report's path, Stderr the notes and warnings.
	Stdout, Stderr io.Writer
}

// Run analyses every capture and writes the report. A capture that cannot
// be read is, when there are several, named on Stderr and left out: the
// error is then a *ReadError (Partial when the report was written). With
// one capture its error is returned as Read gave it. Other errors:
// ErrNothing (wrapped) when no capture holds a TCP connection, ErrNoSeries,
// file-system errors naming Out.
func (j Job) Run() error {
	var caps []Capture
	var failed []string
	for _, path := range j.Paths {
		rep, err := j.capture(path)
		if err != nil && len(j.Paths) > 1 {
			// One unreadable capture of several: reported, left out.
			fmt.Fprintf(j.Stderr, "warning: %v: left out of the report\n", err)
			if path == "-" {
				path = "stdin" // as every verb names standard input
			}
			failed = append(failed, path)
			continue
		}
		if err != nil {
			return err
		}
		caps = append(caps, Capture{Report: rep})
	}
	if len(caps) == 0 {
		return &ReadError{Failed: failed, Total: len(j.Paths)}
	}
	if len(caps) == 1 && len(j.Paths) == 1 {
		caps[0].Label = j.Label
	}
	if err := WriteFile(j.Out, caps, Options{Title: j.Title}, j.Stdout); err != nil {
		return err
	}
	if len(failed) > 0 {
		return &ReadError{Failed: failed, Total: len(j.Paths)}
	}
	return nil
}

// capture analyses path keeping the series of its largest connections
// (Analyze within j.Limits) and says on Stderr when it left connections
// out.
func (j Job) capture(path string) (*tcpanalysis.Report, error) {
	p, cleanup := path, func() {}
	if j.Open != nil {
		var err error
		if p, cleanup, err = j.Open(path); err != nil {
			return nil, err
		}
	}
	defer cleanup()
	passes := 0
	analyze := func(path string, o tcpanalysis.Options) (*tcpanalysis.Report, error) {
		passes++
		if j.Read == nil {
			return tcpanalysis.AnalyzeFile(path, o)
		}
		return j.Read(path, o, passes)
	}
	l := j.Limits
	rep, kept, total, pkts, err := Analyze(p, j.Analysis, l, analyze)
	if err != nil {
		return nil, err
	}
	if kept < total {
		fmt.Fprintf(j.Stderr, "%s: series kept for the %d largest of %d connections (%d packets; --max-conns %d, --max-packets %d); the others are listed with their summary only\n",
			path, kept, total, pkts, l.Conns, l.Packets)
	}
	rep.File = path
	if path == "-" {
		rep.File = "stdin" // as every verb names standard input
	}
	return rep, nil
}

// WriteFile writes the report of caps to the file out atomically
// (internal/atomicfile: a reader never sees half a report, and a run
// stopped by a signal replaces nothing) and prints out on stdout. Errors:
// ErrNothing (wrapped, naming the captures) when caps hold no connection,
// Write's errors, file-system errors naming out.
func WriteFile(out string, caps []Capture, o Options, stdout io.Writer) error {
	n := 0
	var files []string
	for _, c := range caps {
		n += len(c.Report.Conns)
		files = append(files, c.Report.File)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", strings.Join(files, ", "), ErrNothing)
	}
	if err := atomicfile.Write(out, func(f *os.File) error { return Write(f, caps, o) }); err != nil {
		return err
	}
	fmt.Fprintln(stdout, out)
	return nil
}

// WriteOne writes to out the report of the connection a graph verb chose
// (v): every connection of v's capture is listed, under label, and v's
// connection opens in v's direction, scrolled to panel (Options.Focus) and,
// when v has a window (--from/--to, or a reference point after the
// connection's first packet), zoomed to it. Errors: as WriteFile.
func WriteOne(out string, v *query.View, label, panel string, stdout io.Writer) error {
	pick := Pick{Conn: v.Conn.Conn.Index, Dir: v.Dir}
	o := Options{Open: &pick, Focus: panel, PathRTT: v.PathRTT}
	if sel := v.Sel; sel.From > 0 || sel.To > 0 || v.Ref != v.Conn.Conn.First {
		// Open zoomed to the window, on the report's axis (seconds since
		// the connection's first packet).
		lo, hi, _ := v.Span(v.Conn, v.Dir)
		o.X = &[2]float64{v.ConnS(lo), v.ConnS(hi)}
	}
	return WriteFile(out, []Capture{{Label: label, Report: v.Report}}, o, stdout)
}

// WriteCompare writes to out the report of compare's runs opened in compare
// mode, each run under its label, aligned at align (syn, data or bulk) as
// 'tcpviz compare' aligns them, and zoomed to the runs' --from/--to window.
// The picker lists the compared connections; a pair run adds its server
// side, drawn dashed in its colour. pathRTT is compare's --path-rtt (0:
// unknown), evidence for the PEP verdicts as in compare's table.
// Errors: as WriteFile.
func WriteCompare(out string, runs []compare.Run, align string, pathRTT time.Duration, stdout io.Writer) error {
	var caps []Capture
	var picks []Pick
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
		// The run's connection alone, with its capture's link-layer
		// evidence: the PEP verdict is the run's (compare.Run.LinkOwn).
		rep := &tcpanalysis.Report{File: r.File, Start: start, Conns: []*tcpanalysis.ConnResult{r.Result}, LinkOwn: r.LinkOwn, LinkOwnCut: r.LinkOwnCut}
		caps = append(caps, Capture{Label: r.Label, Report: rep})
		// Aligned where compare aligns it; a run that fell back to another
		// reference point names it in its label (trial14 C12).
		label := r.Label
		if r.RefUsed.String() != align {
			label += " (aligned at " + r.RefUsed.Describe() + ")"
		}
		e2e := r.EndToEndKbps()
		if !r.OwnNumbers() {
			e2e = math.NaN() // "–", as compare's summary (a relay's, an overhearer's)
		}
		picks = append(picks, Pick{Capture: len(caps) - 1, Conn: r.Result.Conn.Index, Dir: r.Dir, Label: label, At: r.Ref, EndToEndKbps: e2e})
		if r.Server != nil && r.Server.Series != nil {
			// The server side of a pair: what was delivered end to end,
			// aligned where the client side is (one clock).
			srv := &tcpanalysis.Report{File: r.ServerFile, Start: srvStart, Conns: []*tcpanalysis.ConnResult{r.Server}}
			caps = append(caps, Capture{Label: r.Label + " server side", Report: srv})
			client := len(picks) - 1
			picks = append(picks, Pick{Capture: len(caps) - 1, Conn: r.Server.Conn.Index, Dir: r.Dir, Label: r.Label + " server side (delivered end to end)", At: r.Ref, HalfOf: &client})
		}
	}
	o := Options{Compare: picks, Align: align, Title: "tcpviz compare: " + compare.JoinLabels(runs), PathRTT: pathRTT}
	if r := runs[0]; r.Windowed() { // open zoomed to --from/--to (since each run's reference point)
		hi := r.To
		if hi <= 0 {
			for _, r := range runs {
				hi = max(hi, compare.End(r).Sub(r.Ref))
			}
		}
		o.X = &[2]float64{r.From.Seconds(), hi.Seconds()}
	}
	return WriteFile(out, caps, o, stdout)
}

// DemoCapture is one capture shipped with tcpviz, written out by 'tcpviz
// demo': its name in testdata/ and the file it was written to.
type DemoCapture struct{ Name, Path string }

// demoPEP labels the satellite testbed's 20 KB-window client captures
// without and with the PEP, which WriteDemo compares.
var demoPEP = map[string]string{
	"testdata/sat/pep-off_window-20KB/client.pcap": "no PEP",
	"testdata/sat/pep-on_window-20KB/client.pcap":  "PEP",
}

// WriteDemo writes demo's interactive reports into dir: report.html with
// every shipped capture (every series kept), and compare-pep.html with the
// satellite testbed's 20 KB-window runs without and with the PEP in
// compare mode, each at its largest connection and data direction (query's
// rules). It prints each path on stdout and, on stderr, which file to open
// first. Errors: a capture that cannot be read (naming it), as WriteFile.
func WriteDemo(dir string, caps []DemoCapture, stdout, stderr io.Writer) error {
	var all []Capture
	var pep []Pick
	for i, c := range caps {
		rep, err := tcpanalysis.AnalyzeFile(c.Path, tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			return fmt.Errorf("demo capture %s: %w", c.Name, err)
		}
		rep.File = c.Name
		all = append(all, Capture{Label: strings.TrimPrefix(c.Name, "testdata/"), Report: rep})
		if label := demoPEP[c.Name]; label != "" {
			r, err := query.All().Pick(rep)
			if err != nil {
				return err
			}
			pep = append(pep, Pick{Capture: i, Conn: r.Conn.Index, Dir: query.Auto.Of(r), Label: label})
		}
	}
	first := filepath.Join(dir, "report.html")
	if err := WriteFile(first, all, Options{Title: "tcpviz demo: the shipped captures"}, stdout); err != nil {
		return err
	}
	if len(pep) == 2 {
		if err := WriteFile(filepath.Join(dir, "compare-pep.html"), all, Options{Title: "tcpviz demo: satellite link, 20 KB window, without and with a PEP", Compare: pep}, stdout); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "open %s first: every connection of every shipped capture, zoomable; then compare-pep.html\n", first)
	return nil
}
