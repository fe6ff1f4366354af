package tcpanalysis

import (
	"os"
	"testing"
)

// BenchmarkFlowsFile analyses the capture named by $TCPVIZ_BENCH_FILE (for
// example the 10M-packet bulk.pcap of scripts/gen-bench-captures.sh).
func BenchmarkFlowsFile(b *testing.B) {
	path := os.Getenv("TCPVIZ_BENCH_FILE")
	if path == "" {
		b.Skip("TCPVIZ_BENCH_FILE not set")
	}
	var pkts int64
	for b.Loop() {
		rep, err := AnalyzeFile(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		pkts += rep.Stats.Frames
	}
	b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "pkts/s")
}
