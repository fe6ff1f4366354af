package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// TestCompareSeriesStyle: in the compare figure every series of run i has
// colour plot.Colour(i), and the delivered series of a pair run (seq:
// "delivered"; tput: "delivered (end to end)") are dashed, its sent series
// solid, so that a printed figure tells the runs and the kinds apart.
func TestCompareSeriesStyle(t *testing.T) {
	client, server, _ := splitPair(t)
	e := &env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	var specs []compare.Spec
	for _, a := range []string{"one=" + client, "pair=" + client + "+" + server} {
		sp, err := compare.ParseSpec(a)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, sp)
	}
	sel := query.All()
	sel.Ref = query.RefBulk
	runs, views, err := e.compareRuns(specs, &analysisFlags{wscale: -1}, sel, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    query.Metric
		want []string // series names, in order
	}{
		{query.MetricSeq, []string{"one", "pair", "pair delivered"}},
		{query.MetricGoodput, []string{"one", "pair accepted by PEP", "pair delivered (end to end)"}},
	} {
		ss := compare.FigureSeries(runs, views, c.m, sel)
		if len(ss) != len(c.want) {
			t.Fatalf("%s: %d series, want %v", c.m, len(ss), c.want)
		}
		for i, s := range ss {
			run := 0
			if i > 0 {
				run = 1
			}
			dashed := i == 2
			if s.Name != c.want[i] || s.Color != plot.Colour(run) || s.Dashed != dashed {
				t.Errorf("%s: series %d = %q colour %v dashed %v; want %q colour %v dashed %v", c.m, i, s.Name, s.Color, s.Dashed, c.want[i], plot.Colour(run), dashed)
			}
		}
	}
}
