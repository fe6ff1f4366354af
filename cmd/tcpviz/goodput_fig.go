package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tcpviz/tcpviz/campaign"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/study"
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

// writeStudy writes the figures and the LaTeX tables of t (package
// study), as --plot and --tables-tex ask.
func (e *env) writeStudy(f *goodputFlags, t *campaign.Tables) error {
	s := &f.study
	msg := e.stdout // the paths written, where the tables go
	if f.out == "" && (f.asCSV || f.asJSON) {
		msg = e.stderr
	}
	spec := f.studySpec()
	if s.tex != "" {
		if err := writeFileAtomic(s.tex, func(fh *os.File) error { return study.WriteTeX(fh, spec, t) }); err != nil {
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
	groups, pairs, err := study.Figures(spec, t)
	if err != nil {
		return err
	}
	format := plot.FormatOf(s.plot)
	if err := writeFileAtomic(s.plot, func(fh *os.File) error { return groups.SaveStyle(fh, format, st) }); err != nil {
		return err
	}
	fmt.Fprintln(msg, s.plot)
	if pairs == nil {
		return nil
	}
	ext := filepath.Ext(s.plot)
	name := strings.TrimSuffix(s.plot, ext) + ".pairs" + ext
	if err := writeFileAtomic(name, func(fh *os.File) error { return pairs.SaveStyle(fh, format, st) }); err != nil {
		return err
	}
	fmt.Fprintln(msg, name)
	return nil
}

// studySpec names the study's tables for package study.
func (f *goodputFlags) studySpec() study.Spec {
	return study.Spec{Name: f.study.name, Group: f.group, Pair: f.pair, PerRun: f.perRun, Level: f.level}
}
