package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/export"
	"github.com/tcpviz/tcpviz/study"
)

// defaultMinBytes is what goodput's default --min-bytes (auto) drops:
// flows that delivered less in all in a connection that was closed (a FIN
// or RST: iperf3's control connection, ≈ 0.5 KB), unless declared by
// ground truth or --starts; a flow that stalled or never delivered is kept
// (docs/metrics.md#interval).
const defaultMinBytes = 1024

// minBytesOptions sets o's small-flow filter from --min-bytes: -1 (the
// default) is auto.
func (f *goodputFlags) minBytesOptions(o *campaign.Options) error {
	switch {
	case f.minBytes == -1:
		o.MinBytes, o.MinBytesClosed = defaultMinBytes, true
	case f.minBytes < 0:
		return fmt.Errorf("--min-bytes %d: want a byte count, or -1 for auto", f.minBytes)
	default:
		o.MinBytes = f.minBytes
	}
	return nil
}

// reportFailures prints the captures that failed, saying which the label
// pattern rejected (not "absent flows"), and returns the error when every
// capture failed (exit 2).
func reportFailures(w io.Writer, res *campaign.Result, labels string) error {
	rejected := 0
	for _, fe := range res.Failed {
		if errors.Is(fe.Err, campaign.ErrNoLabels) {
			rejected++
			continue
		}
		fmt.Fprintf(w, "error: %s: %v\n", fe.File, fe.Err)
	}
	if rejected > 0 {
		what := "--labels " + labels
		if labels == "" {
			what = "the manifest"
		}
		fmt.Fprintf(w, "error: %d of %d captures rejected: their paths do not match %s (e.g. %s); they were not analysed\n", rejected, len(res.Files), what, firstRejected(res))
	}
	if len(res.Files) > 0 && len(res.Failed) == len(res.Files) {
		if rejected == len(res.Files) {
			return &exitError{code: 2, err: fmt.Errorf("every capture was rejected by the label pattern: nothing analysed")}
		}
		return &exitError{code: 2, err: fmt.Errorf("every capture failed: nothing analysed")}
	}
	return nil
}

func firstRejected(res *campaign.Result) string {
	for _, fe := range res.Failed {
		if errors.Is(fe.Err, campaign.ErrNoLabels) {
			return fe.File
		}
	}
	return ""
}

// reportCaptureWarnings prints every reader warning per capture (a capture
// cut mid-record is used up to the cut): its rows have capture_warnings > 0.
func reportCaptureWarnings(w io.Writer, res *campaign.Result) {
	for _, fw := range res.Warnings {
		for _, m := range fw.Warnings {
			if !strings.HasPrefix(m, fw.File) {
				m = fw.File + ": " + m
			}
			fmt.Fprintf(w, "warning: %s (its flows are used up to there; column capture_warnings)\n", m)
		}
	}
	for _, m := range res.IntervalWarnings {
		fmt.Fprintln(w, "warning:", m)
	}
	for _, m := range res.VantageWarnings {
		fmt.Fprintln(w, "warning:", m)
	}
	for _, m := range res.VantageNotes {
		fmt.Fprintln(w, "note:", m)
	}
}

