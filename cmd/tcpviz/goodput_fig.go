package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/study"
)

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

// writeStudy writes the figures and the LaTeX tables of the study's
// tables (package study), as --plot and --tables-tex ask.
func (e *env) writeStudy(f *goodputFlags, out *study.Outcome) error {
	s := &f.o.Tables
	msg := e.stdout // the paths written, where the tables go
	if f.out == "" && (f.asCSV || f.asJSON) {
		msg = e.stderr
	}
	if s.TeX != "" {
		if err := writeFileAtomic(s.TeX, func(fh *os.File) error { return study.WriteTeX(fh, out.Spec, out.Tables) }); err != nil {
			return err
		}
		fmt.Fprintln(msg, s.TeX)
	}
	if s.Plot == "" {
		return nil
	}
	st, err := e.fig.style()
	if err != nil {
		return err
	}
	groups, pairs, err := study.Figures(out.Spec, out.Tables)
	if err != nil {
		return err
	}
	format := plot.FormatOf(s.Plot)
	// Both figures are drawn before either is written: one that cannot
	// be drawn (too small for its text) leaves no file of the other.
	type drawn struct {
		name string
		b    bytes.Buffer
	}
	figs := []*drawn{{name: s.Plot}}
	if pairs != nil {
		ext := filepath.Ext(s.Plot)
		figs = append(figs, &drawn{name: strings.TrimSuffix(s.Plot, ext) + ".pairs" + ext})
	}
	for i, d := range figs {
		fig := groups
		if i == 1 {
			fig = pairs
		}
		if err := fig.SaveStyle(&d.b, format, st); err != nil {
			return fmt.Errorf("%s: %w (nothing written)", d.name, err)
		}
	}
	for _, d := range figs {
		if err := writeFileAtomic(d.name, func(fh *os.File) error { _, err := fh.Write(d.b.Bytes()); return err }); err != nil {
			return err
		}
		fmt.Fprintln(msg, d.name)
	}
	return nil
}
