package query

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

var (
	benchOnce sync.Once
	benchFile string
)

// benchCapture writes, once, a 1M-packet bulk capture of 8 interleaved
// connections (pcaptest.WriteBulk, as scripts/gen-bench-captures.sh makes
// bulk.pcap, a tenth of its size) to a temporary file.
func benchCapture(b *testing.B) string {
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tcpviz-query-bench")
		if err != nil {
			b.Fatal(err)
		}
		benchFile = filepath.Join(dir, "bulk.pcap")
		writeBulk(b, benchFile, pcaptest.GenOptions{Packets: 1 << 20, Seed: 1})
	})
	return benchFile
}

// writeBulk writes a generated bulk capture (pcaptest.WriteBulk) to path.
func writeBulk(tb testing.TB, path string, o pcaptest.GenOptions) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := pcaptest.WriteBulk(f, o); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkSeries is the series stage of 'tcpviz seq', 'window' and 'tput'
// on a capture above the one-pass limit: the counting pass, then the
// chosen connection's pass keeping the parts the verb prints, then its
// series as the figure reads it. 'flows' is the same capture analysed
// once for its summaries (the reference of docs/performance.md).
func BenchmarkSeries(b *testing.B) {
	path := benchCapture(b)
	st, _ := os.Stat(path)
	for _, bc := range []struct {
		name   string
		parts  tcpanalysis.SeriesParts
		metric Metric
	}{
		{"seq", tcpanalysis.PartSegs | tcpanalysis.PartAcks | tcpanalysis.PartSACKs, MetricSeq},
		{"window", tcpanalysis.PartWindow, MetricWindow},
		{"tput", tcpanalysis.PartSegs | tcpanalysis.PartAcks | tcpanalysis.PartEvents, MetricGoodput},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			points := 0
			for b.Loop() {
				v, err := Analyze(path, All(), Options{OnePassLimit: 1, OneConn: true, Parts: bc.parts})
				if err != nil {
					b.Fatal(err)
				}
				x, _ := v.XY(bc.metric, v.Ref)
				points = len(x)
			}
			b.ReportMetric(float64(points), "points")
		})
	}
	b.Run("flows", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
