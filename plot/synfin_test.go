package plot

import (
	"fmt"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestTimeSeqMarksFinOnData: ns3-tcp-bulk-send's last data segment (frame
// 282 at 1.754527 s, relative 99673..100000) carries the FIN, at relative
// sequence number 100001. Its bar is drawn as data, and the FIN gets the
// SYN/FIN triangle at 100001, as a bare FIN would; the other triangle is
// the SYN (0 s, 0).
func TestTimeSeqMarksFinOnData(t *testing.T) {
	rep, err := tcpanalysis.AnalyzeFile(filepath.Join(sharedtest.Dir(t, "corpus"), "ns3-tcp-bulk-send-0-0.pcap"), tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	f, err := TimeSeq(rep.Conns[0], TimeSeqOptions{Dir: flows.AtoB})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, e := range f.Legend {
		if e.Name == "SYN / FIN" {
			got = fmt.Sprintf("%.6f", e.Thumbs[0].(*plotter.Scatter).XYs)
		}
	}
	if want := "[{0.000000 0.000000} {1.754527 100001.000000}]"; got != want {
		t.Errorf("SYN / FIN triangles at %s, want %s (s, relative seq)", got, want)
	}
}
