package main

import (
	"time"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/query"
)

// compareRuns analyses every LABEL=FILE[#conn] or LABEL=CLIENT+SERVER[#conn]
// argument into a compare.Run, and the query.View its series are drawn
// from (for a pair, the client side's). sel is every run's selection but
// the connection, which each argument names.
func (e *env) compareRuns(specs []compare.Spec, af *analysisFlags, sel query.Selection, interval time.Duration) ([]compare.Run, []*query.View, error) {
	var runs []compare.Run
	var views []*query.View
	for _, sp := range specs {
		s := sel
		s.Conn = sp.Conn
		if !sp.IsPair() {
			v, err := e.view(sp.File, af, s, query.Options{Interval: interval}, false)
			if err != nil {
				return nil, nil, err
			}
			run, err := compare.NewRun(sp, v.Conn, v.Dir, sel.Ref.String())
			if err != nil {
				return nil, nil, err
			}
			runs, views = append(runs, run), append(views, v)
			continue
		}
		opts, err := af.options()
		if err != nil {
			return nil, nil, err
		}
		opts.Detail = true
		opts.Keep = func(int) bool { return true }
		clOpts, svOpts := opts, opts
		if sp.TwoIfaces() {
			clOpts.Ifaces, svOpts.Ifaces = []int{0}, []int{1}
		}
		cl, err := e.analyze(sp.File, clOpts)
		if err != nil {
			return nil, nil, err
		}
		sv, err := e.analyze(sp.ServerFile, svOpts)
		if err != nil {
			return nil, nil, err
		}
		run, err := compare.NewPairRun(sp, cl, sv, sel.Ref.String())
		if err != nil {
			return nil, nil, &exitError{code: 2, err: err}
		}
		// The client side's view of the connection the pair chose.
		s.Conn, s.Dir = run.Result.Conn.Index, query.AB
		if run.Dir == flows.BtoA {
			s.Dir = query.BA
		}
		v, err := query.FromReport(cl, s, query.Options{Interval: interval})
		if err != nil {
			return nil, nil, inputError(err)
		}
		runs, views = append(runs, run), append(views, v)
	}
	return runs, views, nil
}
