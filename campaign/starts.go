package campaign

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Starts holds known application start times per flow: when a flow's
// application began, which a capture cannot show if the first SYN waited
// for a route. Goodput's interval then starts there (docs/metrics.md#vantage).
type Starts struct {
	path   string
	labels []string // label columns used to match, sorted
	m      map[string]float64
	// flows are the listed flows with their label values, in file order.
	flows []startFlow
	// other are the columns neither a label, an endpoint nor a time (as
	// named in the file), with their values per row (parallel to flows).
	other  []string
	values [][]string
}

type startFlow struct {
	labels map[string]string
	flow   AppFlow
	line   int
}

// columns accepted for the endpoints, first name canonical.
var startCols = map[string][]string{
	"src": {"src", "src_ip"}, "sport": {"sport", "src_port"},
	"dst": {"dst", "dst_ip"}, "dport": {"dport", "dst_port"}, "start_s": {"start_s"},
}

// ReadStarts reads a CSV with columns src (or src_ip), sport (src_port),
// dst (dst_ip), dport (dst_port), start_s (seconds, the captures' clock),
// optionally stop_s (the application's stop, same clock), and label
// columns. rename maps a column name to a label name (e.g. run=seed for
// ns-3's ground truth); only columns that are label names (labelNames) are
// used to match. It returns an error naming the file and line for a
// missing column, a bad number, or two rows for the same flow (endpoints
// and labels): when the two rows differ in columns that are no label, an
// *OptionError naming them and OptStartsRename COLUMN=LABEL (COLUMN the
// first that names runs, RunColumn, else the first that differs; LABEL the
// first of labelNames the file has no column for). Goodput then checks
// that each row matches one run (checkRuns).
func ReadStarts(path string, rename map[string]string, labelNames []string) (*Starts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		if r, ok := rename[h]; ok {
			h = r
		}
		col[h] = i
	}
	idx := map[string]int{}
	for name, alts := range startCols {
		found := false
		for _, a := range alts {
			if i, ok := col[a]; ok {
				idx[name], found = i, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%s: no %s column", path, strings.Join(alts, " or "))
		}
	}
	st := &Starts{path: path, m: map[string]float64{}}
	for _, l := range labelNames {
		if _, ok := col[l]; ok {
			st.labels = append(st.labels, l)
		}
	}
	sort.Strings(st.labels)
	used := map[int]bool{}
	for _, l := range st.labels {
		used[col[l]] = true
	}
	for name, alts := range startCols {
		used[idx[name]] = true
		for _, a := range alts {
			if i, ok := col[a]; ok {
				used[i] = true
			}
		}
	}
	if i, ok := col["stop_s"]; ok {
		used[i] = true
	}
	var otherIdx []int
	for i := range head {
		if !used[i] {
			otherIdx = append(otherIdx, i)
			st.other = append(st.other, head[i])
		}
	}
	lineOf := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		line, _ := cr.FieldPos(0)
		v, err := strconv.ParseFloat(rec[idx["start_s"]], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: start_s %q: %v", path, line, rec[idx["start_s"]], err)
		}
		labels := map[string]string{}
		for _, l := range st.labels {
			labels[l] = rec[col[l]]
		}
		vals := make([]string, len(otherIdx))
		for j, i := range otherIdx {
			vals[j] = rec[i]
		}
		k := st.key(labels, rec[idx["src"]], rec[idx["sport"]], rec[idx["dst"]], rec[idx["dport"]])
		if _, dup := st.m[k]; dup {
			return nil, st.duplicate(k, lineOf[k], line, vals, labelNames)
		}
		st.m[k], lineOf[k] = v, line
		stop := ""
		if i, ok := col["stop_s"]; ok {
			stop = rec[i]
		}
		fl, err := appFlow(rec[idx["src"]], rec[idx["sport"]], rec[idx["dst"]], rec[idx["dport"]], rec[idx["start_s"]], stop)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, line, err)
		}
		st.flows = append(st.flows, startFlow{labels, fl, line})
		st.values = append(st.values, vals)
	}
	return st, nil
}

