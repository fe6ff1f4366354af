package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/stats"
)

// goodputSchema versions the per-flow goodput output (docs/schema.md#goodput).
const goodputSchema = "tcpviz.goodput/3"

// goodputFixed are the leading columns; label columns follow, then the
// trailing columns.
var (
	goodputFixed    = []string{"file", "conn", "src", "sport", "dst", "dport", "first_s", "last_s", "bytes", "goodput_kbps"}
	goodputTrailing = []string{"interval_s", "run", "vantage", "captures", "interval_from", "capture_warnings"}
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

func init() {
	addCommand(func(e *env) *cobra.Command {
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
columns 'vantage' and 'file' say which. Captures of one run are those sharing
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
and the exit status is 3 ("partial").`,
			Example: `  tcpviz goodput ../shared/ns3 --labels '{transport}-{protocol}-r{seed}-{node}-{dev}.pcap' --group protocol --pair seed --end 100
  tcpviz goodput campaign/ --manifest runs.csv --csv -o flows.csv --shard 3/8
  tcpviz goodput stats shard-*.csv --group protocol --pair seed`,
			Args: cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return runGoodput(e, &f, args)
			},
		}
		fl := c.Flags()
		fl.StringVar(&f.labels, "labels", "", "label pattern matched against the end of each path, e.g. '{protocol}/run{seed}/{prefix}-{node}-{dev}.pcap'")
		fl.StringVar(&f.manifest, "manifest", "", "CSV with a 'file' column and one column per label")
		fl.IntVar(&f.port, "port", 0, "only flows with this port on either side")
		fl.StringVar(&f.dir, "dir", "auto", "data direction per connection: auto (the one that delivered more), ab (from the SYN sender) or ba")
		fl.Int64Var(&f.minBytes, "min-bytes", -1, "leave out flows that delivered fewer goodput bytes in all; -1 (auto): fewer than 1024 B in a closed connection (control connections such as iperf3's); flows declared by ground truth or --starts are kept")
		fl.Float64Var(&f.end, "end", 0, "end every flow's goodput interval at this capture time in seconds since the epoch (the simulation end for ns-3); default: the application's stop, else its close, else the run's last frame")
		fl.BoolVar(&f.asCSV, "csv", false, "write rows as CSV (schema "+goodputSchema+")")
		fl.BoolVar(&f.asJSON, "json", false, "write rows as JSON")
		fl.StringVar(&f.parquetOut, "parquet", "", "also write the rows as Parquet to this file")
		fl.StringVarP(&f.out, "output", "o", "", "write the rows to this file (atomically) instead of standard output")
		fl.IntVar(&f.jobs, "jobs", 0, "captures analysed at once (default: all cores)")
		fl.StringVar(&f.starts, "starts", "", "CSV of application start times per flow (src|src_ip, sport|src_port, dst|dst_ip, dport|dst_port, start_s, label columns): goodput intervals start there, e.g. ns-3's groundtruth-all.csv")
		fl.StringArrayVar(&f.startsRename, "starts-rename", nil, "rename a --starts column to a label name, e.g. run=seed (repeatable)")
		registerIntervalFlags(fl, &f)
		fl.StringVar(&f.shard, "shard", "", "analyse only part i of n of the runs (i/n, 1-based), e.g. a Slurm array task; merge with 'tcpviz goodput stats'")
		f.registerTables(c)
		e.addFigFlags(c)
		c.AddCommand(goodputStatsCmd(e))
		return c
	})
}

func runGoodput(e *env, f *goodputFlags, args []string) error {
	if f.asCSV && f.asJSON {
		return fmt.Errorf("choose one of --csv and --json")
	}
	if err := f.study.check(f.group); err != nil {
		return err
	}
	f.study.name = e.campaignName(args)
	o := campaign.Options{Port: f.port, Dir: f.dir, End: f.end, Jobs: f.jobs}
	if err := f.intervalOptions(&o); err != nil {
		return err
	}
	if err := f.minBytesOptions(&o); err != nil {
		return err
	}
	switch f.dir {
	case "auto", "ab", "ba":
	default:
		return fmt.Errorf("--dir %q: want auto, ab or ba", f.dir)
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
			return err
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
	// Paths that could not be listed count as failed captures.
	res.Files = append(res.Files, failedPaths(listing.Failed)...)
	res.Failed = append(listing.Failed, res.Failed...)
	if err := reportFailures(e.stderr, res, f.labels); err != nil {
		return err
	}
	reportCaptureWarnings(e.stderr, res)
	f.warned = res.Warnings
	if err := f.checkLabels(e.stderr, res); err != nil {
		return err
	}
	f.reportDropped(e.stderr, res)
	dirNote := map[string]string{"auto": "the direction that delivered more bytes", "ab": "from the SYN sender", "ba": "towards the SYN sender"}[f.dir]
	fmt.Fprintf(e.stderr, "goodput: %d captures, %d used, %d failed; %d flows (%s; rate over %s; each flow counted once, from its receiver's capture where possible)\n",
		len(res.Files), len(res.Files)-len(res.Failed), len(res.Failed), len(res.Rows), dirNote, f.intervalNote(res))
	f.warnIntervals(e.stderr, res)

	if err := writeGoodputRows(e, f, res.Rows, labelNames); err != nil {
		return err
	}
	if f.group != "" {
		if err := writeGoodputTables(e, f, res.Rows); err != nil {
			return err
		}
	}
	if len(res.Failed) > 0 {
		return &exitError{code: 3, err: fmt.Errorf("partial: %d of %d captures failed", len(res.Failed), len(res.Files))}
	}
	return nil
}

func goodputRecord(r campaign.FlowRow, labelNames []string) []string {
	rec := []string{r.File, strconv.Itoa(r.Conn), r.Src, strconv.Itoa(int(r.SPort)), r.Dst, strconv.Itoa(int(r.DPort)),
		strconv.FormatFloat(r.FirstS, 'f', 6, 64), strconv.FormatFloat(r.LastS, 'f', 6, 64),
		strconv.FormatInt(r.Bytes, 10), strconv.FormatFloat(r.Kbps, 'f', 3, 64)}
	for _, n := range labelNames {
		rec = append(rec, r.Labels[n])
	}
	return append(rec, strconv.FormatFloat(r.IntervalS, 'f', 6, 64), r.RunKey, string(r.Vantage), strconv.Itoa(r.Captures), string(r.Source), strconv.Itoa(r.CaptureWarnings))
}

func writeGoodputRows(e *env, f *goodputFlags, rows []campaign.FlowRow, labelNames []string) error {
	header := append(append(append([]string{}, goodputFixed...), labelNames...), goodputTrailing...)
	write := func(w io.Writer) error {
		switch {
		case f.asJSON:
			var out []map[string]any
			for _, r := range rows {
				rec := goodputRecord(r, labelNames)
				m := map[string]any{}
				for i, h := range header {
					m[h] = rec[i]
				}
				for _, k := range []string{"conn", "sport", "dport", "bytes", "captures", "capture_warnings"} {
					m[k], _ = strconv.ParseInt(m[k].(string), 10, 64)
				}
				for _, k := range []string{"first_s", "last_s", "goodput_kbps", "interval_s"} {
					m[k], _ = strconv.ParseFloat(m[k].(string), 64)
				}
				out = append(out, m)
			}
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			warned := map[string][]string{}
			for _, fw := range f.warned {
				warned[fw.File] = fw.Warnings
			}
			return enc.Encode(map[string]any{"schema": goodputSchema, "labels": labelNames, "flows": out, "capture_warnings": warned})
		case f.asCSV:
			cw := csv.NewWriter(w)
			cw.Write(header)
			for _, r := range rows {
				cw.Write(goodputRecord(r, labelNames))
			}
			cw.Flush()
			return cw.Error()
		}
		// The human table: the CSV columns without interval_s and run.
		cut := func(rec []string) []string {
			n, t := len(rec), len(goodputTrailing)
			return append(append([]string{}, rec[:n-t]...), rec[n-t+2:]...)
		}
		recs := [][]string{cut(header)}
		for _, r := range rows {
			rec := goodputRecord(r, labelNames)
			if rec[0] == "" {
				rec[0] = "–" // a declared flow no capture holds
			} else {
				rec[0] = filepath.Base(rec[0])
				if r.CaptureWarnings > 0 {
					rec[0] += " (!)" // the reader warned about it (standard error)
				}
			}
			recs = append(recs, cut(rec))
		}
		return writeAligned(w, recs)
	}
	if f.parquetOut != "" {
		if err := writeFileAtomic(f.parquetOut, func(file *os.File) error { return writeGoodputParquet(file, rows, labelNames) }); err != nil {
			return err
		}
	}
	if f.out != "" {
		return writeFileAtomic(f.out, func(file *os.File) error { return write(file) })
	}
	return write(e.stdout)
}

// writeGoodputParquet writes the rows with the same columns as the CSV,
// typed: integers as INT64, times and rates as DOUBLE, the rest as strings.
func writeGoodputParquet(w io.Writer, rows []campaign.FlowRow, labelNames []string) error {
	g := parquet.Group{
		"file": parquet.String(), "conn": parquet.Leaf(parquet.Int64Type), "src": parquet.String(),
		"sport": parquet.Leaf(parquet.Int64Type), "dst": parquet.String(), "dport": parquet.Leaf(parquet.Int64Type),
		"first_s": parquet.Leaf(parquet.DoubleType), "last_s": parquet.Leaf(parquet.DoubleType),
		"bytes": parquet.Leaf(parquet.Int64Type), "goodput_kbps": parquet.Leaf(parquet.DoubleType),
		"interval_s": parquet.Leaf(parquet.DoubleType), "run": parquet.String(), "vantage": parquet.String(),
		"captures": parquet.Leaf(parquet.Int64Type), "interval_from": parquet.String(),
		"capture_warnings": parquet.Leaf(parquet.Int64Type),
	}
	for _, n := range labelNames {
		if _, clash := g[n]; clash {
			return fmt.Errorf("label %q clashes with a goodput column", n)
		}
		g[n] = parquet.String()
	}
	pw := parquet.NewWriter(w, parquet.NewSchema("goodput", g))
	for _, r := range rows {
		m := map[string]any{
			"file": r.File, "conn": int64(r.Conn), "src": r.Src, "sport": int64(r.SPort), "dst": r.Dst, "dport": int64(r.DPort),
			"first_s": r.FirstS, "last_s": r.LastS, "bytes": r.Bytes, "goodput_kbps": r.Kbps,
			"interval_s": r.IntervalS, "run": r.RunKey, "vantage": string(r.Vantage), "captures": int64(r.Captures),
			"interval_from": string(r.Source), "capture_warnings": int64(r.CaptureWarnings),
		}
		for _, n := range labelNames {
			m[n] = r.Labels[n]
		}
		if err := pw.Write(m); err != nil {
			return err
		}
	}
	return pw.Close()
}

func writeGoodputTables(e *env, f *goodputFlags, rows []campaign.FlowRow) error {
	rows, pepNote := tableRows(rows)
	if pepNote != "" {
		fmt.Fprintln(e.stderr, pepNote)
		f.notes = append(f.notes, pepNote)
	}
	runs, err := campaign.PerRun(rows, f.perRun)
	if err != nil {
		return err
	}
	ao, err := f.study.options()
	if err != nil {
		return err
	}
	t, err := campaign.AggregateWith(runs, f.group, f.pair, f.level, ao)
	if err != nil {
		return err
	}
	var w io.Writer = e.stdout
	if f.out == "" && (f.asCSV || f.asJSON) {
		w = e.stderr
	}
	md := func(w io.Writer) error {
		fmt.Fprintf(w, "\nGoodput per run = %s over the run's flows (kbit/s); %d runs.\n\n", f.perRun, len(runs))
		if err := stats.WriteGroupsMarkdown(w, fmt.Sprintf("Goodput — kbps, mean with t-based %g %% CI", f.level*100), "kbps", t.Groups); err != nil {
			return err
		}
		if f.pair != "" {
			fmt.Fprintln(w)
			if err := stats.WritePairsMarkdown(w, fmt.Sprintf("Paired by %s — difference (first − second), kbps, t-based %g %% CI, exact Wilcoxon signed-rank p", f.pair, f.level*100), "kbps", t.Pairs); err != nil {
				return err
			}
			for _, u := range t.Unpaired {
				fmt.Fprintln(w, "note:", u)
			}
		}
		for _, n := range f.notes {
			fmt.Fprintln(w, n)
		}
		return nil
	}
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

// goodputStatsCmd merges per-flow CSVs (for example the shards of a cluster
// run) and prints the tables.
func goodputStatsCmd(e *env) *cobra.Command {
	var f goodputFlags
	c := &cobra.Command{
		Use:   "stats FILE...",
		Short: "merge per-flow goodput CSVs (e.g. shards) and print the per-group and paired tables",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.group == "" {
				return fmt.Errorf("--group is required")
			}
			if err := f.study.check(f.group); err != nil {
				return err
			}
			f.study.name = e.campaignName(args)
			var rows []campaign.FlowRow
			for _, path := range args {
				rs, err := readGoodputCSV(path)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				rows = append(rows, rs...)
			}
			sort.SliceStable(rows, func(i, j int) bool { return rows[i].RunKey < rows[j].RunKey })
			fmt.Fprintf(e.stderr, "goodput stats: %d flows from %d files\n", len(rows), len(args))
			return writeGoodputTables(e, &f, rows)
		},
	}
	f.registerTables(c)
	e.addFigFlags(c)
	return c
}

// readGoodputCSV reads rows written by 'tcpviz goodput --csv'.
func readGoodputCSV(path string) ([]campaign.FlowRow, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	head := recs[0]
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, h := range append(append([]string{}, goodputFixed...), goodputTrailing...) {
		if _, ok := col[h]; !ok && h != "interval_from" && h != "capture_warnings" { // absent before tcpviz.goodput/2, /3
			return nil, fmt.Errorf("%s: no column %q: not a 'tcpviz goodput --csv' file", path, h)
		}
	}
	trailing := len(goodputTrailing)
	for _, h := range []string{"interval_from", "capture_warnings"} {
		if _, ok := col[h]; !ok {
			trailing--
		}
	}
	labels := head[len(goodputFixed) : len(head)-trailing]
	var rows []campaign.FlowRow
	for n, rec := range recs[1:] {
		if len(rec) != len(head) {
			return nil, fmt.Errorf("%s: line %d: %d fields, header has %d", path, n+2, len(rec), len(head))
		}
		num := func(k string) float64 { v, _ := strconv.ParseFloat(rec[col[k]], 64); return v }
		r := campaign.FlowRow{File: rec[col["file"]], RunKey: rec[col["run"]], Src: rec[col["src"]], Dst: rec[col["dst"]],
			Conn: int(num("conn")), SPort: uint16(num("sport")), DPort: uint16(num("dport")),
			FirstS: num("first_s"), LastS: num("last_s"), Bytes: int64(num("bytes")), Kbps: num("goodput_kbps"),
			IntervalS: num("interval_s"), Vantage: campaign.Vantage(rec[col["vantage"]]), Captures: int(num("captures")),
			Labels: map[string]string{}}
		if i, ok := col["interval_from"]; ok {
			r.Source = campaign.IntervalSource(rec[i])
		}
		if i, ok := col["capture_warnings"]; ok {
			r.CaptureWarnings, _ = strconv.Atoi(rec[i])
		}
		for _, l := range labels {
			r.Labels[l] = rec[col[l]]
		}
		rows = append(rows, r)
	}
	return rows, nil
}
