package main

import (
	"errors"
	"time"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// compareRuns analyses compare's arguments (compare.Load), each capture
// read as every verb reads one (--filter, standard input, warnings).
func (e *env) compareRuns(specs []compare.Spec, af *analysisFlags, sel query.Selection, interval time.Duration) ([]compare.Run, []*query.View, error) {
	opts, err := af.options()
	if err != nil {
		return nil, nil, err
	}
	runs, views, err := compare.Load(specs, sel, compare.Reader{
		View: func(path string, s query.Selection) (*query.View, error) {
			return e.view(path, af, s, query.Options{Interval: interval}, false)
		},
		Report:   func(path string, o tcpanalysis.Options) (*tcpanalysis.Report, error) { return e.analyze(path, o) },
		Analysis: opts, Interval: interval,
	})
	if errors.Is(err, compare.ErrPair) {
		return nil, nil, &exitError{code: 2, err: err}
	}
	if err != nil {
		return nil, nil, inputError(err)
	}
	return runs, views, nil
}
