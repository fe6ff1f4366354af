package tcpanalysis

import (
	"os"
	"runtime"
	"testing"
)

// BenchmarkFlowsFile analyses the capture named by $TCPVIZ_BENCH_FILE (for
// example the 10M-packet bulk.pcap of scripts/gen-bench-captures.sh). It
// reports packets per second, the heap the finished Report holds
// (live-MB) and that per connection (live-B/conn).
func BenchmarkFlowsFile(b *testing.B) {
	path := os.Getenv("TCPVIZ_BENCH_FILE")
	if path == "" {
		b.Skip("TCPVIZ_BENCH_FILE not set")
	}
	var pkts int64
	var rep *Report
	for b.Loop() {
		var err error
		rep, err = AnalyzeFile(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		pkts += rep.Stats.Frames
	}
	b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "pkts/s")
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/1e6, "live-MB")
	b.ReportMetric(float64(ms.HeapAlloc)/float64(len(rep.Conns)), "live-B/conn")
	runtime.KeepAlive(rep)
}
