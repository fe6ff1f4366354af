package tcpanalysis

import (
	"bytes"
	"io"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
)

// stageSegs decodes the first 2^18 segments of data once, so the track
// and analyse stages are timed without reading.
func stageSegs(b *testing.B, data []byte) []capture.Segment {
	r, err := capture.NewReader(bytes.NewReader(data), "bench")
	if err != nil {
		b.Fatal(err)
	}
	segs := make([]capture.Segment, 1<<18)
	n, err := r.NextBatch(segs)
	if err != nil && err != io.EOF {
		b.Fatal(err)
	}
	return segs[:n]
}

func stageReport(b *testing.B, pkts int64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pkts), "ns/pkt")
}

// BenchmarkStageTrack is the flows tracker alone (connection lookup,
// copy folding, relative sequence numbers) over decoded segments: the
// "track" stage of docs/performance.md.
func BenchmarkStageTrack(b *testing.B) {
	for _, c := range []struct {
		name string
		pick func(*testing.B) []byte
	}{{"bulk", func(b *testing.B) []byte { d, _ := benchCaptures(b); return d }}, {"short", func(b *testing.B) []byte { _, d := benchCaptures(b); return d }}} {
		b.Run(c.name, func(b *testing.B) {
			segs := stageSegs(b, c.pick(b))
			b.ReportAllocs()
			var pkts int64
			for b.Loop() {
				t := flows.NewTracker(flows.Options{WScale: -1})
				for i := range segs {
					var p flows.Packet
					t.AddTo(&segs[i], &p)
				}
				pkts += int64(len(segs))
			}
			stageReport(b, pkts)
		})
	}
}

// BenchmarkStageAnalyse is the Analyzer over decoded segments: tracking
// plus analysis ("analyse" is this minus BenchmarkStageTrack).
func BenchmarkStageAnalyse(b *testing.B) {
	for _, c := range []struct {
		name string
		pick func(*testing.B) []byte
	}{{"bulk", func(b *testing.B) []byte { d, _ := benchCaptures(b); return d }}, {"short", func(b *testing.B) []byte { _, d := benchCaptures(b); return d }}} {
		b.Run(c.name, func(b *testing.B) {
			segs := stageSegs(b, c.pick(b))
			b.ReportAllocs()
			var pkts int64
			for b.Loop() {
				a := New(Options{Flows: flows.Options{WScale: -1}})
				for i := range segs {
					a.Add(&segs[i])
				}
				a.finish()
				a.Results()
				pkts += int64(len(segs))
			}
			stageReport(b, pkts)
		})
	}
}
