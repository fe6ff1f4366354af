package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/stats"
	"github.com/tcpviz/tcpviz/study"
)

// goodputFlags are the flags of goodput and stats: the library's options
// (study.Options) and the outputs.
type goodputFlags struct {
	o             study.Options
	dir           string
	asCSV, asJSON bool
	parquetOut    string
	out           string
	tables        string
	tablesCSV     string
	cmd           *cobra.Command // the verb, for its output flags (outputPaths)
}

func (f *goodputFlags) registerTables(c *cobra.Command) {
	t := &f.o.Tables
	c.Flags().StringVar(&t.PerRun, "per-run", "sum", "per-run goodput: sum (total of the run's flows, as the MANET study) or mean (per flow)")
	c.Flags().StringVar(&t.Group, "group", "", "label to group runs by for the per-group table (e.g. protocol)")
	c.Flags().StringVar(&t.Pair, "pair", "", "label that pairs runs across groups for the paired table (e.g. seed)")
	c.Flags().Float64Var(&t.Level, "level", 0.95, "confidence level of the t intervals")
	c.Flags().StringVar(&f.tables, "tables", "", "write the Markdown tables to this file (default: standard output after the rows, or standard error when the rows are CSV/JSON on standard output)")
	c.Flags().StringVar(&f.tablesCSV, "tables-csv", "", "also write the tables as PREFIX.groups.csv and PREFIX.pairs.csv (one decimal, ASCII)")
	c.Flags().StringVar(&t.Plot, "plot", "", "with --group: write the mean per group with CI whiskers and per-run points to this figure (.png, .svg, .pdf); with --pair also the paired differences to NAME.pairs.EXT")
	c.Flags().StringVar(&t.TeX, "tables-tex", "", "with --group: write the tables as booktabs LaTeX (\\usepackage{booktabs}) to this file")
	c.Flags().StringSliceVar(&t.Order, "order", nil, "order of the groups in tables and figures, and of each comparison (first − second), e.g. anthocnet,olsr,dsdv,aodv; groups not named follow sorted")
	c.Flags().StringSliceVar(&t.Pairs, "pairs", nil, "with --pair: only these comparisons, in this order, each FIRST:SECOND (difference first − second), e.g. anthocnet:aodv,olsr:aodv,dsdv:aodv,anthocnet:olsr")
}

func newGoodputCmd(e *env) *cobra.Command {
	var f goodputFlags
	c := &cobra.Command{
		Use:     "goodput PATH...",
		Short:   "batch goodput per flow over a campaign of captures, with per-group CIs and paired tests",
		Long:    help("goodput.txt"),
		Example: help("goodput.examples.txt"),
		Args:    named(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			alias, note := statsAlias(args)
			if note != "" {
				fmt.Fprintln(e.stderr, note)
			}
			if alias {
				return runStats(e, &f, args[1:])
			}
			return runGoodput(e, &f, args)
		},
	}
	f.cmd = c
	fl := c.Flags()
	o := &f.o
	fl.StringVar(&o.Labels, "labels", "", "label pattern matched against the end of each path, e.g. '{protocol}/run{seed}/{prefix}-{node}-{dev}.pcap'")
	fl.StringVar(&o.Manifest, "manifest", "", "CSV with a 'file' column and one column per label")
	fl.IntVar(&o.Port, "port", 0, "only flows with this port on either side")
	fl.StringVar(&f.dir, "dir", "auto", "data direction per connection: "+query.DirNames+" (the one that delivered more); a = the SYN sender")
	fl.Int64Var(&o.MinBytes, "min-bytes", -1, "leave out flows that delivered fewer goodput bytes in all; default (auto): fewer than 1024 B in a closed connection (control connections such as iperf3's); flows declared by ground truth or --starts are kept")
	fl.Float64Var(&o.End, "end", 0, "end every flow's goodput interval at this capture time in seconds since the epoch (the simulation end for ns-3); default: the application's stop, else its close, else the run's last frame")
	fl.BoolVar(&f.asCSV, "csv", false, "write rows as CSV (schema "+export.GoodputSchema+")")
	fl.BoolVar(&f.asJSON, "json", false, "write rows as JSON")
	fl.StringVar(&f.parquetOut, "parquet", "", "also write the rows as Parquet to this file")
	fl.StringVarP(&f.out, "output", "o", "", "write the rows to this file (atomically) instead of standard output; .csv or .json choose the format unless --csv or --json does")
	fl.IntVar(&o.Jobs, "jobs", 0, "captures analysed at once (default: all cores)")
	fl.StringVar(&o.Starts, "starts", "", "CSV of application start times per flow (src|src_ip, sport|src_port, dst|dst_ip, dport|dst_port, start_s, label columns): goodput intervals start there, e.g. ns-3's groundtruth-all.csv with --starts-rename run=seed")
	fl.StringArrayVar(&o.StartsRename, "starts-rename", nil, "rename a --starts column to a label name, e.g. run=seed (repeatable)")
	fl.StringVar(&o.Interval, "interval", "", "one goodput interval START:END (capture seconds) for every flow, e.g. 10:100; overrides --starts, --end and the ground truth")
	fl.BoolVar(&o.NoGroundTruth, "no-groundtruth", false, "do not read the testbed's ground truth next to the captures (ns-3: PREFIX-groundtruth.csv, groundtruth-all.csv, PREFIX-config.txt)")
	fl.DurationVar(&o.PathRTT, "path-rtt", 0, "the end-to-end RTT of every flow's path if known (e.g. 600ms): decides whether a split-TCP PEP acknowledged each flow in its capture (vantage pep, pep?; docs/metrics.md#pep)")
	fl.StringVar(&o.Shard, "shard", "", "analyse only part i of n of the runs (i/n, 1-based), e.g. a Slurm array task; merge with 'tcpviz stats'")
	f.registerTables(c)
	e.addFigFlags(c)
	return c
}

