package compare

import (
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestRetransFromZero: compare --metric retrans on the satellite pair
// (trial13 B10): the no-PEP run, which retransmitted nothing, is a line at
// 0 to the end of its connection (it was missing, legend entry and all);
// the PEP run's count starts at 0, not 1, and ends at its 6
// retransmissions; with --from after them it starts at 6.
func TestRetransFromZero(t *testing.T) {
	const p = "../testdata/sat-pair/"
	rd := Reader{
		View: func(path string, s query.Selection) (*query.View, error) {
			return query.Analyze(path, s, query.Options{})
		},
		Report: func(path string, o tcpanalysis.Options) (*tcpanalysis.Report, error) {
			return tcpanalysis.AnalyzeFile(path, o)
		},
	}
	specs, err := ParseSpecs([]string{
		"nopep=" + p + "pep-off_window-20KB/client.pcap.gz+" + p + "pep-off_window-20KB/server.pcap.gz",
		"pep=" + p + "pep-on_window-20KB/client.pcap.gz+" + p + "pep-on_window-20KB/server.pcap.gz"})
	if err != nil {
		t.Fatal(err)
	}
	sel := query.All()
	sel.Ref = query.RefBulk
	runs, views, err := Load(specs, sel, rd)
	if err != nil {
		t.Fatal(err)
	}
	ss := FigureSeries(runs, views, query.MetricRetrans, sel)
	if len(ss) != 2 || ss[0].Name != "nopep" || ss[1].Name != "pep" {
		t.Fatalf("series %v", ss)
	}
	no, pep := ss[0], ss[1]
	end := End(runs[0]).Sub(runs[0].Ref).Seconds()
	if len(no.X) != 2 || no.X[0] != 0 || no.Y[0] != 0 || no.Y[1] != 0 || no.X[1] != end {
		t.Errorf("nopep: x %v y %v; want a line at 0 from 0 to %.3f s", no.X, no.Y, end)
	}
	if pep.X[0] != 0 || pep.Y[0] != 0 || pep.Y[1] != 1 || pep.Y[len(pep.Y)-1] != 6 {
		t.Errorf("pep: starts (%v, %v), ends at %v; want (0, 0), 1, … 6", pep.X[0], pep.Y[0], pep.Y[len(pep.Y)-1])
	}
	sel.From = 2 * time.Second
	runs, views, err = Load(specs, sel, rd)
	if err != nil {
		t.Fatal(err)
	}
	pep = FigureSeries(runs, views, query.MetricRetrans, sel)[1]
	if pep.X[0] != 2 || pep.Y[0] != 6 || pep.Y[len(pep.Y)-1] != 6 {
		t.Errorf("pep --from 2: x %v y %v; want a line at 6 from 2 s", pep.X, pep.Y)
	}
}
