package tcpanalysis

import (
	"bytes"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// BenchmarkHostile runs the analysis 'tcpviz flows' does over each hostile
// capture of pcaptest.WriteHostile (20 000 segments, issue 16): the time per
// op must grow linearly (or n log n) with the segment count, never
// quadratically. Compare with -benchtime=1x at n = 20 000 and 200 000 by
// editing n, or run 'tcpviz flows' on gencap output.
func BenchmarkHostile(b *testing.B) {
	const n = 20_000
	for _, k := range pcaptest.Hostiles {
		var w bytes.Buffer
		if err := pcaptest.WriteHostile(&w, k, n); err != nil {
			b.Fatal(err)
		}
		b.Run(string(k), func(b *testing.B) { benchAnalyze(b, w.Bytes()) })
	}
}
