package compare

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/query"
)

// TestSummaryUnknownRow: a retransmission in a capture without the
// receiver's packets is class unknown (docs/metrics.md#events): the
// summary shows it in a row "unknown", not in rto; a run set without one
// (the synthetic capture) has no such row, nor a pmtu row.
func TestSummaryUnknownRow(t *testing.T) {
	c := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.1:40000"), netip.MustParseAddrPort("198.51.100.1:80"), 1000, 9000)
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range []pcaptest.Segment{c.Data(t0, pcaptest.C2S, 1000), c.Data(t0.Add(time.Millisecond), pcaptest.C2S, 1000),
		c.DataAt(t0.Add(300*time.Millisecond), pcaptest.C2S, 0, 1000)} {
		f.Add(s.T, 0, s.IP())
	}
	path := filepath.Join(t.TempDir(), "oneway.pcap")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rowsOf := func(file string) map[string][]float64 {
		t.Helper()
		v, err := query.Analyze(file, query.All(), query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		run, err := NewRun(Spec{Label: "a", File: file, Conn: -1}, v.Report, v.Conn, v.Dir, "syn")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]float64{}
		for _, r := range Summary([]Run{run}, nil, 0) {
			got[r.Metric] = r.Values
		}
		return got
	}
	got := rowsOf(path)
	if v := got["unknown"]; len(v) != 1 || v[0] != 1 {
		t.Errorf("unknown = %v, want [1]", v)
	}
	if v := got["rto"]; len(v) != 1 || v[0] != 0 {
		t.Errorf("rto = %v, want [0]", v)
	}
	got = rowsOf("../testdata/synthetic/geo-600ms-loss.pcap")
	for _, name := range []string{"unknown", "pmtu"} {
		if v, ok := got[name]; ok {
			t.Errorf("synthetic capture: row %s = %v, want none", name, v)
		}
	}
}
