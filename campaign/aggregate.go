package campaign

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tcpviz/tcpviz/stats"
)

// RunValue is one run's goodput: the sum (or mean) of its flows' goodput in
// kbit/s.
type RunValue struct {
	RunKey string
	Labels map[string]string // labels of the run's flows (per-capture labels such as node come from one of them)
	Flows  int
	Kbps   float64
}

// PerRun aggregates flow rows into one value per run: how is "sum" (total
// goodput of the run's flows, as the MANET study reports per seed) or "mean"
// (mean per flow). It returns runs sorted by RunKey; an unknown how is an
// error.
func PerRun(rows []FlowRow, how string) ([]RunValue, error) {
	if how != "sum" && how != "mean" {
		return nil, fmt.Errorf("per-run aggregation %q: want sum or mean", how)
	}
	idx := map[string]int{}
	var runs []RunValue
	for _, r := range rows {
		i, ok := idx[r.RunKey]
		if !ok {
			i = len(runs)
			idx[r.RunKey] = i
			runs = append(runs, RunValue{RunKey: r.RunKey, Labels: r.Labels})
		}
		runs[i].Flows++
		runs[i].Kbps += r.Kbps
	}
	if how == "mean" {
		for i := range runs {
			runs[i].Kbps /= float64(runs[i].Flows)
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].RunKey < runs[j].RunKey })
	return runs, nil
}

// Tables are the study's two tables.
type Tables struct {
	Groups []stats.GroupRow // per group: mean goodput with a t-based CI
	Pairs  []stats.PairRow  // per pair of groups: mean paired difference, Wilcoxon p, k/n positive
	// Unpaired lists, per comparison, pairing keys present in only one group.
	Unpaired []string
	// Values holds, parallel to Groups, the per-run values of each group
	// (the points behind the mean), in run order; Keys their pairing
	// label (empty without a pairing label).
	Values [][]float64
	Keys   [][]string
	// Diffs holds, parallel to Pairs, the per-key differences (first −
	// second) behind each row, in key order.
	Diffs [][]float64
}

// Aggregate groups runs by the label group (e.g. "protocol") and, when pair
// is not empty, compares every two groups on the pairing label (e.g.
// "seed"): differences are first − second in the groups' sorted order.
// Groups with one run get an undefined CI; a missing label is an error.
func Aggregate(runs []RunValue, group, pair string, level float64) (*Tables, error) {
	return AggregateWith(runs, group, pair, level, AggregateOptions{})
}

// AggregateOptions order the study's tables.
type AggregateOptions struct {
	// Order lists groups (e.g. anthocnet, olsr, dsdv, aodv): the group
	// table lists them so, and every two groups are compared first −
	// second in that order. Groups not named follow in sorted order.
	Order []string
	// Pairs, when not empty, are the only comparisons, in this order,
	// each first − second (e.g. {anthocnet, aodv}, {olsr, aodv}).
	Pairs [][2]string
}

// ErrDuplicateRuns is returned by AggregateWith when one group holds two
// runs with the same pairing key: a paired comparison takes one run per
// key in each group, and which of the two to pair is not for the tables
// to guess.
var ErrDuplicateRuns = errors.New("two runs of one group with the same pairing key")

// AggregateWith is Aggregate with the tables ordered by o. A group named
// in o that no run has is an error; with pair, so is a group holding two
// runs with one pairing key (ErrDuplicateRuns, naming them): the same
// captures given twice, or labels that do not tell the runs apart.
func AggregateWith(runs []RunValue, group, pair string, level float64, o AggregateOptions) (*Tables, error) {
	order := o.Order
	byGroup := map[string][]RunValue{}
	var names []string
	for _, r := range runs {
		g, ok := r.Labels[group]
		if !ok {
			return nil, fmt.Errorf("run %s has no label %q", r.RunKey, group)
		}
		if _, seen := byGroup[g]; !seen {
			names = append(names, g)
		}
		byGroup[g] = append(byGroup[g], r)
	}
	sort.Strings(names)
	if pair != "" {
		if err := duplicateKeys(byGroup, names, group, pair); err != nil {
			return nil, err
		}
	}
	if len(order) > 0 {
		rank := map[string]int{}
		for i, o := range order {
			if _, ok := byGroup[o]; !ok {
				return nil, fmt.Errorf("order names %s=%s, but no run has it (groups: %v)", group, o, names)
			}
			if _, dup := rank[o]; dup {
				return nil, fmt.Errorf("order names %s=%s twice", group, o)
			}
			rank[o] = i
		}
		sort.SliceStable(names, func(i, j int) bool {
			ri, oki := rank[names[i]]
			rj, okj := rank[names[j]]
			switch {
			case oki && okj:
				return ri < rj
			case oki != okj:
				return oki
			}
			return false
		})
	}
	t := &Tables{}
	for _, g := range names {
		xs := make([]float64, len(byGroup[g]))
		for i, r := range byGroup[g] {
			xs[i] = r.Kbps
		}
		iv, err := stats.MeanCI(xs, level)
		if err != nil {
			return nil, fmt.Errorf("group %s: %w", g, err)
		}
		t.Groups = append(t.Groups, stats.NewGroupRow(g, iv))
		keys := make([]string, len(byGroup[g]))
		for i, r := range byGroup[g] {
			keys[i] = r.Labels[pair]
		}
		t.Values, t.Keys = append(t.Values, xs), append(t.Keys, keys)
	}
	if pair == "" {
		return t, nil
	}
	sample := func(g string) ([]stats.Pair[string], error) {
		var ps []stats.Pair[string]
		for _, r := range byGroup[g] {
			k, ok := r.Labels[pair]
			if !ok {
				return nil, fmt.Errorf("run %s has no label %q", r.RunKey, pair)
			}
			ps = append(ps, stats.Pair[string]{Key: k, Value: r.Kbps})
		}
		return ps, nil
	}
	comps := o.Pairs
	if len(comps) == 0 {
		for i := 0; i < len(names); i++ {
			for j := i + 1; j < len(names); j++ {
				comps = append(comps, [2]string{names[i], names[j]})
			}
		}
	}
	for _, c := range comps {
		for _, g := range c {
			if _, ok := byGroup[g]; !ok {
				return nil, fmt.Errorf("comparison %s − %s names %s=%s, but no run has it (groups: %v)", c[0], c[1], group, g, names)
			}
		}
	}
	for _, c := range comps {
		ni, nj := c[0], c[1]
		a, err := sample(ni)
		if err != nil {
			return nil, err
		}
		b, err := sample(nj)
		if err != nil {
			return nil, err
		}
		pr, err := stats.Paired(a, b, level)
		if err != nil {
			t.Unpaired = append(t.Unpaired, fmt.Sprintf("%s vs %s: %v", ni, nj, err))
			continue
		}
		t.Pairs = append(t.Pairs, stats.NewPairRow(ni+" − "+nj, pr))
		t.Diffs = append(t.Diffs, pr.Diffs)
		if len(pr.OnlyA)+len(pr.OnlyB) > 0 {
			t.Unpaired = append(t.Unpaired, fmt.Sprintf("%s vs %s: %s only in %s %v, only in %s %v", ni, nj, pair, ni, pr.OnlyA, nj, pr.OnlyB))
		}
	}
	return t, nil
}

