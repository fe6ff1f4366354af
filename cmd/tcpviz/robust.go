package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/internal/atomicfile"
	"github.com/tcpviz/tcpviz/internal/interrupt"
)

// failedPaths returns the paths of fs.
func failedPaths(fs []campaign.FileError) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.File
	}
	return out
}

// writeFileAtomic is atomicfile.Write: outputs are replaced whole, and
// not at all after a signal (internal/interrupt).
var writeFileAtomic = atomicfile.Write

// outputExts are the file endings each verb writes with --output; for verbs
// not listed the verb itself checks the ending.
var outputExts = map[string][]string{
	"flows":   {".csv", ".json", ".txt", ".md", ""},
	"goodput": {".csv", ".json", ".txt", ".md", ""},
	"compare": {".png", ".svg", ".pdf", ".csv", ".html"},
	"report":  {".html"},
	"pep":     {".csv"},
	"seq":     {".png", ".svg", ".pdf", ".html", ".csv", ".json"},
	"rtt":     {".png", ".svg", ".pdf", ".html", ".csv", ".json"},
	"retrans": {".png", ".svg", ".pdf", ".html", ".csv", ".json"},
	"window":  {".png", ".svg", ".pdf", ".html", ".csv", ".json"},
	"tput":    {".png", ".svg", ".pdf", ".html", ".csv", ".json"},
}

// fileFlags are the flags of any verb that name a file it writes, with the
// endings accepted (nil: any; --output: outputExts of the verb) and the
// suffix the verb appends (--tables-csv is a prefix).
var fileFlags = []struct {
	name   string
	exts   []string
	suffix string
}{
	{name: "output"},
	{name: "parquet"},
	{name: "tables"},
	{name: "tables-csv", suffix: ".groups.csv"},
	{name: "tables-tex"},
	{name: "plot", exts: []string{".png", ".svg", ".pdf"}},
	{name: "write"},
}

// checkOutputs is the root command's PersistentPreRunE. It notes a live
// capture (-i), for the signal handler (interrupt.Live); it refuses NaN, ±Inf and negative
// values of the numeric flags (checkNumFlags); and before any analysis it
// checks every file flag (fileFlags): the directory exists and is writable,
// the ending is one the verb writes, and an existing target is a writable
// regular file (or a link to one).
func checkOutputs(c *cobra.Command, args []string) error {
	if f := c.Flags().Lookup("interface"); f != nil && f.Value.String() != "" {
		interrupt.Live.Store(true) // a signal ends the capture, not the run
	}
	if err := checkNumFlags(c); err != nil { // numflags.go: NaN, ±Inf and ranges
		return err
	}
	for _, n := range flagNeeds { // a flag that means nothing without another
		if f := c.Flags().Lookup(n.flag); f != nil && f.Changed && !c.Flags().Changed(n.needs) {
			return fmt.Errorf("--%s needs --%s (%s)", n.flag, n.needs, n.why)
		}
	}
	for _, ff := range fileFlags {
		name := ff.name
		f := c.Flags().Lookup(name)
		if f == nil || f.Value.Type() != "string" {
			continue
		}
		p := f.Value.String()
		if p == "" || p == "-" {
			continue
		}
		exts := ff.exts
		if name == "output" {
			exts = outputExts[c.Name()]
		}
		if ext := strings.ToLower(filepath.Ext(p)); exts != nil && !slices.Contains(exts, ext) {
			names := strings.ReplaceAll(strings.Join(exts, " "), "  ", " ")
			if slices.Contains(exts, "") {
				names = strings.TrimSpace(names) + " or no ending"
			}
			return fmt.Errorf("--%s %s: unknown ending %q; %s writes %s", name, p, ext, c.Name(), names)
		}
		target, err := atomicfile.Target(p + ff.suffix)
		if err != nil {
			return err
		}
		if err := atomicfile.CheckDir(filepath.Dir(target)); err != nil {
			return fmt.Errorf("--%s %s: %w", name, p, err)
		}
		if in, ok := readsFile(c, args, target); ok {
			return fmt.Errorf("--%s %s: that is %s, an input of this run: writing it would destroy what is read; choose another file", name, p, in)
		}
	}
	return nil
}

// inputFlags are the flags of any verb that name a file it reads.
var inputFlags = []string{"starts", "manifest", "routing-hook"}

// readsFile reports whether target is a file the command reads, named on
// its command line: a positional argument (compare's LABEL=FILE#CONN too)
// or an input flag (inputFlags), and how the command line names it. Files
// are compared by identity (os.SameFile: another spelling, a hard or
// symbolic link), not by name; a target that does not exist is no input.
// Directories given as arguments are not searched: the batch verbs check
// the captures they list themselves.
func readsFile(c *cobra.Command, args []string, target string) (string, bool) {
	out, err := os.Stat(target)
	if err != nil || !out.Mode().IsRegular() {
		return "", false
	}
	same := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && st.Mode().IsRegular() && os.SameFile(st, out)
	}
	for _, a := range args {
		cands := []string{a}
		if _, f, ok := strings.Cut(a, "="); ok { // compare's LABEL=FILE
			cands = append(cands, f)
		}
		for _, p := range cands {
			if i := strings.LastIndex(p, "#"); i > 0 { // FILE#CONN
				cands = append(cands, p[:i])
			}
		}
		for _, p := range cands {
			if same(p) {
				return p, true
			}
		}
	}
	for _, n := range inputFlags {
		if f := c.Flags().Lookup(n); f != nil && f.Value.String() != "" && same(f.Value.String()) {
			return "--" + n + " " + f.Value.String(), true
		}
	}
	return "", false
}

// flagNeeds are the flags that a verb would silently ignore without
// another; the -i flags of live.go are checked there. (--path-rtt needs
// no --pep: it is evidence for the PEP verdict behind every note, mark
// and row, docs/metrics.md#pep.)
var flagNeeds = []struct{ flag, needs, why string }{
	{"two-ifaces", "pep", "it names the sides of a PEP"},
}

// maxConnNotes is how many connections a per-connection note is printed
// for, one line each; past it the note is one line with a count.
const maxConnNotes = 5

// printConnNotes prints what (a note of kind "note" or "warning") for the
// connections conns of the capture path: one line per connection for a few,
// else one line with their count and the first indices, so that a flood of
// a million connections prints one line, not a million.
func printConnNotes(w io.Writer, kind, path string, conns []int, what string) {
	if len(conns) <= maxConnNotes {
		for _, c := range conns {
			fmt.Fprintf(w, "%s: %s conn %d: %s\n", kind, path, c, what)
		}
		return
	}
	fmt.Fprintf(w, "%s: %s: %d connections (%s): %s\n", kind, path, len(conns), connList(conns[:3], true), what)
}
