package compare

import (
	"errors"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// ErrPair marks the error of a LABEL=CLIENT+SERVER run whose two captures
// do not pair up (no connection of one matches one of the other; the
// connection asked for has no partner): errors.Is(err, ErrPair).
var ErrPair = errors.New("compare: the two captures do not pair up")

// pairError is NewPairRun's error, marked ErrPair.
type pairError struct{ err error }

func (e pairError) Error() string   { return e.err.Error() }
func (e pairError) Unwrap() []error { return []error{e.err, ErrPair} }

// Reader is how Load reads captures, so that the caller keeps its way of
// reading them (a capture filter, standard input, its warnings).
type Reader struct {
	// View analyses one capture through a selection (query.Analyze with
	// the caller's options and Options.Interval = Interval).
	View func(path string, sel query.Selection) (*query.View, error)
	// Report analyses one capture with opts, for each side of a pair.
	Report func(path string, opts tcpanalysis.Options) (*tcpanalysis.Report, error)
	// Analysis are the options of a pair's analyses; Load keeps every
	// connection's detail and series, and splits a two-interface pcapng
	// (interface 0 client side, 1 server side).
	Analysis tcpanalysis.Options
	// Interval is the goodput interval of the pair runs' views (0: the
	// 1-2-5 default).
	Interval time.Duration
	// Warn, when set, receives the warnings of a pair's selection that
	// Report did not see (query.WarnRefFallback).
	Warn func([]query.Warning)
}

// Load analyses every spec (LABEL=FILE[#conn] or LABEL=CLIENT+SERVER[#conn])
// into a Run, and the query.View its series are drawn from: for a pair,
// the client side's view of the split connection the pair chose. sel is
// every run's selection but the connection, which each spec names; its
// Ref aligns the runs. Errors are rd's, or marked ErrPair.
func Load(specs []Spec, sel query.Selection, rd Reader) ([]Run, []*query.View, error) {
	var runs []Run
	var views []*query.View
	for _, sp := range specs {
		s := sel
		s.Conn = sp.Conn
		if !sp.IsPair() {
			v, err := rd.View(sp.File, s)
			if err != nil {
				return nil, nil, err
			}
			run, err := NewRun(sp, v.Report, v.Conn, v.Dir, sel.Ref.String())
			if err != nil {
				return nil, nil, err
			}
			run.From, run.To, run.Start = sel.From, sel.To, v.Report.Start
			if v.Report.Stats.Frames > 0 {
				run.End = v.Report.Stats.Last
			}
			runs, views = append(runs, run), append(views, v)
			continue
		}
		opts := rd.Analysis
		opts.Detail = true
		opts.Keep = func(int) bool { return true }
		clOpts, svOpts := opts, opts
		if sp.TwoIfaces() {
			clOpts.Ifaces, svOpts.Ifaces = []int{0}, []int{1}
		}
		cl, err := rd.Report(sp.File, clOpts)
		if err != nil {
			return nil, nil, err
		}
		sv, err := rd.Report(sp.ServerFile, svOpts)
		if err != nil {
			return nil, nil, err
		}
		run, err := NewPairRun(sp, cl, sv, sel.Ref.String())
		if err != nil {
			return nil, nil, pairError{err}
		}
		s.Conn, s.Dir = run.Result.Conn.Index, query.AB
		if run.Dir == flows.BtoA {
			s.Dir = query.BA
		}
		if run.Swapped { // given server side first: the series are the client side's
			cl = sv
		}
		v, err := query.FromReport(cl, s, query.Options{Interval: rd.Interval})
		if err != nil {
			return nil, nil, err
		}
		if rd.Warn != nil { // the selection's (a reference point fallback); Report gave the capture's
			rd.Warn(v.Warnings[len(query.Warnings(cl)):])
		}
		run.From, run.To = sel.From, sel.To
		runs, views = append(runs, run), append(views, v)
	}
	return runs, views, nil
}
