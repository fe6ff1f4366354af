package compare

import (
	"errors"
	"testing"

	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestLoad: a LABEL=FILE run picks the largest connection of the
// satellite capture (conn 1, the iperf3 data connection); two captures of
// different runs do not pair up, and the error says so (ErrPair).
func TestLoad(t *testing.T) {
	const off = "../testdata/sat/pep-off_window-20KB/client.pcap"
	const on = "../testdata/sat/pep-on_window-20KB/client.pcap"
	rd := Reader{
		View: func(path string, s query.Selection) (*query.View, error) {
			return query.Analyze(path, s, query.Options{})
		},
		Report: func(path string, o tcpanalysis.Options) (*tcpanalysis.Report, error) {
			return tcpanalysis.AnalyzeFile(path, o)
		},
	}
	sel := query.All()
	sel.Ref = query.RefBulk
	one, _ := ParseSpec("nopep=" + off)
	runs, views, err := Load([]Spec{one}, sel, rd)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Result.Conn.Index != 1 || views[0].Conn != runs[0].Result || runs[0].Label != "nopep" {
		t.Errorf("runs %+v", runs)
	}
	pair, _ := ParseSpec("x=" + off + "+" + on)
	if _, _, err := Load([]Spec{pair}, sel, rd); !errors.Is(err, ErrPair) {
		t.Errorf("two unrelated captures as a pair: %v; want ErrPair", err)
	}
}

// TestFigureSeriesStyle: on the satellite testbed's PEP pair
// (client+server captures) beside the no-PEP client capture, every series
// of run i has colour plot.Colour(i) and the pair's delivered series is
// dashed.
func TestFigureSeriesStyle(t *testing.T) {
	const dir = "../testdata/sat-pair/pep-on_window-20KB/"
	rd := Reader{
		View: func(path string, s query.Selection) (*query.View, error) {
			return query.Analyze(path, s, query.Options{})
		},
		Report: func(path string, o tcpanalysis.Options) (*tcpanalysis.Report, error) {
			return tcpanalysis.AnalyzeFile(path, o)
		},
	}
	sel := query.All()
	sel.Ref = query.RefBulk
	a, _ := ParseSpec("nopep=../testdata/sat/pep-off_window-20KB/client.pcap")
	b, _ := ParseSpec("pep=" + dir + "client.pcap.gz+" + dir + "server.pcap.gz")
	runs, views, err := Load([]Spec{a, b}, sel, rd)
	if err != nil {
		t.Fatal(err)
	}
	ss := FigureSeries(runs, views, query.MetricSeq, sel)
	want := []struct {
		name   string
		run    int
		dashed bool
	}{{"nopep", 0, false}, {"pep", 1, false}, {"pep delivered", 1, true}}
	if len(ss) != len(want) {
		t.Fatalf("%d series, want %d", len(ss), len(want))
	}
	for i, w := range want {
		if ss[i].Name != w.name || ss[i].Color != plot.Colour(w.run) || ss[i].Dashed != w.dashed {
			t.Errorf("series %d: %q colour %v dashed %v; want %q colour %v dashed %v", i, ss[i].Name, ss[i].Color, ss[i].Dashed, w.name, plot.Colour(w.run), w.dashed)
		}
	}
}