// duplicate is the error of a second row (line) for the flow k of line
// first, whose other columns hold vals: naming the columns the two rows
// differ in, and when one of them names runs, the rename that makes it a
// label.
func (st *Starts) duplicate(k string, first, line int, vals []string, labelNames []string) error {
	var prev []string
	for i, f := range st.flows {
		if f.line == first {
			prev = st.values[i]
		}
	}
	var differ []string
	for j, c := range st.other {
		if prev != nil && prev[j] != vals[j] {
			differ = append(differ, c)
		}
	}
	base := fmt.Sprintf("%s: line %d: a second start for flow %s (line %d)", st.path, line, k, first)
	if len(differ) == 0 {
		return fmt.Errorf("%s, with the same values in every column; add label columns that tell the runs apart", base)
	}
	c := differ[0]
	for _, d := range differ {
		if RunColumn(d) {
			c = d
			break
		}
	}
	missing := missingLabels(labelNames, st.labels)
	label := "LABEL"
	if len(missing) > 0 {
		label = missing[0]
	}
	shown := differ
	if len(shown) > 3 {
		shown = append(shown[:3:3], "…")
	}
	return &OptionError{Option: OptStartsRename, Err: ErrOptionsConflict, Text: Textf("%s, differing only in columns that are no label (%s): a row must match one run; if %s names the run, make it a label: %s %s=%s",
		base, strings.Join(shown, ", "), c, OptStartsRename, c, label)}
}

// missingLabels returns the names of names that are not in have, in
// order.
func missingLabels(names, have []string) []string {
	var out []string
	for _, n := range names {
		found := false
		for _, h := range have {
			found = found || h == n
		}
		if !found {
			out = append(out, n)
		}
	}
	return out
}

// runColumnNames are the column names (lower case, letters and digits
// only) that name a run of a campaign, alone or followed by id, no, num,
// number, idx or index.
var runColumnNames = []string{"run", "runs", "seed", "rngseed", "rngrun", "rep", "repetition", "replicate", "replication",
	"iteration", "iter", "trial", "realisation", "realization", "experiment", "instance", "simulation", "sim"}

// RunColumn reports whether a column name names the run of a campaign
// (run, seed, rep, replication, iteration, trial, realisation, …, also
// run_id, RngRun, seed-no): a starts file's column of that name that is
// no label would declare each run's flows in every run.
func RunColumn(name string) bool {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	n := b.String()
	for _, suffix := range []string{"", "id", "no", "num", "number", "idx", "index"} {
		if base, ok := strings.CutSuffix(n, suffix); ok && (suffix == "" || base != "") {
			for _, c := range runColumnNames {
				if base == c {
					return true
				}
			}
		}
	}
	return false
}

