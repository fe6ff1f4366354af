package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// compareRuns analyses compare's arguments (compare.Load), each capture
// read as every verb reads one (--filter, standard input, warnings); without
// --interval every run gets the finest of their default goodput intervals.
func (e *env) compareRuns(specs []compare.Spec, af *analysisFlags, sel query.Selection, interval time.Duration) ([]compare.Run, []*query.View, error) {
	opts, err := af.options()
	if err != nil {
		return nil, nil, err
	}
	// Standard input ("-") is spooled once for the run: every run, pair
	// side and --pep's packet evidence read the same bytes, and every
	// output names it "stdin" (compare's shown).
	for i := range specs {
		if specs[i].File, err = e.input(specs[i].File); err != nil {
			return nil, nil, err
		}
		if specs[i].ServerFile != "" {
			if specs[i].ServerFile, err = e.input(specs[i].ServerFile); err != nil {
				return nil, nil, err
			}
		}
	}
	runs, views, err := compare.Load(specs, sel, compare.Reader{
		View: func(path string, s query.Selection) (*query.View, error) {
			return e.viewAs(path, af, s, query.Options{Interval: interval}, "FILE#")
		},
		Report:   func(path string, o tcpanalysis.Options) (*tcpanalysis.Report, error) { return e.analyze(path, o) },
		Analysis: opts, Interval: interval, Warn: e.warn,
	})
	if errors.Is(err, compare.ErrPair) {
		return nil, nil, &exitError{code: 2, err: err}
	}
	if err != nil {
		return nil, nil, inputError(err)
	}
	if interval <= 0 {
		query.ShareInterval(views)
	}
	return runs, views, nil
}

// alignFlag applies compare's --align, an alias of --ref: given alone it
// sets the reference point; given with a different --ref it is refused
// rather than the last one silently winning (trial13 B4).
func alignFlag(cmd interface{ Flags() *pflag.FlagSet }, sf *selFlags, align string) error {
	fl := cmd.Flags()
	if !fl.Changed("align") {
		return nil
	}
	if fl.Changed("ref") && align != sf.ref {
		return fmt.Errorf("--align %s and --ref %s: --align is another name for --ref; give one", align, sf.ref)
	}
	sf.ref = align
	return nil
}
