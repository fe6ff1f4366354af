package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/stats"
	"github.com/tcpviz/tcpviz/study"
)

type goodputFlags struct {
	labels, manifest string
	port             int
	dir              string
	minBytes         int64
	end              float64
	perRun           string
	group, pair      string
	level            float64
	asCSV, asJSON    bool
	parquetOut       string
	out              string
	tables           string
	tablesCSV        string
	jobs             int
	shard            string
	starts           string
	startsRename     []string
	interval         string
	noGroundTruth    bool
	notes            []string                // printed after the tables
	warned           []campaign.FileWarnings // the reader's warnings per capture (JSON "capture_warnings")
	study            studyFlags              // --plot, --tables-tex, --order (goodput_fig.go)
}

func (f *goodputFlags) registerTables(c *cobra.Command) {
	c.Flags().StringVar(&f.perRun, "per-run", "sum", "per-run goodput: sum (total of the run's flows, as the MANET study) or mean (per flow)")
	c.Flags().StringVar(&f.group, "group", "", "label to group runs by for the per-group table (e.g. protocol)")
	c.Flags().StringVar(&f.pair, "pair", "", "label that pairs runs across groups for the paired table (e.g. seed)")
	c.Flags().Float64Var(&f.level, "level", 0.95, "confidence level of the t intervals")
	c.Flags().StringVar(&f.tables, "tables", "", "write the Markdown tables to this file (default: standard output after the rows, or standard error when the rows are CSV/JSON on standard output)")
	c.Flags().StringVar(&f.tablesCSV, "tables-csv", "", "also write the tables as PREFIX.groups.csv and PREFIX.pairs.csv (one decimal, ASCII)")
	f.study.register(c)
}

