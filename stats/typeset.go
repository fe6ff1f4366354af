package stats

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Typeset is how a table writes numbers: the minus sign and the form of a
// small p value.
type Typeset int

const (
	// ASCII writes "-" and "1.9e-06" (CSV, scripts).
	ASCII Typeset = iota
	// Unicode writes "−" (U+2212) and "1.9 × 10⁻⁶" (Markdown, terminals),
	// as the study's published tables do.
	Unicode
	// TeX writes "$-$" and "$1.9 \times 10^{-6}$" (LaTeX tables).
	TeX
)

var superscript = strings.NewReplacer("-", "⁻", "0", "⁰", "1", "¹", "2", "²", "3", "³", "4", "⁴", "5", "⁵", "6", "⁶", "7", "⁷", "8", "⁸", "9", "⁹")

// FormatPAs formats a p value with two significant digits in typeset ts,
// trailing zeros kept: below 0.01 as mantissa × 10^exponent ("1.9 × 10⁻⁶",
// "$1.9 \times 10^{-6}$", "1.9e-06"), plainly otherwise ("0.43", "0.90",
// "1.0"). 0 prints as "0" and NaN as "n/a".
func FormatPAs(p float64, ts Typeset) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p == 0:
		return "0"
	case p >= 0.01:
		return twoSig(p)
	}
	e := strconv.FormatFloat(p, 'e', 1, 64) // "1.9e-06"
	if ts == ASCII {
		return e
	}
	mant, exp, _ := strings.Cut(e, "e")
	n, _ := strconv.Atoi(exp) // "-06" → -6
	if ts == TeX {
		return fmt.Sprintf(`$%s \times 10^{%d}$`, mant, n)
	}
	return mant + " × 10" + superscript.Replace(strconv.Itoa(n))
}

// twoSig formats p ≥ 0.01 plainly with two significant digits, trailing
// zeros kept: 0.898 → "0.90", 0.0431 → "0.043", 1 → "1.0".
func twoSig(p float64) string {
	d := max(1-int(math.Floor(math.Log10(p))), 0)
	s := strconv.FormatFloat(p, 'f', d, 64)
	// Rounding up to the next power of ten (0.0996 → "0.100") adds a digit.
	if r, _ := strconv.ParseFloat(s, 64); d > 0 && math.Floor(math.Log10(r)) > math.Floor(math.Log10(p)) {
		s = strconv.FormatFloat(p, 'f', d-1, 64)
	}
	return s
}

// num formats x with one decimal (sign forced when signed) in typeset ts.
func num(x float64, signed bool, ts Typeset) string {
	f := "%.1f"
	if signed {
		f = "%+.1f"
	}
	s := fmt.Sprintf(f, x)
	if s == "-0.0" {
		s = "0.0"
		if signed {
			s = "+0.0"
		}
	}
	switch ts {
	case Unicode:
		s = strings.Replace(s, "-", "−", 1)
	case TeX:
		s = strings.Replace(s, "-", "$-$", 1)
		s = strings.Replace(s, "+", "$+$", 1)
	}
	return s
}

// intervalAs formats "mean [lo, hi]" with one decimal in typeset ts;
// "[n/a]" for an undefined interval.
func intervalAs(mean, lo, hi float64, signed bool, ts Typeset) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return num(mean, signed, ts) + " [n/a]"
	}
	return fmt.Sprintf("%s [%s, %s]", num(mean, signed, ts), num(lo, signed, ts), num(hi, signed, ts))
}

// labelAs rewrites the minus of a comparison label "a − b" for ts.
func labelAs(l string, ts Typeset) string {
	switch ts {
	case ASCII:
		return strings.ReplaceAll(l, "−", "-")
	case TeX:
		return strings.ReplaceAll(texEscape(l), "−", "$-$")
	}
	return l
}

// numPercent is a number, a space and an escaped percent sign: "95 \%".
var numPercent = regexp.MustCompile(`([0-9]) (\\%)`)

// texTies joins a number to its percent sign with a tie ("95 \%" →
// "95~\%"), so LaTeX neither breaks the line there nor stretches the space.
func texTies(s string) string { return numPercent.ReplaceAllString(s, "$1~$2") }

