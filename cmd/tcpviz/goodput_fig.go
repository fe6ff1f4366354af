package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/stats"
)

// studyFlags are the goodput verb's paper outputs: the study's figures and
// LaTeX tables, and the group order.
type studyFlags struct {
	plot  string
	tex   string
	order []string
	pairs []string // "first:second"
	name  string   // the campaign's name in titles: the PATH arguments
}

func (f *studyFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.plot, "plot", "", "with --group: write the mean per group with CI whiskers and per-run points to this figure (.png, .svg, .pdf); with --pair also the paired differences to NAME.pairs.EXT")
	c.Flags().StringVar(&f.tex, "tables-tex", "", "with --group: write the tables as booktabs LaTeX (\\usepackage{booktabs}) to this file")
	c.Flags().StringSliceVar(&f.order, "order", nil, "order of the groups in tables and figures, and of each comparison (first − second), e.g. anthocnet,olsr,dsdv,aodv; groups not named follow sorted")
	c.Flags().StringSliceVar(&f.pairs, "pairs", nil, "with --pair: only these comparisons, in this order, each FIRST:SECOND (difference first − second), e.g. anthocnet:aodv,olsr:aodv,dsdv:aodv,anthocnet:olsr")
}

// options returns the table order the flags ask for.
func (f *studyFlags) options() (campaign.AggregateOptions, error) {
	o := campaign.AggregateOptions{Order: f.order}
	for _, p := range f.pairs {
		a, b, ok := strings.Cut(p, ":")
		if !ok || a == "" || b == "" || a == b {
			return o, fmt.Errorf("--pairs %q: want FIRST:SECOND with two different groups", p)
		}
		o.Pairs = append(o.Pairs, [2]string{a, b})
	}
	return o, nil
}

// check validates the flags before any capture is read.
func (f *studyFlags) check(group string) error {
	if (f.plot != "" || f.tex != "" || len(f.order) > 0 || len(f.pairs) > 0) && group == "" {
		return fmt.Errorf("--plot, --tables-tex, --order and --pairs need --group")
	}
	if _, err := f.options(); err != nil {
		return err
	}
	if f.plot != "" && plot.FormatOf(f.plot) == "" {
		return fmt.Errorf("--plot %s: use .png, .svg or .pdf", f.plot)
	}
	return nil
}

// campaignName names a campaign in titles: --label, else its paths.
func (e *env) campaignName(args []string) string {
	if e.fig.label != "" {
		return e.fig.label
	}
	var names []string
	for _, a := range args {
		names = append(names, filepath.Base(filepath.Clean(a)))
	}
	return strings.Join(names, ", ")
}

// writeStudy writes the figures and the LaTeX tables of t, as --plot and
// --tables-tex ask.
func (e *env) writeStudy(f *goodputFlags, t *campaign.Tables) error {
	s := &f.study
	msg := e.stdout // the paths written, where the tables go
	if f.out == "" && (f.asCSV || f.asJSON) {
		msg = e.stderr
	}
	metric := "goodput per run"
	if f.perRun == "mean" {
		metric = "goodput per flow"
	}
	key := f.pair
	if key == "" {
		key = "run"
	}
	what := fmt.Sprintf("%s (%s of the run's flows), mean with t-based %g %% CI", metric, f.perRun, f.level*100)
	if s.tex != "" {
		err := writeFileAtomic(s.tex, func(fh *os.File) error {
			n := groupsN(t)
			o := stats.TeXOptions{Caption: fmt.Sprintf("%s: %s, %s", texText(s.name), texText(what), n), Label: "tab:goodput",
				Group: f.group, Metric: "goodput", Unit: "kbps", Key: key}
			if err := stats.WriteGroupsTeX(fh, o, t.Groups); err != nil {
				return err
			}
			if f.pair == "" {
				return nil
			}
			fmt.Fprintln(fh)
			o.Caption = fmt.Sprintf("%s: paired per-%s differences (first $-$ second): t-CI of the mean difference, two-sided exact Wilcoxon signed-rank $p$, %ss with a positive difference",
				texText(s.name), texText(key), texText(key))
			o.Label = "tab:goodput-paired"
			o.Wide = true // four columns of intervals: too wide for one column of a paper
			return stats.WritePairsTeX(fh, o, t.Pairs)
		})
		if err != nil {
			return err
		}
		fmt.Fprintln(msg, s.tex)
	}
	if s.plot == "" {
		return nil
	}
	st, err := e.fig.style()
	if err != nil {
		return err
	}
	o := plot.StudyOptions{Group: f.group, Metric: metric, Unit: plot.UnitKbps, Level: f.level, Key: key,
		Title: fmt.Sprintf("%s: %s (%s of the run's flows) by %s", s.name, metric, f.perRun, f.group)}
	var gs []plot.Group
	for i, g := range t.Groups {
		gs = append(gs, plot.Group{Label: g.Label, Mean: g.Mean, Lo: g.Lo, Hi: g.Hi, Points: t.Values[i]})
	}
	fig, err := plot.GroupMeans(o, gs)
	if err != nil {
		return err
	}
	format := plot.FormatOf(s.plot)
	if err := writeFileAtomic(s.plot, func(fh *os.File) error { return fig.SaveStyle(fh, format, st) }); err != nil {
		return err
	}
	fmt.Fprintln(msg, s.plot)
	if f.pair == "" || len(t.Pairs) == 0 {
		return nil
	}
	var ds []plot.Diff
	for i, p := range t.Pairs {
		ds = append(ds, plot.Diff{Label: p.Label, Mean: p.Mean, Lo: p.Lo, Hi: p.Hi, Points: t.Diffs[i],
			Note: fmt.Sprintf("Wilcoxon p = %s, %d/%d > 0", stats.FormatPAs(p.P, stats.Unicode), p.Positive, p.N)})
	}
	o.Title = fmt.Sprintf("%s: paired per-%s differences in %s (first − second)", s.name, key, metric)
	pf, err := plot.PairedDiffs(o, ds)
	if err != nil {
		return err
	}
	ext := filepath.Ext(s.plot)
	pairs := strings.TrimSuffix(s.plot, ext) + ".pairs" + ext
	if err := writeFileAtomic(pairs, func(fh *os.File) error { return pf.SaveStyle(fh, format, st) }); err != nil {
		return err
	}
	fmt.Fprintln(msg, pairs)
	return nil
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
