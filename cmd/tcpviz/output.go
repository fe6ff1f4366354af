package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/plot"
)

// rowFlags are the output flags of the per-analysis verbs.
type rowFlags struct {
	out       string
	csv, json bool
}

func (f *rowFlags) register(c *cobra.Command) {
	c.Flags().StringVarP(&f.out, "output", "o", "", "output file: .png, .svg or .pdf (the figure of one connection), .csv or .json (the rows), .html (the interactive report)")
	c.Flags().BoolVar(&f.csv, "csv", false, "write the rows as CSV to standard output instead of the summary table")
	c.Flags().BoolVar(&f.json, "json", false, "write the rows as JSON to standard output instead of the summary table")
}

// check validates the output flags before any capture is read.
func (f *rowFlags) check() (outKind, error) {
	if f.csv && f.json {
		return 0, fmt.Errorf("choose one of --csv and --json")
	}
	if err := stdoutOrFile(f.out, f.csv, f.json); err != nil {
		return 0, err
	}
	return checkOut(f.out, true)
}

// formatAgrees refuses a format flag that contradicts -o's extension
// (flows and goodput, where -o names the file and --csv/--json the
// format): --csv -o x.json wrote CSV into a .json file.
func formatAgrees(out string, asCSV, asJSON bool) error {
	switch ext := strings.ToLower(filepath.Ext(out)); {
	case asCSV && ext == ".json", asJSON && ext == ".csv":
		flag := "--csv"
		if asJSON {
			flag = "--json"
		}
		return fmt.Errorf("-o %s and %s: the extension names another format; drop the flag or change the extension", out, flag)
	}
	return nil
}

// stdoutOrFile refuses --csv or --json beside an -o out of another
// format: the rows go to standard output, or to -o FILE.csv/.json, and a
// figure (-o x.png) is not drawn from rows streamed to standard output
// (rtt drew an empty one; window, tput and retrans ignored --csv). A flag
// that names -o's own format (--csv -o x.csv) is -o's, as in flows and
// goodput. Every verb with both flags says so the same way.
func stdoutOrFile(out string, asCSV, asJSON bool) error {
	if out == "" || !asCSV && !asJSON {
		return nil
	}
	if ext := strings.ToLower(filepath.Ext(out)); asCSV && ext == ".csv" || asJSON && ext == ".json" {
		return nil
	}
	return fmt.Errorf("-o %s and --csv/--json: the rows go to standard output, or to -o FILE.csv/.json; give one", out)
}

// wantRows reports whether the output is the rows (CSV/JSON), so that a
// verb builds them only then: on a large capture they are millions.
func (f *rowFlags) wantRows() bool {
	k, _ := checkOut(f.out, true)
	return f.csv || f.json || k == outRows
}

// saver is a figure: plot.Figure or plot.GridFigure.
type saver interface {
	Save(w io.Writer, format string) error
}

// warnEmpty says that the figure written to out draws nothing: no sample,
// segment or ACK of the connection in the selection (the figure is still
// written, with its title and axes, so that a batch finds every file).
func (e *env) warnEmpty(out string) {
	fmt.Fprintf(e.stderr, "warning: %s draws nothing: the connection has nothing of this kind in the selection (an empty range, or no samples)\n", out)
}

// writeFigure writes the figure p to out (atomically) and prints out; a
// figure that lists nothing drawn (plot.Figure.Legend) is still written,
// with a warning (warnEmpty). Every figure-writing verb but seq (which
// streams its points, seq.go) goes through it.
func (e *env) writeFigure(out string, p saver) error {
	if pf, ok := p.(plot.Figure); ok && len(pf.Legend) == 0 && !pf.Drawn {
		e.warnEmpty(out)
	}
	if err := writeFileAtomic(out, func(fh *os.File) error { return e.saveFigure(fh, p, plot.FormatOf(out)) }); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, out)
	return nil
}

// emit writes rows (CSV/JSON to -o or standard output), a figure (-o with
// an image extension) or the summary table.
func (e *env) emit(f *rowFlags, t export.Table, fig func() (saver, error)) error {
	ext := strings.ToLower(filepath.Ext(f.out))
	switch {
	case f.out != "" && (ext == ".csv" || ext == ".json"):
		if err := writeFileAtomic(f.out, func(fh *os.File) error { return t.WriteRows(fh, ext == ".json") }); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, f.out)
		return nil
	case f.out != "":
		p, err := fig()
		if err != nil {
			return err
		}
		return e.writeFigure(f.out, p)
	case f.csv || f.json:
		return t.WriteRows(e.stdout, f.json)
	}
	return export.WriteColumns(e.stdout, t.Summary, !t.KeyValue)
}

// named is v with the verb named in its error: cobra's "accepts 1 arg(s),
// received 2" does not say which command said it.
func named(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := v(c, args); err != nil {
			return fmt.Errorf("%s: %w (see 'tcpviz %s --help')", c.Name(), err, c.Name())
		}
		return nil
	}
}
