package compare

import (
	"errors"
	"testing"

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
