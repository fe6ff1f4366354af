package stats

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// GroupRow is one row of the per-group table: a group's mean with its
// confidence interval, in the table's unit (e.g. kbps). Lo and Hi are NaN
// when the interval is undefined (N == 1).
type GroupRow struct {
	Label        string  // group name, e.g. the protocol
	N            int     // observations in the group
	Mean, Lo, Hi float64 // mean and CI bounds, in the table's unit
}

// NewGroupRow makes a GroupRow from an Interval computed by MeanCI.
func NewGroupRow(label string, iv Interval) GroupRow {
	return GroupRow{Label: label, N: iv.N, Mean: iv.Mean, Lo: iv.Lo, Hi: iv.Hi}
}

// PairRow is one row of the paired-comparison table: the mean per-key
// difference with its confidence interval (in the table's unit), the
// two-sided Wilcoxon signed-rank p and the count of positive differences.
type PairRow struct {
	Label        string  // comparison, e.g. "anthocnet vs aodv" (difference is first − second)
	N            int     // matched keys
	Mean, Lo, Hi float64 // mean difference and CI bounds, in the table's unit
	P            float64 // Wilcoxon signed-rank p, two-sided
	Positive     int     // keys with a positive difference; printed as Positive/N
}

// NewPairRow makes a PairRow from a PairedResult computed by Paired.
func NewPairRow[K cmp.Ordered](label string, r PairedResult[K]) PairRow {
	return PairRow{Label: label, N: r.N, Mean: r.Diff.Mean, Lo: r.Diff.Lo, Hi: r.Diff.Hi,
		P: r.Wilcoxon.P, Positive: r.Positive}
}

// FormatP formats a p-value for tables with two significant digits,
// trailing zeros kept: in exponent form below 0.01 ("1.9e-06", "3.7e-03"),
// plainly otherwise ("0.039", "0.43", "0.90", "1.0"). 0 prints as "0" and
// NaN as "n/a".
func FormatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p == 0:
		return "0"
	case p < 0.01:
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return twoSig(p)
}

// WriteGroupsMarkdown writes rows, in the order given, as a Markdown table
// with columns group, n and "mean [lo, hi]" (one decimal; "[n/a]" for an
// undefined interval). A non-empty title is written first as its own
// paragraph; unit, if non-empty, labels the mean column, e.g. "(kbps)".
// It returns the first write error.
func WriteGroupsMarkdown(w io.Writer, title, unit string, rows []GroupRow) error {
	bw := bufio.NewWriter(w)
	writeTitle(bw, title)
	fmt.Fprintf(bw, "| group | n | mean [CI]%s |\n", unitSuffix(unit))
	fmt.Fprintf(bw, "| :--- | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(bw, "| %s | %d | %s |\n", mdEscape(r.Label), r.N, intervalAs(r.Mean, r.Lo, r.Hi, false, Unicode))
	}
	return bw.Flush()
}

// WritePairsMarkdown writes rows, in the order given, as a Markdown table
// with columns comparison, n, "mean diff [lo, hi]" (one decimal with explicit
// sign, "−" minus), Wilcoxon p (FormatPAs Unicode: "1.9 × 10⁻⁶") and "k/n" positive. A non-empty title is
// written first as its own paragraph; unit, if non-empty, labels the
// difference column. It returns the first write error.
func WritePairsMarkdown(w io.Writer, title, unit string, rows []PairRow) error {
	bw := bufio.NewWriter(w)
	writeTitle(bw, title)
	fmt.Fprintf(bw, "| comparison | n | mean diff [CI]%s | Wilcoxon p | positive |\n", unitSuffix(unit))
	fmt.Fprintf(bw, "| :--- | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Fprintf(bw, "| %s | %d | %s | %s | %d/%d |\n", mdEscape(r.Label), r.N,
			intervalAs(r.Mean, r.Lo, r.Hi, true, Unicode), FormatPAs(r.P, Unicode), r.Positive, r.N)
	}
	return bw.Flush()
}

// WriteGroupsCSV writes rows, in the order given, as CSV with the header
// group,n,mean,ci_lo,ci_hi. Numbers are written at full precision (shortest
// representation that round-trips); an undefined bound is written as NaN.
// It returns the first write error.
func WriteGroupsCSV(w io.Writer, rows []GroupRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"group", "n", "mean", "ci_lo", "ci_hi"})
	for _, r := range rows {
		cw.Write([]string{r.Label, strconv.Itoa(r.N), ftoa(r.Mean), ftoa(r.Lo), ftoa(r.Hi)})
	}
	cw.Flush()
	return cw.Error()
}

// WritePairsCSV writes rows, in the order given, as CSV with the header
// comparison,n,mean_diff,ci_lo,ci_hi,wilcoxon_p,positive. Numbers are
// written at full precision; an undefined bound is written as NaN.
// It returns the first write error.
func WritePairsCSV(w io.Writer, rows []PairRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"comparison", "n", "mean_diff", "ci_lo", "ci_hi", "wilcoxon_p", "positive"})
	for _, r := range rows {
		cw.Write([]string{r.Label, strconv.Itoa(r.N), ftoa(r.Mean), ftoa(r.Lo), ftoa(r.Hi),
			ftoa(r.P), strconv.Itoa(r.Positive)})
	}
	cw.Flush()
	return cw.Error()
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func writeTitle(w io.Writer, title string) {
	if title != "" {
		fmt.Fprintf(w, "%s\n\n", title)
	}
}

func unitSuffix(unit string) string {
	if unit == "" {
		return ""
	}
	return " (" + unit + ")"
}

// mdEscape keeps a label from breaking the table: pipes are escaped and
// newlines become spaces.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