// texEscape escapes the characters LaTeX treats specially in text.
func texEscape(s string) string {
	return texTies(strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
		"{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`, "|", `\textbar{}`, "<", `\textless{}`, ">", `\textgreater{}`).Replace(s))
}

// TeXOptions label a LaTeX table.
type TeXOptions struct {
	Caption string // \caption text (LaTeX, written as given); empty: none
	Label   string // \label key, e.g. "tab:goodput"; empty: none
	Group   string // heading of the first column of the group table, e.g. "protocol"
	Metric  string // the quantity, e.g. "goodput"
	Unit    string // e.g. "kbps"
	Key     string // the pairing label, e.g. "seed" ("seeds positive")
	// Wide writes a table* (spanning both columns of a two-column
	// paper): the paired table does not fit one column.
	Wide bool
}

// WriteGroupsTeX writes rows as a booktabs LaTeX table in the layout of the
// MANET study's first table: group, then "mean [lo, hi]" with one decimal.
// The caption should give n and the CI level. It returns the first write
// error.
func WriteGroupsTeX(w io.Writer, o TeXOptions, rows []GroupRow) error {
	bw := bufio.NewWriter(w)
	texBegin(bw, o, "lr")
	fmt.Fprintf(bw, "%s & %s (%s) \\\\\n\\midrule\n", texEscape(o.Group), texEscape(o.Metric), texEscape(o.Unit))
	for _, r := range rows {
		fmt.Fprintf(bw, "%s & %s \\\\\n", texEscape(r.Label), intervalAs(r.Mean, r.Lo, r.Hi, false, TeX))
	}
	texEnd(bw, o)
	return bw.Flush()
}

// WritePairsTeX writes rows as a booktabs LaTeX table in the layout of the
// study's paired table: comparison, "Δmetric (unit)" as "+mean [+lo, +hi]",
// Wilcoxon p ("$1.9 \times 10^{-6}$") and "k/n" keys positive. It returns
// the first write error.
func WritePairsTeX(w io.Writer, o TeXOptions, rows []PairRow) error {
	bw := bufio.NewWriter(w)
	texBegin(bw, o, "lrrr")
	fmt.Fprintf(bw, "comparison & $\\Delta$%s (%s) & Wilcoxon $p$ & %ss positive \\\\\n\\midrule\n", texEscape(o.Metric), texEscape(o.Unit), texEscape(o.Key))
	for _, r := range rows {
		fmt.Fprintf(bw, "%s & %s & %s & %d/%d \\\\\n", labelAs(r.Label, TeX), intervalAs(r.Mean, r.Lo, r.Hi, true, TeX),
			FormatPAs(r.P, TeX), r.Positive, r.N)
	}
	texEnd(bw, o)
	return bw.Flush()
}

func texBegin(w io.Writer, o TeXOptions, cols string) {
	fmt.Fprintf(w, "%% needs \\usepackage{booktabs}\n\\begin{%s}[t]\n\\centering\n", texEnv(o))
	if o.Caption != "" {
		fmt.Fprintf(w, "\\caption{%s}\n", texTies(o.Caption))
	}
	if o.Label != "" {
		fmt.Fprintf(w, "\\label{%s}\n", o.Label)
	}
	fmt.Fprintf(w, "\\begin{tabular}{%s}\n\\toprule\n", cols)
}

func texEnd(w io.Writer, o TeXOptions) {
	fmt.Fprintf(w, "\\bottomrule\n\\end{tabular}\n\\end{%s}\n", texEnv(o))
}

func texEnv(o TeXOptions) string {
	if o.Wide {
		return "table*"
	}
	return "table"
}

// WriteGroupsCSVRounded writes rows as CSV for spreadsheets and papers:
// group,n,mean,ci_lo,ci_hi with one decimal, an undefined bound empty, ASCII
// only. It returns the first write error.
func WriteGroupsCSVRounded(w io.Writer, rows []GroupRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"group", "n", "mean", "ci_lo", "ci_hi"})
	for _, r := range rows {
		cw.Write([]string{r.Label, strconv.Itoa(r.N), round1(r.Mean), round1(r.Lo), round1(r.Hi)})
	}
	cw.Flush()
	return cw.Error()
}

// WritePairsCSVRounded writes rows as CSV for spreadsheets and papers:
// comparison ("a - b", ASCII minus),n,mean_diff,ci_lo,ci_hi (one decimal,
// an undefined bound empty),wilcoxon_p (two significant digits, "1.9e-06"),
// positive. It returns the first write error.
func WritePairsCSVRounded(w io.Writer, rows []PairRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"comparison", "n", "mean_diff", "ci_lo", "ci_hi", "wilcoxon_p", "positive"})
	for _, r := range rows {
		p := FormatPAs(r.P, ASCII)
		if p == "n/a" {
			p = ""
		}
		cw.Write([]string{labelAs(r.Label, ASCII), strconv.Itoa(r.N), round1(r.Mean), round1(r.Lo), round1(r.Hi), p, strconv.Itoa(r.Positive)})
	}
	cw.Flush()
	return cw.Error()
}

// round1 is x with one decimal, "" for NaN.
func round1(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	s := strconv.FormatFloat(x, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	return s
}