func newGoodputCmd(e *env) *cobra.Command {
	var f goodputFlags
	c := &cobra.Command{
		Use:   "goodput PATH...",
		Short: "batch goodput per flow over a campaign of captures, with per-group CIs and paired tests",
		Long: `goodput analyses every capture under PATH (files, directories searched for
*.pcap/*.pcapng[.gz|.zst], globs) in parallel and writes one row per flow:
goodput bytes (unique payload bytes delivered to the receiver,
docs/metrics.md#goodput) and goodput in kbit/s, plus the campaign labels.

A flow held by several captures of one run (ns-3 writes one pcap per node, so
a flow is in its source's and its sink's capture) is counted once, from the
capture taken at the receiver when there is one, else at the sender; the
columns 'vantage' and 'file' say which. On per-node 802.11 captures the
receiver's capture is the one whose node owns the receiver's address; a relay
or a node that overheard the flow never is, and a flow whose receiver's
capture is missing or holds none of it is named in a warning (counted in a
note when it delivered nothing: it reached no receiver;
docs/metrics.md#vantage). Captures of one run are those sharing
ns-3's PREFIX of PREFIX-NODE-DEV.pcap, or else one directory; flows are
matched by endpoints and ISN.

By default every connection gives one flow, in the direction that delivered
more bytes (--dir ab|ba forces one), with no port filter; flows under 1 KB in
a closed connection (iperf3's control connection) are left out with a note
(--min-bytes). The rate is taken over the application's interval
(docs/metrics.md#interval), counting the bytes delivered inside it:
--interval START:END for every flow, else --starts FILE, else the testbed's
ground truth next to the captures (ns-3 PREFIX-groundtruth.csv,
groundtruth-all.csv, PREFIX-config.txt; --no-groundtruth ignores it), else
the receiving application's interval as compare measures end-to-end goodput:
its first data to the receiver's close, or to the run's last frame when it
did not close (--end T ends every interval at capture time T, e.g. the
simulation end) — and then flows that started late relative to their run's
others are named in a warning. Declared flows no capture holds are rows with
0 bytes and vantage none. Rows a PEP acknowledged (vantage pep) are left out
of the tables. Reader warnings (a capture cut mid-record) are printed per
capture and counted in the column capture_warnings.

With --group LABEL it also prints the study's tables: per group, the mean of
the per-run goodput (--per-run sum|mean, default sum) with a t-based CI; with
--pair LABEL, every two groups compared run by run: mean difference with its
t-CI, two-sided exact Wilcoxon signed-rank p (zeros dropped, mid-ranks for
ties, exact for n <= 50), and how many differences were positive.

One unreadable capture does not stop the batch: it is listed on standard error
and the exit status is 3 ("partial").

'tcpviz goodput stats CSV...' is the old name of 'tcpviz stats', kept while
nothing named stats exists in the current directory: a path that exists is
read as a path.`,
		Example: `  tcpviz goodput ../shared/ns3 --labels '{transport}-{protocol}-r{seed}-{node}-{dev}.pcap' --group protocol --pair seed --end 100
  tcpviz goodput campaign/ --manifest runs.csv --csv -o flows.csv --shard 3/8
  tcpviz stats shard-*.csv --group protocol --pair seed`,
		Args: cobra.MinimumNArgs(1),
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
	fl := c.Flags()
	fl.StringVar(&f.labels, "labels", "", "label pattern matched against the end of each path, e.g. '{protocol}/run{seed}/{prefix}-{node}-{dev}.pcap'")
	fl.StringVar(&f.manifest, "manifest", "", "CSV with a 'file' column and one column per label")
	fl.IntVar(&f.port, "port", 0, "only flows with this port on either side")
	fl.StringVar(&f.dir, "dir", "auto", "data direction per connection: "+query.DirNames+" (the one that delivered more); a = the SYN sender")
	fl.Int64Var(&f.minBytes, "min-bytes", -1, "leave out flows that delivered fewer goodput bytes in all; -1 (auto): fewer than 1024 B in a closed connection (control connections such as iperf3's); flows declared by ground truth or --starts are kept")
	fl.Float64Var(&f.end, "end", 0, "end every flow's goodput interval at this capture time in seconds since the epoch (the simulation end for ns-3); default: the application's stop, else its close, else the run's last frame")
	fl.BoolVar(&f.asCSV, "csv", false, "write rows as CSV (schema "+export.GoodputSchema+")")
	fl.BoolVar(&f.asJSON, "json", false, "write rows as JSON")
	fl.StringVar(&f.parquetOut, "parquet", "", "also write the rows as Parquet to this file")
	fl.StringVarP(&f.out, "output", "o", "", "write the rows to this file (atomically) instead of standard output; .csv or .json choose the format unless --csv or --json does")
	fl.IntVar(&f.jobs, "jobs", 0, "captures analysed at once (default: all cores)")
	fl.StringVar(&f.starts, "starts", "", "CSV of application start times per flow (src|src_ip, sport|src_port, dst|dst_ip, dport|dst_port, start_s, label columns): goodput intervals start there, e.g. ns-3's groundtruth-all.csv")
	fl.StringArrayVar(&f.startsRename, "starts-rename", nil, "rename a --starts column to a label name, e.g. run=seed (repeatable)")
	registerIntervalFlags(fl, &f)
	fl.StringVar(&f.shard, "shard", "", "analyse only part i of n of the runs (i/n, 1-based), e.g. a Slurm array task; merge with 'tcpviz stats'")
	f.registerTables(c)
	e.addFigFlags(c)
	return c
}

// checkTables validates the table flags before anything is read.
func (f *goodputFlags) checkTables() error {
	if f.perRun != "sum" && f.perRun != "mean" {
		return fmt.Errorf("--per-run %q: want sum or mean", f.perRun)
	}
	if !(f.level > 0 && f.level < 1) {
		return fmt.Errorf("--level %g: want a confidence level between 0 and 1, e.g. 0.95", f.level)
	}
	if f.pair != "" && f.group == "" {
		return fmt.Errorf("--pair %s needs --group", f.pair)
	}
	return nil
}

func runGoodput(e *env, f *goodputFlags, args []string) error {
	if f.asCSV && f.asJSON {
		return fmt.Errorf("choose one of --csv and --json")
	}
	// -o chooses the format by its extension unless a flag did, as in flows.
	if ext := strings.ToLower(filepath.Ext(f.out)); !f.asCSV && !f.asJSON {
		f.asCSV, f.asJSON = ext == ".csv", ext == ".json"
	}
	dir, err := query.ParseDir(f.dir)
	if err != nil {
		return fmt.Errorf("--dir: %w", err)
	}
	if f.port < 0 || f.port > 65535 {
		return fmt.Errorf("--port %d: want 1-65535", f.port)
	}
	if err := f.checkTables(); err != nil {
		return err
	}
	if err := f.study.check(f.group); err != nil {
		return err
	}
	if err := f.study.checkRepeats(); err != nil {
		return err
	}
	if err := f.checkStartsRename(); err != nil {
		return err
	}
	if err := f.checkParquetName(); err != nil {
		return err
	}
	f.study.name = e.campaignName(args)
	if f.jobs < 0 {
		return fmt.Errorf("--jobs %d: want ≥ 0", f.jobs)
	}
	o := campaign.Options{Port: f.port, Dir: dir, End: f.end, Jobs: f.jobs}
	if err := f.intervalOptions(&o); err != nil {
		return err
	}
	if err := f.minBytesOptions(&o); err != nil {
		return err
	}
	if f.shard != "" {
		var i, n int
		if _, err := fmt.Sscanf(f.shard, "%d/%d", &i, &n); err != nil || n < 1 || i < 1 || i > n {
			return fmt.Errorf("--shard %q: want i/n with 1 ≤ i ≤ n", f.shard)
		}
		o.Shard, o.Shards = i-1, n
	}
	var labelNames []string
	switch {
	case f.labels != "" && f.manifest != "":
		return fmt.Errorf("choose one of --labels and --manifest")
	case f.labels != "":
		p, err := campaign.ParsePattern(f.labels)
		if err != nil {
			return fmt.Errorf("--labels: %w", err)
		}
		o.Labels = p.Match
		labelNames = p.Names()
	case f.manifest != "":
		m, err := campaign.ReadManifest(f.manifest)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		o.Labels = m.Labels
		labelNames = m.Names
	}
	if err := f.checkGroupLabels(labelNames); err != nil {
		return err
	}
	if f.starts != "" {
		rename := map[string]string{}
		for _, kv := range f.startsRename {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("--starts-rename %q: want OLD=NEW", kv)
			}
			rename[k] = v
		}
		st, err := campaign.ReadStarts(f.starts, rename, labelNames)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		o.Starts = st
	}
	listing, err := campaign.List(args)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	for _, n := range listing.Notes {
		fmt.Fprintln(e.stderr, "note:", n)
	}
	files := listing.Files
	if len(files) == 0 && len(listing.Failed) == 0 {
		return &exitError{code: 2, err: fmt.Errorf("no capture found under %s", strings.Join(args, " "))}
	}
	if err := f.checkGroupsOfFiles(files, o.Labels); err != nil {
		return err // a usage error: exit 1, before any capture is read
	}
	var bar *progressbar.ProgressBar
	if fd, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(fd.Fd())) {
		bar = progressbar.NewOptions(len(files), progressbar.OptionSetWriter(e.stderr), progressbar.OptionSetDescription("captures"),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
		o.Progress = func(done, total int) { bar.Set(done) }
	}
	res, err := campaign.Goodput(e.ctx, files, o)
	if bar != nil {
		bar.Finish()
	}
	if errors.Is(err, campaign.ErrOutsideCaptures) {
		return err // a usage error: exit 1
	}
	if err != nil {
		return err
	}
	if e.shownPath != nil {
		for i := range res.Rows {
			res.Rows[i].File, res.Rows[i].RunKey = e.shownPath(res.Rows[i].File), e.shownPath(res.Rows[i].RunKey)
		}
		for i := range res.Warnings {
			res.Warnings[i].File = e.shownPath(res.Warnings[i].File)
		}
	}
	// Paths that could not be listed count as failed captures.
	res.Files = append(res.Files, failedPaths(listing.Failed)...)
	res.Failed = append(listing.Failed, res.Failed...)
	if err := reportFailures(e.stderr, res, f.labels); err != nil {
		return err // every capture failed: exit 2
	}
	reportCaptureWarnings(e.stderr, res)
	f.warned = res.Warnings
	if err := f.checkLabels(e.stderr, res); err != nil {
		return err
	}
	f.reportDropped(e.stderr, res)
	dirNote := map[query.Dir]string{query.Auto: "the direction that delivered more bytes", query.AB: "from the SYN sender", query.BA: "towards the SYN sender"}[dir]
	fmt.Fprintf(e.stderr, "goodput: %s, %d used, %d failed; %s (%s; rate over %s; each flow counted once, from its receiver's capture where possible)\n",
		count(len(res.Files), "capture"), len(res.Files)-len(res.Failed), len(res.Failed), count(len(res.Rows), "flow"), dirNote, f.intervalNote(res))
	f.warnIntervals(e.stderr, res)

	if err := f.checkStudy(res.Rows); err != nil {
		return err // before any output is written
	}
	if err := writeGoodputRows(e, f, res.Rows, labelNames); err != nil {
		return err
	}
	if f.group != "" {
		if err := writeGoodputTables(e, f, res.Rows); err != nil {
			return err
		}
	}
	if len(res.Failed) > 0 {
		return &exitError{code: 3, err: fmt.Errorf("partial: %d of %s failed", len(res.Failed), count(len(res.Files), "capture"))}
	}
	return nil
}