// runGoodput is goodput: flags → study.Options → study.Goodput → the
// warnings, the rows, the tables.
func runGoodput(e *env, f *goodputFlags, args []string) error {
	if f.asCSV && f.asJSON {
		return fmt.Errorf("choose one of --csv and --json")
	}
	if err := formatAgrees(f.out, f.asCSV, f.asJSON); err != nil {
		return err
	}
	// -o chooses the format by its extension unless a flag did, as in flows.
	if ext := strings.ToLower(filepath.Ext(f.out)); !f.asCSV && !f.asJSON {
		f.asCSV, f.asJSON = ext == ".csv", ext == ".json"
	}
	dir, err := query.ParseDir(f.dir)
	if err != nil {
		return fmt.Errorf("--dir: %w", err)
	}
	if err := f.checkParquetName(); err != nil {
		return err
	}
	f.o.Dir, f.o.Tables.Name, f.o.ShowPath = dir, e.campaignName(args), e.shownPath
	outs := outputPaths(f.cmd)
	f.o.CheckInputs = func(ins []study.Input) error {
		var in []input
		for _, i := range ins {
			in = append(in, input{i.Path, i.Kind.String()})
		}
		return refuseInputs(outs, in)
	}
	var bar *progressbar.ProgressBar
	if fd, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
		f.o.Progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(e.stderr), progressbar.OptionSetDescription("captures"),
					progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
			}
			bar.Set(done)
		}
	}
	out, err := study.Goodput(e.ctx, args, f.o)
	if bar != nil {
		bar.Finish()
	}
	printWarnings(e.stderr, out.Warnings)
	if err != nil {
		return goodputErr(err)
	}
	if err := f.writeRows(e, out); err != nil {
		return err
	}
	if out.Tables != nil {
		if err := f.writeTables(e, out); err != nil {
			return err
		}
	}
	if res := out.Result; len(res.Failed) > 0 {
		return &exitError{code: 3, err: fmt.Errorf("partial: %d of %s failed", len(res.Failed), count(len(res.Files), "capture"))}
	}
	return nil
}

func (f *goodputFlags) writeRows(e *env, out *study.Outcome) error {
	rows, labelNames := out.Rows, out.LabelNames
	write := func(w io.Writer) error {
		switch {
		case f.asJSON:
			warned := map[string][]string{}
			for _, fw := range out.Result.Warnings {
				warned[fw.File] = fw.Warnings
			}
			return export.WriteGoodputJSON(w, rows, labelNames, warned)
		case f.asCSV:
			return export.WriteGoodputCSV(w, rows, labelNames)
		}
		if isMarkdown(f.out) {
			return fenced(w, func(w io.Writer) error { return export.WriteGoodputTable(w, rows, labelNames) })
		}
		return export.WriteGoodputTable(w, rows, labelNames)
	}
	if f.parquetOut != "" {
		if err := writeFileAtomic(f.parquetOut, func(file *os.File) error { return export.WriteGoodputParquet(file, rows, labelNames) }); err != nil {
			return err
		}
	}
	if f.out != "" {
		return writeFileAtomic(f.out, func(file *os.File) error { return write(file) })
	}
	return write(e.stdout)
}

// writeTables writes the study's tables as Markdown (and CSV, LaTeX,
// figures as the flags ask), after the warnings that go with them.
func (f *goodputFlags) writeTables(e *env, out *study.Outcome) error {
	printWarnings(e.stderr, out.TableWarnings)
	var w io.Writer = e.stdout
	if f.out == "" && (f.asCSV || f.asJSON) {
		w = e.stderr
	}
	var notes []string
	for _, n := range out.Notes {
		notes = append(notes, n.Message(flagName))
	}
	md := func(w io.Writer) error { return study.WriteMarkdown(w, out.Spec, out.Tables, out.Runs, notes) }
	if f.tables != "" {
		if err := writeFileAtomic(f.tables, func(file *os.File) error { return md(file) }); err != nil {
			return err
		}
	} else if err := md(w); err != nil {
		return err
	}
	if f.tablesCSV != "" {
		if err := writeFileAtomic(f.tablesCSV+".groups.csv", func(file *os.File) error { return stats.WriteGroupsCSVRounded(file, out.Tables.Groups) }); err != nil {
			return err
		}
		if f.o.Tables.Pair != "" {
			if err := writeFileAtomic(f.tablesCSV+".pairs.csv", func(file *os.File) error { return stats.WritePairsCSVRounded(file, out.Tables.Pairs) }); err != nil {
				return err
			}
		}
	}
	return e.writeStudy(f, out)
}

// newStatsCmd merges per-flow CSVs (for example the shards of a cluster
// run) and prints the tables.
func newStatsCmd(e *env) *cobra.Command {
	var f goodputFlags
	c := &cobra.Command{
		Use:     "stats FILE...",
		Short:   "merge per-flow goodput CSVs (e.g. shards of 'goodput --shard') and print the per-group and paired tables",
		Long:    help("stats.txt"),
		Example: help("stats.examples.txt"),
		Args:    named(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStats(e, &f, args)
		},
	}
	f.registerTables(c)
	e.addFigFlags(c)
	return c
}

// runStats is stats: flags → study.TableOptions → study.Stats → the
// warnings and the tables.
func runStats(e *env, f *goodputFlags, args []string) error {
	f.o.Tables.Name = e.campaignName(args)
	out, err := study.Stats(args, f.o.Tables)
	printWarnings(e.stderr, out.Warnings)
	if err != nil {
		return goodputErr(err)
	}
	return f.writeTables(e, out)
}
