package monitor

import (
	"errors"
	"testing"

	"github.com/tcpviz/tcpviz/capture/live"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestAnalyzeFileFilter: the synthetic capture holds one connection to
// port 5201 in 663 frames; a filter on that port keeps all of them, one
// on another port none (frames counted are those kept), and a filter that does not compile wraps
// live.ErrFilter.
func TestAnalyzeFileFilter(t *testing.T) {
	const path = "../testdata/synthetic/geo-600ms-loss.pcap"
	for _, tt := range []struct {
		filter        string
		conns, frames int64
	}{{"", 1, 663}, {"tcp port 5201", 1, 663}, {"tcp port 80", 0, 0}} {
		rep, err := AnalyzeFile(path, tt.filter, tcpanalysis.Options{})
		if err != nil {
			t.Fatalf("%q: %v", tt.filter, err)
		}
		if int64(len(rep.Conns)) != tt.conns || rep.Stats.Frames != tt.frames {
			t.Errorf("%q: %d connections, %d frames; want %d, %d", tt.filter, len(rep.Conns), rep.Stats.Frames, tt.conns, tt.frames)
		}
	}
	if _, err := AnalyzeFile(path, "bogus (((", tcpanalysis.Options{}); !errors.Is(err, live.ErrFilter) {
		t.Errorf("bad filter: %v", err)
	}
}
