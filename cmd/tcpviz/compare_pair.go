package main

import (
	"fmt"
	"io"
	"time"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/plot"
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
			run.From, run.To = sel.From, sel.To
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
		e.warn(v.Warnings[len(query.Warnings(cl)):]) // the capture's own were printed by analyze
		run.From, run.To = sel.From, sel.To
		runs, views = append(runs, run), append(views, v)
	}
	return runs, views, nil
}

// writeCompareNotes says per run who acknowledged the data.
func writeCompareNotes(w io.Writer, runs []compare.Run) {
	for _, r := range runs {
		if r.Swapped {
			fmt.Fprintf(w, "note: %s: the pair was given server side first; analysed as %s+%s (client side first: the capture where the data connection starts first and that carries more data)\n", r.Label, r.File, r.ServerFile)
		}
		if r.IsPair() {
			fmt.Fprintf(w, "%s: server side %s conn %d\n", r.Label, r.ServerFile, r.Server.Conn.Index)
		}
	}
	for _, r := range runs {
		if n := r.Annotation(); n != "" {
			fmt.Fprintln(w, "note:", n)
		}
	}
}

// extendToEnd continues a step series with its last value to the end of the
// run's connection (the later of both halves for a pair; at most to, when
// to > 0), so a stall after the last change shows; scatter series are left
// alone.
func extendToEnd(s plot.Named, r compare.Run, to time.Duration) plot.Named {
	if !s.Step || len(s.X) == 0 {
		return s
	}
	end := compare.End(r).Sub(r.Ref)
	if to > 0 {
		end = min(end, to)
	}
	if e := end.Seconds(); e > s.X[len(s.X)-1] {
		s.X, s.Y = append(s.X, e), append(s.Y, s.Y[len(s.Y)-1])
	}
	return s
}

// deliveredSeries is, for --metric seq on a pair run, the bytes the final
// receiver acknowledged over time (from the server-side capture), to the
// end of the connection.
func deliveredSeries(r compare.Run, metric string, in func(time.Duration) bool, to time.Duration) (plot.Named, bool) {
	if metric != "seq" || !r.IsPair() {
		return plot.Named{}, false
	}
	ts, bytes, ok := compare.Delivered(r)
	if !ok {
		return plot.Named{}, false
	}
	s := plot.Named{Name: r.Label + " delivered", Step: true}
	for i, t := range ts {
		if in(t) {
			s.X, s.Y = append(s.X, t.Seconds()), append(s.Y, float64(bytes[i]))
		}
	}
	return extendToEnd(s, r, to), true
}

// pairYLabel names the seq axis when pair runs add their delivered series.
func pairYLabel(runs []compare.Run, metric, yl string) string {
	for _, r := range runs {
		if metric == "seq" && r.IsPair() {
			return "sequence sent / delivered (bytes)"
		}
	}
	return yl
}

// deliveredRate is, for --metric tput on a pair run whose sender a PEP
// acknowledged, the end-to-end goodput over time: the bytes the final
// receiver acknowledged (server-side capture) per interval, kbit/s, on the
// client side's interval grid (v.IntervalsAt: laid from the run's
// reference point, limited to the selected window), to the end of the
// connection.
func deliveredRate(r compare.Run, v *query.View, metric string) (plot.Named, bool) {
	if metric != "tput" || !r.IsPair() || !r.ProxyAcked() || v.Interval <= 0 {
		return plot.Named{}, false
	}
	rc := r.Server
	if r.Split != nil && r.Split.Dir != flows.AtoB {
		rc = r.Result // a download: the client side is the receiver's
	}
	iv, err := v.IntervalsAt(rc, r.Dir, r.Ref, compare.End(r))
	if err != nil || len(iv) == 0 {
		return plot.Named{}, false
	}
	s := plot.Named{Name: r.Label + " delivered (end to end)", Step: true}
	for _, b := range iv {
		s.X, s.Y = append(s.X, b.Start.Sub(r.Ref).Seconds()), append(s.Y, b.Kbps(b.Acked))
	}
	return extendToEnd(s, r, v.Sel.To), true
}

// tputYLabel names the tput axis when a PEP acknowledged some run: its
// series are bytes the PEP accepted, never goodput; "" otherwise.
func tputYLabel(runs []compare.Run, metric string) string {
	if metric != "tput" {
		return ""
	}
	proxied, goodput := false, false
	for _, r := range runs {
		if r.ProxyAcked() {
			proxied = true
			goodput = goodput || r.IsPair() // its delivered series
		} else {
			goodput = true
		}
	}
	switch {
	case !proxied:
		return ""
	case goodput:
		return "goodput delivered end to end / accepted by PEP"
	}
	return "accepted by PEP (not end-to-end goodput)"
}
