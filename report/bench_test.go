package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/query"
)

// BenchmarkExtract is the report's series of one connection at full
// resolution, read through package query (query.ConnView): the largest
// connection of a 1M-packet bulk capture of 8 interleaved connections
// (pcaptest.WriteBulk, as scripts/gen-bench-captures.sh makes bulk.pcap, a
// tenth of its size).
func BenchmarkExtract(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bulk.pcap")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pcaptest.WriteBulk(f, pcaptest.GenOptions{Packets: 1 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	v, err := query.Analyze(path, query.All(), query.Options{OnePassLimit: 1})
	if err != nil {
		b.Fatal(err)
	}
	r := v.Conn
	b.ReportAllocs()
	b.ResetTimer()
	points := 0
	for b.Loop() {
		points = 0
		for _, s := range extractOf(v.Report, r, v.Dir) {
			points += s.L0.len()
		}
	}
	b.ReportMetric(float64(r.Dir[0].Pkts+r.Dir[1].Pkts), "packets")
	b.ReportMetric(float64(points), "points")
}
