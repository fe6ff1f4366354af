// Package study writes the MANET study's outputs from a campaign's tables
// (campaign.Tables): the booktabs LaTeX tables, the figure of the mean per
// group with CI whiskers and per-run points, and the figure of the paired
// differences (docs/metrics.md#goodput).
package study

import (
	"fmt"
	"io"
	"strings"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/stats"
)

// Spec names what the tables hold, for captions, titles and axes.
type Spec struct {
	Name   string  // the campaign, in titles and captions (a label or its paths)
	Group  string  // the label runs are grouped by (e.g. protocol)
	Pair   string  // the label that pairs runs across groups (e.g. seed); "" for none
	PerRun string  // how a run's flows make its value: "sum" or "mean"
	Level  float64 // confidence level of the t intervals, e.g. 0.95
}

// metric is what one point is: the goodput of a run or of a flow.
func (s Spec) metric() string {
	if s.PerRun == "mean" {
		return "goodput per flow"
	}
	return "goodput per run"
}

// key is what pairs the runs ("run" when nothing does).
func (s Spec) key() string {
	if s.Pair == "" {
		return "run"
	}
	return s.Pair
}

// WriteTeX writes t as booktabs LaTeX tables (\usepackage{booktabs}): the
// groups, and with s.Pair the paired differences (a wide table).
func WriteTeX(w io.Writer, s Spec, t *campaign.Tables) error {
	what := fmt.Sprintf("%s (%s of the run's flows), mean with t-based %g %% CI", s.metric(), s.PerRun, s.Level*100)
	o := stats.TeXOptions{Caption: fmt.Sprintf("%s: %s, %s", texText(s.Name), texText(what), groupsN(t)), Label: "tab:goodput",
		Group: s.Group, Metric: "goodput", Unit: "kbps", Key: s.key()}
	if err := stats.WriteGroupsTeX(w, o, t.Groups); err != nil {
		return err
	}
	if s.Pair == "" {
		return nil
	}
	fmt.Fprintln(w)
	o.Caption = fmt.Sprintf("%s: paired per-%s differences (first $-$ second): t-based %s CI of the mean difference, two-sided exact Wilcoxon signed-rank $p$, %ss with a positive difference",
		texText(s.Name), texText(s.key()), texText(fmt.Sprintf("%g %%", s.Level*100)), texText(s.key()))
	o.Label = "tab:goodput-paired"
	o.Wide = true // four columns of intervals: too wide for one column of a paper
	return stats.WritePairsTeX(w, o, t.Pairs)
}

// Figures draws t: the mean per group with CI whiskers and per-run points,
// and, when s.Pair is set and t has pairs, the paired differences (nil
// otherwise).
func Figures(s Spec, t *campaign.Tables) (groups, pairs *plot.Figure, err error) {
	o := plot.StudyOptions{Group: s.Group, Metric: s.metric(), Unit: plot.UnitKbps, Level: s.Level, Key: s.key(),
		Title: fmt.Sprintf("%s: %s (%s of the run's flows) by %s", s.Name, s.metric(), s.PerRun, s.Group)}
	var gs []plot.Group
	for i, g := range t.Groups {
		gs = append(gs, plot.Group{Label: g.Label, Mean: g.Mean, Lo: g.Lo, Hi: g.Hi, Points: t.Values[i]})
	}
	gf, err := plot.GroupMeans(o, gs)
	if err != nil {
		return nil, nil, err
	}
	if s.Pair == "" || len(t.Pairs) == 0 {
		return &gf, nil, nil
	}
	var ds []plot.Diff
	for i, p := range t.Pairs {
		ds = append(ds, plot.Diff{Label: p.Label, Mean: p.Mean, Lo: p.Lo, Hi: p.Hi, Points: t.Diffs[i],
			Note: fmt.Sprintf("Wilcoxon p = %s, %d/%d > 0", stats.FormatPAs(p.P, stats.Unicode), p.Positive, p.N)})
	}
	o.Title = fmt.Sprintf("%s: paired per-%s differences in %s (first − second)", s.Name, s.key(), s.metric())
	pf, err := plot.PairedDiffs(o, ds)
	if err != nil {
		return nil, nil, err
	}
	return &gf, &pf, nil
}

// groupsN is "$n = 20$" when every group has the same n, else the list.
func groupsN(t *campaign.Tables) string {
	var parts []string
	same := true
	for _, g := range t.Groups {
		parts = append(parts, fmt.Sprintf("%s %d", texText(g.Label), g.N))
		same = same && g.N == t.Groups[0].N
	}
	if same && len(t.Groups) > 0 {
		return fmt.Sprintf("$n = %d$", t.Groups[0].N)
	}
	return "$n$: " + strings.Join(parts, ", ")
}

// texText escapes LaTeX's special characters in plain text.
func texText(s string) string {
	return strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
		"{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`).Replace(s)
}

// LeftOut counts the rows Tables leaves out: those a split-TCP PEP
// acknowledged (vantage pep: PEP rows in PEPRuns runs) and those one may
// have (vantage pep?: Possible rows in PossibleRuns runs).
type LeftOut struct {
	PEP, PEPRuns           int
	Possible, PossibleRuns int
}

// Tables computes the study's tables from per-flow rows: the rows a
// split-TCP PEP acknowledged (vantage pep) are left out, since their bytes
// were accepted by the PEP, not delivered end to end, and so are the rows
// one may have (vantage pep?: whether their bytes were delivered is
// unknown); each run's value is s.PerRun of its flows (campaign.PerRun);
// groups and pairs as campaign.AggregateWith. It returns the tables, the
// number of runs, and how many rows in how many runs the PEP rule left
// out.
func Tables(rows []campaign.FlowRow, s Spec, o campaign.AggregateOptions) (t *campaign.Tables, runs int, left LeftOut, err error) {
	kept := rows[:0:0]
	pepRuns, maybeRuns := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		switch r.Vantage {
		case campaign.AtProxy:
			left.PEP++
			pepRuns[r.RunKey] = true
			continue
		case campaign.AtProxyPossible:
			left.Possible++
			maybeRuns[r.RunKey] = true
			continue
		}
		kept = append(kept, r)
	}
	left.PEPRuns, left.PossibleRuns = len(pepRuns), len(maybeRuns)
	per, err := campaign.PerRun(kept, s.PerRun)
	if err != nil {
		return nil, 0, left, err
	}
	t, err = campaign.AggregateWith(per, s.Group, s.Pair, s.Level, o)
	return t, len(per), left, err
}

// WriteMarkdown writes t as Markdown: a line naming the per-run value and
// the number of runs, the groups, and with s.Pair the paired differences
// and the pairing keys present in one group only; then notes, one a line.
func WriteMarkdown(w io.Writer, s Spec, t *campaign.Tables, runs int, notes []string) error {
	fmt.Fprintf(w, "\nGoodput per run = %s over the run's flows (kbit/s); %d runs.\n\n", s.PerRun, runs)
	if err := stats.WriteGroupsMarkdown(w, fmt.Sprintf("Goodput — kbps, mean with t-based %g %% CI", s.Level*100), "kbps", t.Groups); err != nil {
		return err
	}
	if s.Pair != "" {
		fmt.Fprintln(w)
		if err := stats.WritePairsMarkdown(w, fmt.Sprintf("Paired by %s — difference (first − second), kbps, t-based %g %% CI, exact Wilcoxon signed-rank p", s.Pair, s.Level*100), "kbps", t.Pairs); err != nil {
			return err
		}
		for _, u := range t.Unpaired {
			fmt.Fprintln(w, "note:", u)
		}
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	return nil
}
