package main

import (
	"fmt"
	"io"
	"time"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// compareRuns analyses every LABEL=FILE[#conn] or LABEL=CLIENT+SERVER[#conn]
// argument into a compare.Run.
func (e *env) compareRuns(args []string, af *analysisFlags, dir, align string) ([]compare.Run, error) {
	var runs []compare.Run
	for _, a := range args {
		sp, err := compare.ParseSpec(a)
		if err != nil {
			return nil, err
		}
		if !sp.IsPair() {
			cf := connFlags{conn: sp.Conn, dir: dir}
			_, r, d, err := e.analyzeOne(sp.File, af, &cf)
			if err != nil {
				return nil, err
			}
			run, err := compare.NewRun(sp, r, d, align)
			if err != nil {
				return nil, err
			}
			runs = append(runs, run)
			continue
		}
		opts, err := af.options()
		if err != nil {
			return nil, err
		}
		opts.Detail = true
		opts.Keep = func(int) bool { return true }
		clOpts, svOpts := opts, opts
		if sp.TwoIfaces() {
			clOpts.Ifaces, svOpts.Ifaces = []int{0}, []int{1}
		}
		cl, err := e.analyze(sp.File, clOpts)
		if err != nil {
			return nil, err
		}
		sv, err := e.analyze(sp.ServerFile, svOpts)
		if err != nil {
			return nil, err
		}
		run, err := compare.NewPairRun(sp, cl, sv, align)
		if err != nil {
			return nil, &exitError{code: 2, err: err}
		}
		runs = append(runs, run)
	}
	return runs, nil
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
// receiver acknowledged (server-side capture) per interval w, kbit/s, on
// the run's time axis, to the end of the connection.
func deliveredRate(r compare.Run, metric string, w time.Duration, in func(time.Duration) bool, to time.Duration) (plot.Named, bool) {
	if metric != "tput" || !r.IsPair() || !r.ProxyAcked() || w <= 0 {
		return plot.Named{}, false
	}
	ts, bytes, ok := compare.Delivered(r)
	if !ok || len(ts) == 0 {
		return plot.Named{}, false
	}
	start := ts[0].Truncate(w)
	if ts[0] < 0 && start != ts[0] {
		start -= w
	}
	end := compare.End(r).Sub(r.Ref)
	n := int((end-start)/w) + 1
	if n > tcpanalysis.MaxBins || n <= 0 {
		return plot.Named{}, false
	}
	acked := make([]int64, n)
	var prev int64
	for i, t := range ts {
		k := min(max(int((t-start)/w), 0), n-1)
		acked[k] += bytes[i] - prev
		prev = bytes[i]
	}
	s := plot.Named{Name: r.Label + " delivered (end to end)", Step: true}
	for k, b := range acked {
		if t := start + time.Duration(k)*w; in(t) {
			s.X, s.Y = append(s.X, t.Seconds()), append(s.Y, float64(b)*8/w.Seconds()/1000)
		}
	}
	return extendToEnd(s, r, to), true
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