func writeGoodputRows(e *env, f *goodputFlags, rows []campaign.FlowRow, labelNames []string) error {
	write := func(w io.Writer) error {
		switch {
		case f.asJSON:
			warned := map[string][]string{}
			for _, fw := range f.warned {
				warned[fw.File] = fw.Warnings
			}
			return export.WriteGoodputJSON(w, rows, labelNames, warned)
		case f.asCSV:
			return export.WriteGoodputCSV(w, rows, labelNames)
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

func writeGoodputTables(e *env, f *goodputFlags, rows []campaign.FlowRow) error {
	ao, err := f.study.options()
	if err != nil {
		return err
	}
	spec := f.studySpec()
	t, runs, pepRows, pepRuns, err := study.Tables(rows, spec, ao)
	if pepRows > 0 {
		n := pepTablesNote(pepRows, pepRuns)
		fmt.Fprintln(e.stderr, n)
		f.notes = append(f.notes, n)
	}
	if err != nil {
		return err
	}
	var w io.Writer = e.stdout
	if f.out == "" && (f.asCSV || f.asJSON) {
		w = e.stderr
	}
	md := func(w io.Writer) error { return study.WriteMarkdown(w, spec, t, runs, f.notes) }
	if f.tables != "" {
		if err := writeFileAtomic(f.tables, func(file *os.File) error { return md(file) }); err != nil {
			return err
		}
	} else if err := md(w); err != nil {
		return err
	}
	if f.tablesCSV != "" {
		if err := writeFileAtomic(f.tablesCSV+".groups.csv", func(file *os.File) error { return stats.WriteGroupsCSVRounded(file, t.Groups) }); err != nil {
			return err
		}
		if f.pair != "" {
			if err := writeFileAtomic(f.tablesCSV+".pairs.csv", func(file *os.File) error { return stats.WritePairsCSVRounded(file, t.Pairs) }); err != nil {
				return err
			}
		}
	}
	return e.writeStudy(f, t)
}

// newStatsCmd merges per-flow CSVs (for example the shards of a cluster
// run) and prints the tables.
func newStatsCmd(e *env) *cobra.Command {
	var f goodputFlags
	c := &cobra.Command{
		Use:   "stats FILE...",
		Short: "merge per-flow goodput CSVs (e.g. shards of 'goodput --shard') and print the per-group and paired tables",
		Long: `stats reads CSVs written by 'tcpviz goodput --csv' (for example one per
--shard), and prints the per-group and paired tables that 'goodput --group'
prints (formerly 'tcpviz goodput stats').`,
		Example: `  tcpviz stats shard-*.csv --group protocol --pair seed`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runStats(e, &f, args)
		},
	}
	f.registerTables(c)
	e.addFigFlags(c)
	return c
}

func runStats(e *env, f *goodputFlags, args []string) error {
	if f.group == "" {
		return fmt.Errorf("--group is required")
	}
	if len(args) == 0 {
		return fmt.Errorf("stats: name the per-flow CSVs to merge")
	}
	if err := f.checkTables(); err != nil {
		return err
	}
	if err := f.study.check(f.group); err != nil {
		return err
	}
	f.study.name = e.campaignName(args)
	rows, err := f.readFlowCSVs(e.stderr, args)
	if err != nil {
		return err
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].RunKey < rows[j].RunKey })
	return writeGoodputTables(e, f, rows)
}
