package main

import (
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
	if err := writeFileAtomic(s.Plot, func(fh *os.File) error { return groups.SaveStyle(fh, format, st) }); err != nil {
		return err
	}
	fmt.Fprintln(msg, s.Plot)
	if pairs == nil {
		return nil
	}
	ext := filepath.Ext(s.Plot)
	name := strings.TrimSuffix(s.Plot, ext) + ".pairs" + ext
	if err := writeFileAtomic(name, func(fh *os.File) error { return pairs.SaveStyle(fh, format, st) }); err != nil {
		return err
	}
	fmt.Fprintln(msg, name)
	return nil
}
