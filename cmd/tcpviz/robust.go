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
// the ending is one the verb writes, an existing target is a writable
// regular file (or a link to one), and no output is a file the verb reads
// (refuseInputs) or another output.
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
	}
	return refuseInputs(outputPaths(c), argInputs(c, args))
}

// output is a file a verb writes and the flag that names it.
type output struct{ flag, path string }

// outputPaths returns the files the file flags of c write: --tables-csv
// PREFIX writes PREFIX.groups.csv and PREFIX.pairs.csv, --plot NAME.EXT
// also NAME.pairs.EXT.
func outputPaths(c *cobra.Command) []output {
	var out []output
	for _, ff := range fileFlags {
		f := c.Flags().Lookup(ff.name)
		if f == nil || f.Value.Type() != "string" || f.Value.String() == "" || f.Value.String() == "-" {
			continue
		}
		p := f.Value.String()
		switch ff.name {
		case "tables-csv":
			out = append(out, output{ff.name, p + ".groups.csv"}, output{ff.name, p + ".pairs.csv"})
		case "plot":
			ext := filepath.Ext(p)
			out = append(out, output{ff.name, p}, output{ff.name, strings.TrimSuffix(p, ext) + ".pairs" + ext})
		default:
			out = append(out, output{ff.name, p})
		}
	}
	return out
}

// input is a file a verb reads, and what it is to the verb.
type input struct{ path, what string }

// argInputs returns the files a verb reads that its arguments and flags
// name: each argument that is a file (compare's LABEL=FILE[#conn] and
// LABEL=CLIENT+SERVER: each FILE), and goodput's --starts and --manifest.
// Directories are left to the verb (goodput: study.Options.CheckInputs).
func argInputs(c *cobra.Command, args []string) []input {
	var in []input
	isFile := func(p string) bool { st, err := os.Stat(p); return err == nil && !st.IsDir() }
	for _, a := range args {
		if isFile(a) {
			in = append(in, input{a, "input"})
			continue
		}
		_, spec, ok := strings.Cut(a, "=")
		if !ok {
			continue
		}
		for _, p := range strings.Split(spec, "+") {
			if i := strings.LastIndexByte(p, '#'); i > 0 && !isFile(p) {
				p = p[:i]
			}
			if isFile(p) {
				in = append(in, input{p, "input"})
			}
		}
	}
	for _, name := range []string{"starts", "manifest", "routing-hook"} {
		if f := c.Flags().Lookup(name); f != nil && f.Value.String() != "" {
			in = append(in, input{f.Value.String(), "--" + name + " file"})
		}
	}
	return in
}

// refuseInputs returns an error when an output is one of the inputs
// (os.SameFile: the path spelled otherwise, a symlink or a hard link
// included) — writing it would replace what the run reads, as 'goodput
// copyA -o copyA/groundtruth-all.csv' did — or when two outputs are one
// file.
func refuseInputs(outs []output, ins []input) error {
	for i, o := range outs {
		ost, err := os.Stat(o.path)
		for _, in := range ins {
			if err != nil {
				break // a file that does not exist is no input
			}
			if ist, err := os.Stat(in.path); err == nil && os.SameFile(ost, ist) {
				same := ""
				if filepath.Clean(in.path) != filepath.Clean(o.path) {
					same = " (" + in.path + ")"
				}
				return fmt.Errorf("--%s %s is the %s this run reads%s: writing it would replace it; write elsewhere", o.flag, o.path, in.what, same)
			}
		}
		for _, p := range outs[:i] {
			if samePath(p.path, o.path) {
				return fmt.Errorf("--%s %s and --%s %s are one file: write them to two", p.flag, p.path, o.flag, o.path)
			}
		}
	}
	return nil
}

// samePath reports whether a and b name one file: os.SameFile when both
// exist, else their absolute clean paths are equal.
func samePath(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
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