// duplicateKeys returns an error wrapping ErrDuplicateRuns when a group
// (byGroup, names in order) holds two runs with one value of the pairing
// label pair: the first such runs by name, and how many runs in all share
// a group and a key with another.
func duplicateKeys(byGroup map[string][]RunValue, names []string, group, pair string) error {
	var first string
	n := 0
	for _, g := range names {
		byKey := map[string][]string{}
		var keys []string
		for _, r := range byGroup[g] {
			k, ok := r.Labels[pair]
			if !ok {
				return fmt.Errorf("run %s has no label %q", r.RunKey, pair)
			}
			if _, seen := byKey[k]; !seen {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], r.RunKey)
		}
		for _, k := range keys {
			if rs := byKey[k]; len(rs) > 1 {
				n += len(rs)
				if first == "" {
					first = fmt.Sprintf("%s=%s holds %d runs with %s=%s (%s)", group, g, len(rs), pair, k, strings.Join(rs, ", "))
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; %d runs in all share their %s and %s with another. A paired comparison takes one run per %s in each group: the same captures were given twice (two paths, copies, or two per-flow CSVs of one campaign), or the labels do not tell the runs apart (add the label that does)",
		ErrDuplicateRuns, first, n, group, pair, pair)
}

// SameRuns are runs no label tells apart: Runs (two or more run keys,
// sorted) share Labels ("name=value" sorted by name, space-separated).
type SameRuns struct {
	Labels string
	Runs   []string
}

// SameLabelRuns returns the runs of rows that no label tells apart, in
// the order of their first run: runs whose values are equal for every
// label that is the same for all of a run's captures in every run (so
// labels of a capture such as node and dev are left out). Rows without a capture (File "") and runs
// without labels are not compared. A campaign given twice, or a label
// pattern without the label that tells runs apart (the seed), gives such
// runs: the tables would count each as a run of its own.
func SameLabelRuns(rows []FlowRow) []SameRuns {
	perRun := map[string]map[string]string{} // run → label → value, "\x00" when it varies
	var runs []string
	for _, r := range rows {
		if r.File == "" || len(r.Labels) == 0 {
			continue
		}
		m, ok := perRun[r.RunKey]
		if !ok {
			m = map[string]string{}
			for n, v := range r.Labels {
				m[n] = v
			}
			perRun[r.RunKey] = m
			runs = append(runs, r.RunKey)
			continue
		}
		for n, v := range r.Labels {
			if m[n] != v {
				m[n] = "\x00"
			}
		}
	}
	varies := map[string]bool{}
	for _, m := range perRun {
		for n, v := range m {
			if v == "\x00" {
				varies[n] = true
			}
		}
	}
	sort.Strings(runs)
	byID := map[string][]string{}
	var ids []string
	for _, run := range runs {
		var parts []string
		for n, v := range perRun[run] {
			if !varies[n] {
				parts = append(parts, n+"="+v)
			}
		}
		if len(parts) == 0 {
			continue
		}
		sort.Strings(parts)
		id := strings.Join(parts, " ")
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], run)
	}
	var out []SameRuns
	for _, id := range ids {
		if len(byID[id]) > 1 {
			out = append(out, SameRuns{id, byID[id]})
		}
	}
	return out
}

// SortKey orders label values numerically when they are numbers.
func SortKey(a, b string) bool {
	x, e1 := strconv.ParseFloat(a, 64)
	y, e2 := strconv.ParseFloat(b, 64)
	if e1 == nil && e2 == nil {
		return x < y
	}
	return a < b
}