// checkRuns checks the starts against the campaign's runs (their labels
// in common): a column that names runs (RunColumn) with two or more values
// that is no label, or a row whose labels match two or more runs that
// differ in a label whose values a column of the file holds, is an
// *OptionError naming the column and Starts-rename COLUMN=LABEL: each
// run would be declared the other runs' flows, as rows of 0 bytes. A row
// that matches several runs when no column could tell them apart (the
// file gives one schedule for every run) is accepted.
func (st *Starts) checkRuns(runs []runInfo) error {
	if st == nil {
		return nil
	}
	// The labels runs have in common that the file has no column for,
	// with their values over the runs.
	runVals := map[string]map[string]bool{}
	for _, r := range runs {
		for n, v := range r.labels {
			if slices.Contains(st.labels, n) {
				continue
			}
			if runVals[n] == nil {
				runVals[n] = map[string]bool{}
			}
			runVals[n][v] = true
		}
	}
	// colVals are column j's values; best returns the label (of among,
	// nil: any) whose run values overlap most with them (Jaccard), or ""
	// when none overlaps.
	cols := make([]map[string]bool, len(st.other))
	colVals := func(j int) map[string]bool {
		if cols[j] == nil {
			cols[j] = map[string]bool{}
			for _, v := range st.values {
				cols[j][v[j]] = true
			}
		}
		return cols[j]
	}
	best := func(j int, among map[string]bool) (string, float64) {
		cv := colVals(j)
		var names []string
		for n := range runVals {
			if among == nil || among[n] {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		bestName, bestScore := "", 0.0
		for _, n := range names {
			inter := 0
			for v := range cv {
				if runVals[n][v] {
					inter++
				}
			}
			if inter == 0 {
				continue
			}
			if sc := float64(inter) / float64(len(cv)+len(runVals[n])-inter); sc > bestScore {
				bestName, bestScore = n, sc
			}
		}
		return bestName, bestScore
	}
	matchedOn := "endpoints only"
	if len(st.labels) > 0 {
		matchedOn = strings.Join(st.labels, ", ") + " and endpoints only"
	}
	values := func(m map[string]bool) string {
		var vs []string
		for v := range m {
			vs = append(vs, v)
		}
		sort.Slice(vs, func(i, j int) bool { return SortKey(vs[i], vs[j]) })
		if len(vs) > 5 {
			vs = append(vs[:5:5], "…")
		}
		return strings.Join(vs, ", ")
	}
	for j, c := range st.other {
		if cv := colVals(j); RunColumn(c) && len(cv) > 1 {
			label, _ := best(j, nil)
			fix := Textf("%s %s=%s", OptStartsRename, c, label)
			if label == "" {
				fix = Textf("give the runs a label in %s (e.g. {seed} in the pattern) and name column %s after it (%s %s=LABEL)", OptLabels, c, OptStartsRename, c)
			}
			return &OptionError{Option: OptStartsRename, Err: ErrOptionsConflict, Text: Textf("%s %s: column %s names runs (values %s) but is no label, so rows are matched on %s and every run would be declared the flows of the runs it shares them with (rows of 0 bytes where it does not hold them); a row must match one run: "+fix.Format,
				append([]any{OptStarts, st.path, c, values(cv), matchedOn}, fix.Args...)...)}
		}
	}
	perRun := make([]int, len(st.other)) // oneValuePerRun of each column: 0 not known, 1 yes, 2 no
	oneValue := func(j int) bool {
		if perRun[j] == 0 {
			perRun[j] = 2
			if st.oneValuePerRun(j) {
				perRun[j] = 1
			}
		}
		return perRun[j] == 1
	}
	for _, f := range st.flows {
		var match []runInfo
		for _, r := range runs {
			ok := true
			for _, l := range st.labels {
				if v, has := r.labels[l]; !has || v != f.labels[l] {
					ok = false
					break
				}
			}
			if ok {
				match = append(match, r)
			}
		}
		if len(match) < 2 {
			continue
		}
		differ := map[string]bool{}
		for n := range runVals {
			for _, r := range match[1:] {
				if r.labels[n] != match[0].labels[n] {
					differ[n] = true
				}
			}
		}
		if len(differ) == 0 {
			continue
		}
		col, label, score := -1, "", 0.0
		for j := range st.other {
			l, sc := best(j, differ)
			if l != "" && sc > score && oneValue(j) {
				col, label, score = j, l, sc
			}
		}
		if col < 0 {
			continue // no column could tell the runs apart: one schedule for every run
		}
		var keys []string
		for _, r := range match {
			keys = append(keys, filepath.Base(r.key))
		}
		c := st.other[col]
		return &OptionError{Option: OptStartsRename, Err: ErrOptionsConflict, Text: Textf("%s %s: line %d (flow %s:%d → %s:%d) matches %d runs (%s) that differ in %s, a label the file has no column for, so each of them would be declared the flow; a row must match one run: if column %s (values %s) names the run, %s %s=%s",
			OptStarts, st.path, f.line, f.flow.Src, f.flow.SPort, f.flow.Dst, f.flow.DPort, len(match), strings.Join(keys, ", "), label, c, values(colVals(col)), OptStartsRename, c, label)}
	}
	return nil
}

// oneValuePerRun reports whether column j could name runs: a flow of
// the file (endpoints) never has two rows with one value of it.
func (st *Starts) oneValuePerRun(j int) bool {
	seen := map[string]bool{}
	for i, f := range st.flows {
		k := st.values[i][j] + "\x00" + f.flow.key()
		for _, l := range st.labels {
			k += "\x00" + f.labels[l]
		}
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

func (st *Starts) key(labels map[string]string, src, sport, dst, dport string) string {
	var b strings.Builder
	for _, l := range st.labels {
		b.WriteString(l + "=" + labels[l] + " ")
	}
	b.WriteString(src + ":" + sport + ">" + dst + ":" + dport)
	return b.String()
}

// Lookup returns the start time of row's flow, if listed.
func (st *Starts) Lookup(r FlowRow) (float64, bool) {
	if st == nil {
		return 0, false
	}
	v, ok := st.m[st.key(r.Labels, r.Src, strconv.Itoa(int(r.SPort)), r.Dst, strconv.Itoa(int(r.DPort)))]
	return v, ok
}

// flowsOf returns the listed flows whose label values all equal those in
// labels (a label missing from labels matches nothing), keyed by endpoints.
func (st *Starts) flowsOf(labels map[string]string) map[string]AppFlow {
	out := map[string]AppFlow{}
	for _, f := range st.flows {
		ok := true
		for _, l := range st.labels {
			if v, has := labels[l]; !has || v != f.labels[l] {
				ok = false
				break
			}
		}
		if ok {
			out[f.flow.key()] = f.flow
		}
	}
	return out
}
