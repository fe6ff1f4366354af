package tcpanalysis

import (
	"os"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
)

func BenchmarkZZStream(b *testing.B) {
	f := os.Getenv("ZZFILE")
	for b.Loop() {
		n := 0
		if _, err := AnalyzeFile(f, Options{OnDone: func(*ConnResult, capture.Timestamp) { n++ }}); err != nil {
			b.Fatal(err)
		}
	}
}