// checkLabels refuses a run whose captures disagree on the --group or
// --pair label, and warns when a placeholder swallowed a separator of the
// pattern (the pattern probably does not fit the file names).
func (f *goodputFlags) checkLabels(w io.Writer, res *campaign.Result) error {
	var names []string
	for _, n := range []string{f.group, f.pair} {
		if n != "" {
			names = append(names, n)
		}
	}
	if c := campaign.LabelConflicts(res.Rows, names); len(c) > 0 {
		more := ""
		if len(c) > 3 {
			more = fmt.Sprintf(" (and %d more)", len(c)-3)
			c = c[:3]
		}
		return &exitError{code: 2, err: fmt.Errorf("the captures of one run have different --group/--pair labels, so a run would count in several groups: %s%s; fix --labels (e.g. '{transport}-{protocol}-r{seed}-{node}-{dev}.pcap' for ns-3)", strings.Join(c, "; "), more)}
	}
	if f.labels == "" {
		return nil
	}
	p, err := campaign.ParsePattern(f.labels)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var bad []string
	for _, r := range res.Rows {
		if r.File == "" || seen[r.File] {
			continue
		}
		seen[r.File] = true
		if s := p.Swallowed(r.Labels); len(s) > 0 {
			bad = append(bad, fmt.Sprintf("%s → %s", r.File, strings.Join(s, " ")))
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(w, "WARNING: --labels %s probably does not fit the file names: in %d captures a label holds the separator the pattern puts next to it, e.g. %s; check the label columns before trusting any group\n",
			f.labels, len(bad), bad[0])
	}
	return nil
}

// reportDropped says which flows --min-bytes left out.
func (f *goodputFlags) reportDropped(w io.Writer, res *campaign.Result) {
	if len(res.Dropped) == 0 {
		return
	}
	ex := res.Dropped[0]
	rule := fmt.Sprintf("delivered fewer than --min-bytes %d bytes in all", f.minBytes)
	if f.minBytes == -1 {
		rule = fmt.Sprintf("delivered fewer than %d bytes in all in a connection that was closed (--min-bytes auto)", defaultMinBytes)
	}
	fmt.Fprintf(w, "note: %s %s and %s left out (e.g. %s:%d → %s:%d, %d bytes: a control connection such as iperf3's); flows the ground truth or --starts declares are always kept; --min-bytes 0 keeps every flow\n",
		count(len(res.Dropped), "flow"), rule, map[bool]string{true: "is", false: "are"}[len(res.Dropped) == 1], ex.Src, ex.SPort, ex.Dst, ex.DPort, ex.TotalBytes)
}

// pepTablesNote says, loudly, that n rows in runs runs (vantage pep) are
// left out of the Goodput tables (study.Tables).
func pepTablesNote(n, runs int) string {
	return fmt.Sprintf("WARNING: %s in %s (vantage pep) %s LEFT OUT of the Goodput tables: a split-TCP PEP acknowledged their data, so their bytes were accepted by the PEP, not delivered end to end. Their end-to-end goodput needs the server-side capture: tcpviz compare LABEL=CLIENT+SERVER (docs/metrics.md#pep)", count(n, "flow"), count(runs, "run"), map[bool]string{true: "is", false: "are"}[n == 1])
}

// statsAlias says whether 'goodput ARGS' is the old sub-verb 'goodput
// stats CSV...' (now 'tcpviz stats'), with the note to print: the first
// argument is "stats" and no file or directory of that name exists — a
// path that exists is a path (trial13 B8, README "tcpviz stats").
func statsAlias(args []string) (alias bool, note string) {
	if len(args) == 0 || args[0] != "stats" {
		return false, ""
	}
	if _, err := os.Lstat("stats"); err == nil {
		return false, "note: 'stats' is read as a path because one exists here; to merge per-flow CSVs use 'tcpviz stats CSV...'"
	}
	return true, "note: 'tcpviz goodput stats' is now 'tcpviz stats'"
}

// checkGroupLabels checks --group and --pair against the label names the
// runs can have — those of --labels or --manifest, known before any
// capture is read (trial13 B3): a typo, or --group without labels, is a
// usage error, not a finding after the whole campaign was analysed.
func (f *goodputFlags) checkGroupLabels(names []string) error {
	source := "--labels " + f.labels
	if f.manifest != "" {
		source = "--manifest " + f.manifest
	}
	return f.checkGroupIn(names, source)
}

// checkGroupIn checks --group and --pair against names, the labels source
// gives the runs.
func (f *goodputFlags) checkGroupIn(names []string, source string) error {
	if f.group == "" {
		return nil
	}
	if f.pair == f.group {
		return fmt.Errorf("--pair %s: the pairing label must differ from --group", f.pair)
	}
	for _, flag := range []struct{ name, value string }{{"group", f.group}, {"pair", f.pair}} {
		if flag.value == "" || slices.Contains(names, flag.value) {
			continue
		}
		if len(names) == 0 {
			return fmt.Errorf("--%s %s: the runs have no labels; name them with --labels PATTERN (e.g. '%s') or --manifest FILE", flag.name, flag.value, manetLabelsExample)
		}
		return fmt.Errorf("--%s %s: not a label of %s (its labels: %s)", flag.name, flag.value, source, strings.Join(names, ", "))
	}
	return nil
}

// manetLabelsExample is the label pattern of the ns-3 MANET testbed's
// captures, for messages.
const manetLabelsExample = "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap"

// readFlowCSVs reads the per-flow CSVs of 'tcpviz stats', checks --group
// and --pair against their label columns, and merges them
// (campaign.MergeRows): a flow given twice with the same numbers (the same
// CSV twice, overlapping shards) is counted once, with a warning; with
// different numbers it is an input error (exit 2). Without this a
// repeated CSV doubles every per-run sum (trial13 A5).
func (f *goodputFlags) readFlowCSVs(w io.Writer, paths []string) ([]campaign.FlowRow, error) {
	var sets [][]campaign.FlowRow
	var srcs [][]campaign.RowSource
	given := map[string]int{}
	for _, p := range paths {
		given[p]++
	}
	for i, p := range paths {
		rs, src, err := export.ReadGoodputCSVSources(p)
		if err != nil {
			return nil, &exitError{code: 2, err: err}
		}
		if given[p] > 1 { // one file given twice: say which argument (trial14 B9)
			for j := range src {
				src[j].Name = fmt.Sprintf("%s (argument %d)", p, i+1)
			}
		}
		sets, srcs = append(sets, rs), append(srcs, src)
	}
	rows, dups, err := campaign.MergeRows(sets, srcs)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	seen := map[string]bool{}
	var names []string
	for _, r := range rows {
		for n := range r.Labels {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	fmt.Fprintf(w, "stats: %s from %s\n", count(len(rows), "flow"), count(len(paths), "file"))
	if err := f.checkGroupIn(names, strings.Join(paths, " ")); err != nil {
		return nil, err // before any table is written
	}
	if len(dups) > 0 {
		fmt.Fprintf(w, "warning: %s given twice (same file, run, flow and labels, same numbers) counted once, e.g. %s repeats %s\n",
			count(len(dups), "flow"), dups[0].Again, dups[0].Kept)
	}
	return rows, nil
}

// checkStudy computes the study's tables once to find what only the rows
// can tell (--order naming a group no run has, …), so that such a mistake
// stops goodput before it writes any output (trial13 B3).
func (f *goodputFlags) checkStudy(rows []campaign.FlowRow) error {
	if f.group == "" {
		return nil
	}
	ao, err := f.study.options()
	if err != nil {
		return err
	}
	_, _, _, _, err = study.Tables(rows, f.studySpec(), ao)
	return err
}
