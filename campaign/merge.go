package campaign

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tcpviz/tcpviz/query"
)

// Kbps is the goodput rate of bytes delivered over intervalS seconds, in
// kbit/s (bytes × 8 / intervalS / 1000); 0 for an empty interval. It is
// the one formula of FlowRow.Kbps, so a reader of the per-flow CSV that
// has bytes and interval_s recomputes the very float the writer had.
func Kbps(bytes int64, intervalS float64) float64 { return query.RateKbps(bytes, intervalS) }

// ErrConflict is returned by MergeRows when one flow (same file, run,
// flow 5-tuple and labels) comes with different numbers from two inputs:
// they are not shards of one campaign.
var ErrConflict = errors.New("one flow with different numbers")

// RowSource is where a row was read: a file name and a line number.
type RowSource struct {
	Name string
	Line int
}

func (s RowSource) String() string { return s.Name + " line " + strconv.Itoa(s.Line) }

// Duplicate is a row given again, counted once: where it was kept and
// where it was given again.
type Duplicate struct{ Kept, Again RowSource }

// FlowKey identifies a row of the per-flow table: its capture file, run,
// connection, flow endpoints and every label. Two rows with one key are
// one flow of one run.
func FlowKey(r FlowRow) string {
	names := make([]string, 0, len(r.Labels))
	for n := range r.Labels {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00%d\x00%s\x00%d\x00%s\x00%d", r.File, r.RunKey, r.Conn, r.Src, r.SPort, r.Dst, r.DPort)
	for _, n := range names {
		fmt.Fprintf(&b, "\x00%s=%s", n, r.Labels[n])
	}
	return b.String()
}

// MergeRows merges per-flow rows read from several inputs (sets[i] read
// from sources[i][j]) into one table: a row whose key (FlowKey) was seen
// before with the same numbers is a repeat — the same CSV given twice, or
// shards that overlap — and is counted once and listed in dups; with
// different numbers it is an error wrapping ErrConflict. Without this a
// repeated input would double every per-run sum (trial13 A5).
func MergeRows(sets [][]FlowRow, sources [][]RowSource) (rows []FlowRow, dups []Duplicate, err error) {
	seen := map[string]int{}
	var from []RowSource
	for i, set := range sets {
		for j, r := range set {
			src := sources[i][j]
			k := FlowKey(r)
			if at, ok := seen[k]; ok {
				p := rows[at]
				if p.Bytes != r.Bytes || p.IntervalS != r.IntervalS || p.FirstS != r.FirstS || p.Vantage != r.Vantage {
					return nil, nil, fmt.Errorf("%w: %s and %s hold flow %s:%d → %s:%d of %s with %d and %d bytes over %g and %g s; merge the outputs of one campaign",
						ErrConflict, from[at], src, r.Src, r.SPort, r.Dst, r.DPort, r.RunKey, p.Bytes, r.Bytes, p.IntervalS, r.IntervalS)
				}
				dups = append(dups, Duplicate{Kept: from[at], Again: src})
				continue
			}
			seen[k] = len(rows)
			rows = append(rows, r)
			from = append(from, src)
		}
	}
	return rows, dups, nil
}
