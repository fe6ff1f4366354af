package tcpanalysis

import (
	"bytes"
	"sync"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

var (
	benchOnce          sync.Once
	benchBulk, benchSh []byte
)

// benchCaptures generates, once, a 1M-packet bulk capture (8 flows) and a
// 1M-packet capture of short connections, in memory.
func benchCaptures(b *testing.B) (bulk, short []byte) {
	benchOnce.Do(func() {
		var w bytes.Buffer
		if err := pcaptest.WriteBulk(&w, pcaptest.GenOptions{Packets: 1 << 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		benchBulk = append([]byte(nil), w.Bytes()...)
		w.Reset()
		if err := pcaptest.WriteShort(&w, pcaptest.GenOptions{Packets: 1 << 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		benchSh = append([]byte(nil), w.Bytes()...)
	})
	return benchBulk, benchSh
}

func benchAnalyze(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var pkts int64
	for b.Loop() {
		r, err := capture.NewReader(bytes.NewReader(data), "bench")
		if err != nil {
			b.Fatal(err)
		}
		rep, err := Analyze(r, Options{})
		if err != nil {
			b.Fatal(err)
		}
		pkts += rep.Stats.Frames
	}
	b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "pkts/s")
}

// BenchmarkFlowsBulk is what 'tcpviz flows' does per packet on a bulk
// transfer capture.
func BenchmarkFlowsBulk(b *testing.B) {
	bulk, _ := benchCaptures(b)
	benchAnalyze(b, bulk)
}

// BenchmarkFlowsShort is the same on many short connections.
func BenchmarkFlowsShort(b *testing.B) {
	_, short := benchCaptures(b)
	benchAnalyze(b, short)
}

// BenchmarkReadOnly measures capture framing and decoding alone.
func BenchmarkReadOnly(b *testing.B) {
	bulk, _ := benchCaptures(b)
	b.SetBytes(int64(len(bulk)))
	b.ReportAllocs()
	var pkts int64
	for b.Loop() {
		r, _ := capture.NewReader(bytes.NewReader(bulk), "bench")
		var s capture.Segment
		for r.Next(&s) == nil {
			pkts++
		}
	}
	b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "pkts/s")
}

// BenchmarkDetailBulk is the pass of 'tcpviz rtt' and 'tcpviz retrans'
// (every RTT sample and event kept); compare with BenchmarkFlowsBulk.
func BenchmarkDetailBulk(b *testing.B) {
	bulk, _ := benchCaptures(b)
	b.SetBytes(int64(len(bulk)))
	b.ReportAllocs()
	for b.Loop() {
		r, _ := capture.NewReader(bytes.NewReader(bulk), "bench")
		if _, err := Analyze(r, Options{Detail: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeriesBulk is the pass of 'tcpviz seq', 'window' and 'tput' on
// a capture small enough for one pass: every connection's series kept.
func BenchmarkSeriesBulk(b *testing.B) {
	bulk, _ := benchCaptures(b)
	b.SetBytes(int64(len(bulk)))
	b.ReportAllocs()
	for b.Loop() {
		r, _ := capture.NewReader(bytes.NewReader(bulk), "bench")
		if _, err := Analyze(r, Options{Keep: func(int) bool { return true }}); err != nil {
			b.Fatal(err)
		}
	}
}
