package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// selFlags are the selection flags every per-connection verb shares, with
// the same names, vocabulary and checks (package query).
type selFlags struct {
	conn     int
	port     int
	host     string
	dir      string
	ref      string
	from, to time.Duration
}

// register adds --conn, --port, --host, --dir, --ref, --from and --to;
// defRef is the verb's default reference point.
func (f *selFlags) register(c *cobra.Command, defRef query.Ref) {
	c.Flags().IntVar(&f.conn, "conn", -1, "connection index (as listed by 'tcpviz flows'); default: the matching one that carried most payload bytes")
	f.registerNoConn(c, defRef)
}

// registerNoConn registers the selection flags but --conn, for verbs that
// take the connection with each file (compare: LABEL=FILE#N).
func (f *selFlags) registerNoConn(c *cobra.Command, defRef query.Ref) {
	f.conn = -1
	fl := c.Flags()
	fl.IntVar(&f.port, "port", 0, "only connections with this port on either side")
	fl.StringVar(&f.host, "host", "", "only connections with this address on either side")
	fl.StringVar(&f.dir, "dir", "auto", "data direction: "+query.DirNames+" (the direction that delivered more bytes); a = the SYN sender")
	fl.StringVar(&f.ref, "ref", defRef.String(), "reference point --from/--to count from: syn (connection's first packet), data (first data segment) or bulk (first segment with ≥ 512 B payload)")
	secondsVar(fl, &f.from, "from", 0, "start of the time range after --ref: seconds (84.5) or a duration (700ms)")
	secondsVar(fl, &f.to, "to", 0, "end of the time range after --ref: seconds or a duration (0: the end)")
}

// selection checks every selection flag, before any capture is read.
func (f *selFlags) selection() (query.Selection, error) {
	sel := query.All()
	sel.Conn = f.conn
	sel.Port = uint16(f.port) // numRules: 1-65535 when set
	var err error
	if sel.Host, err = query.ParseHost(f.host); err != nil {
		return sel, fmt.Errorf("--host: %w", err)
	}
	if sel.Dir, err = query.ParseDir(f.dir); err != nil {
		return sel, fmt.Errorf("--dir: %w", err)
	}
	if sel.Ref, err = query.ParseRef(f.ref); err != nil {
		return sel, fmt.Errorf("--ref: %w", err)
	}
	sel.From, sel.To = f.from, f.to
	if err := sel.Validate(); errors.Is(err, query.ErrRange) {
		return sel, fmt.Errorf("--from %g --to %g: %w", f.from.Seconds(), f.to.Seconds(), err)
	} else if err != nil {
		return sel, fmt.Errorf("--conn %d: %w", f.conn, err)
	}
	return sel, nil
}

// intervalError names --interval in an error of
// query.Selection.CheckInterval.
func intervalError(w time.Duration, err error) error {
	return fmt.Errorf("--interval %v: %w", w, err)
}

// view analyses one capture through sel, prints its warnings, and says
// which connection it chose when the user did not name one (every verb
// reads that one connection; note is no longer consulted).
func (e *env) view(path string, af *analysisFlags, sel query.Selection, o query.Options, note bool) (*query.View, error) {
	return e.viewAs(path, af, sel, o, "--conn")
}

// viewAs is view for a verb that names a connection as how N (compare:
// "FILE#"), in the note on which connection it read.
func (e *env) viewAs(path string, af *analysisFlags, sel query.Selection, o query.Options, how string) (*query.View, error) {
	opts, err := af.options()
	if err != nil {
		return nil, err
	}
	o.Analysis, o.AnalyzeFile = opts, e.analyzeFile
	o.Name = displayName(path)
	p, err := e.input(path) // "-": spooled once for the run
	if err != nil {
		return nil, err
	}
	v, err := query.Analyze(p, sel, o)
	if err != nil {
		return nil, inputError(err)
	}
	e.warn(v.Warnings)
	if n := v.NoteAs(how); n != "" {
		fmt.Fprintln(e.stderr, n)
	}
	warnNoData(e.stderr, v)
	return v, nil
}

// warnNoData warns when the direction read (--dir) carried no payload
// while the other did: its seq figure and window show only ACKs, the
// window and SYN/FIN, which reads as a connection without data unless told
// (tput and retrans said "draws nothing", seq and window nothing).
func warnNoData(w io.Writer, v *query.View) {
	r, d := v.Conn, v.Dir
	if r.Dir[d].Bytes == 0 && r.Dir[d.Reverse()].Bytes > 0 {
		fmt.Fprintf(w, "warning: %s conn %d: direction %s carries no data (0 payload bytes; %s carried %d; --dir %s for the data)\n",
			v.File, r.Conn.Index, d, d.Reverse(), r.Dir[d.Reverse()].Bytes, d.Reverse())
	}
}

// displayName is how messages and outputs name a capture: "stdin" for
// "-" and for its spool (env.input; the default output names and figure
// titles say stdin too), else its path.
func displayName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return capture.FileName(path)
}

// outKind is what -o asks for, from its extension.
type outKind uint8

const (
	outNone  outKind = iota // no -o: the table (or rows with --csv/--json)
	outRows                 // .csv or .json
	outImage                // .png, .svg or .pdf
	outHTML                 // .html: the interactive report (package report)
)

// checkOut classifies -o before any capture is read; images says whether
// the verb draws figures.
func checkOut(out string, images bool) (outKind, error) {
	if out == "" {
		return outNone, nil
	}
	ext := strings.ToLower(filepath.Ext(out))
	switch {
	case ext == ".csv" || ext == ".json":
		return outRows, nil
	case images && ext == ".html":
		return outHTML, nil
	case images && plot.FormatOf(out) != "":
		return outImage, nil
	case images:
		return 0, fmt.Errorf("-o %s: unknown output format %q: use .png, .svg, .pdf, .csv, .json or .html", out, ext)
	}
	return 0, fmt.Errorf("-o %s: unknown output format %q: use .csv or .json", out, ext)
}

// defaultOut names an output written next to the current directory when
// -o is not given: the capture's directory and name, so that client.pcap
// of two runs (runs/a/client.pcap, runs/b/client.pcap) do not overwrite
// each other: a_client.pcap.conn1.ab.seq.png.
func defaultOut(path string, conn int, dir fmt.Stringer, kind string) string {
	if path == "-" {
		return fmt.Sprintf("stdin.conn%d.%s.%s.png", conn, dir, kind)
	}
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".zst")
	// The directory from the absolute path: the same name however the
	// path is written (full.pcap in h/, h/full.pcap, ./h/../h/full.pcap).
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	if d := filepath.Base(filepath.Dir(abs)); d != "." && d != string(filepath.Separator) && d != ".." {
		base = d + "_" + base
	}
	return fmt.Sprintf("%s.conn%d.%s.%s.png", base, conn, dir, kind)
}
