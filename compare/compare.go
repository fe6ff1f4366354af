// Package compare puts several labelled runs side by side: the same series
// for each, aligned at a chosen reference point, and a summary table with
// each value's ratio to the first run (docs/metrics.md#compare). It draws
// nothing; package plot does.
package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Spec names one run: LABEL=FILE[#conn]. Conn is -1 when not given (the
// connection that carried most data).
type Spec struct {
	Label, File string
	Conn        int
}

// ParseSpec parses LABEL=FILE[#conn]. It returns an error for a missing
// label or file, or a connection index that is not a number.
func ParseSpec(s string) (Spec, error) {
	i := strings.IndexByte(s, '=')
	if i <= 0 || i == len(s)-1 {
		return Spec{}, fmt.Errorf("run %q: want LABEL=FILE[#conn]", s)
	}
	sp := Spec{Label: s[:i], File: s[i+1:], Conn: -1}
	if j := strings.LastIndexByte(sp.File, '#'); j > 0 {
		n, err := strconv.Atoi(sp.File[j+1:])
		if err != nil || n < 0 {
			return Spec{}, fmt.Errorf("run %q: connection %q is not an index", s, sp.File[j+1:])
		}
		sp.File, sp.Conn = sp.File[:j], n
	}
	return sp, nil
}

// Run is one analysed run: the chosen connection (with its series kept) and
// data direction, and the reference time its series are aligned at.
type Run struct {
	Spec
	Result *tcpanalysis.ConnResult
	Dir    flows.Direction
	Ref    capture.Timestamp
}

// RefTime returns the reference time named align ("syn", "data" or
// "bulk", any case; "" is bulk) of connection r in direction d: see
// query.Ref, which it wraps. Errors wrap query.ErrRef.
func RefTime(r *tcpanalysis.ConnResult, d flows.Direction, align string) (capture.Timestamp, error) {
	if align == "" {
		align = "bulk"
	}
	ref, err := query.ParseRef(align)
	if err != nil {
		return 0, err
	}
	return ref.Time(r, d), nil
}

// Row is one line of the summary table: a metric's value per run (NaN when
// it does not apply) and how to print it.
type Row struct {
	Metric string
	Values []float64
	Unit   query.Unit
}

// Summary builds the comparison table: slow-start end, bytes acknowledged
// at 1, 5, 10 s and at each of at (seconds after the reference point), time
// to toBytes (if > 0), RTT p50/p95 per method, goodput, and retransmissions
// by class.
func Summary(runs []Run, at []float64, toBytes int64) []Row {
	var rows []Row
	add := func(name string, unit query.Unit, f func(r Run) float64) {
		row := Row{Metric: name, Unit: unit}
		for _, r := range runs {
			row.Values = append(row.Values, f(r))
		}
		rows = append(rows, row)
	}
	add("slow start ended", query.Seconds, func(r Run) float64 {
		ss := tcpanalysis.SlowStartEnd(r.Result, r.Dir, r.Ref)
		if ss.Rule == tcpanalysis.SlowStartNotEnded {
			return math.NaN()
		}
		return ss.End.Seconds()
	})
	// The default times only while some run lasted them; a run that ended
	// earlier has no value (NaN), not its final count.
	for i, t := range append([]float64{1, 5, 10}, at...) {
		lasted := func(r Run) bool { return r.Result.Conn.Last.Sub(r.Ref) >= secs(t) }
		if i < 3 && !slices.ContainsFunc(runs, lasted) {
			continue
		}
		add(fmt.Sprintf("acked after %g s", t), query.Bytes, func(r Run) float64 {
			if !lasted(r) {
				return math.NaN()
			}
			return float64(tcpanalysis.AckedAt(r.Result, r.Dir, r.Ref, secs(t)))
		})
	}
	if toBytes > 0 {
		add(fmt.Sprintf("time to %d bytes", toBytes), query.Seconds, func(r Run) float64 {
			d, ok := tcpanalysis.TimeTo(r.Result, r.Dir, r.Ref, toBytes)
			if !ok {
				return math.NaN()
			}
			return d.Seconds()
		})
	}
	for _, m := range []tcpanalysis.Method{tcpanalysis.MethodHandshake, tcpanalysis.MethodACK, tcpanalysis.MethodTS} {
		m := m
		for _, q := range []string{"p50", "p95"} {
			if m == tcpanalysis.MethodHandshake && q == "p95" {
				continue
			}
			q := q
			add(fmt.Sprintf("RTT %s %s", m, q), query.Milliseconds, func(r Run) float64 {
				var ds []time.Duration
				for _, s := range r.Result.RTT {
					if s.Method == m && s.Dir == r.Dir {
						ds = append(ds, s.RTT)
					}
				}
				_, _, p50, _, p95, _, ok := tcpanalysis.Percentiles(ds)
				if !ok {
					return math.NaN()
				}
				if q == "p50" {
					return p50.Seconds() * 1000
				}
				return p95.Seconds() * 1000
			})
		}
	}
	add("goodput", query.Kbps, func(r Run) float64 { return r.Result.GoodputKbps(r.Dir) })
	for _, c := range []tcpanalysis.Class{tcpanalysis.RTO, tcpanalysis.Fast, tcpanalysis.Spurious, tcpanalysis.DupAck, tcpanalysis.ZeroWindow} {
		c := c
		add(c.String(), query.Count, func(r Run) float64 { return float64(r.Result.Counts[r.Dir][c]) })
	}
	return rows
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Ratio returns v / first, or NaN when either is NaN or first is 0.
func Ratio(v, first float64) float64 {
	if math.IsNaN(v) || math.IsNaN(first) || first == 0 {
		return math.NaN()
	}
	return v / first
}

// Format prints a value of a row in its unit.
func Format(v float64, unit query.Unit) string {
	if math.IsNaN(v) {
		return "–"
	}
	switch unit {
	case query.Bytes, query.Count:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case query.Seconds:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
