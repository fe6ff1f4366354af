//go:build unix

package capture

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// stageFile writes a 1M-packet bulk capture to a temporary file, so the
// stage benchmarks read it through the memory mapping as Open does; with
// $TCPVIZ_BENCH_FILE set they read that file instead.
func stageFile(b *testing.B) string {
	if p := os.Getenv("TCPVIZ_BENCH_FILE"); p != "" {
		return p
	}
	var w bytes.Buffer
	if err := pcaptest.WriteBulk(&w, pcaptest.GenOptions{Packets: 1 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "bulk.pcap")
	if err := os.WriteFile(p, w.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

func reportRate(b *testing.B, path string, pkts int64) {
	if st, err := os.Stat(path); err == nil {
		b.SetBytes(st.Size())
	}
	b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "pkts/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pkts), "ns/pkt")
}

// BenchmarkStageRead is framing alone: the records of a mapped pcap file,
// not decoded (the "read" stage of docs/performance.md).
func BenchmarkStageRead(b *testing.B) {
	path := stageFile(b)
	b.ReportAllocs()
	var pkts int64
	for b.Loop() {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if r.mp == nil {
			b.Fatal("not read through the mapping")
		}
		for {
			_, _, _, _, _, err := r.mp.record()
			if err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			pkts++
		}
		r.Close()
	}
	reportRate(b, path, pkts)
}

// BenchmarkStageDecode is decoding alone (link, IP, TCP headers and
// options) of frames already in memory (the "decode" stage).
func BenchmarkStageDecode(b *testing.B) {
	path := stageFile(b)
	r, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	// The frames back to back in one buffer, as in the mapped file.
	var buf []byte
	var ends, wire []int
	for len(ends) < 1<<18 {
		data, _, _, _, wl, err := r.mp.record()
		if err != nil {
			break
		}
		buf = append(buf, data...)
		ends = append(ends, len(buf))
		wire = append(wire, wl)
	}
	frames := make([][]byte, len(ends))
	start := 0
	for i, e := range ends {
		frames[i] = buf[start:e]
		start = e
	}
	link := r.link
	r.Close()
	var s Segment
	d := decoder{s: &s}
	b.ReportAllocs()
	var pkts int64
	for b.Loop() {
		for i, f := range frames {
			d.wireLen = wire[i]
			if d.decode(link, f) != vTCP {
				b.Fatal("not TCP")
			}
		}
		pkts += int64(len(frames))
	}
	b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "pkts/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pkts), "ns/pkt")
}

// BenchmarkStageReadDecode is Reader.NextBatch over a mapped file: framing,
// decoding and the Reader's bookkeeping, what the reading goroutine of
// tcpanalysis does.
func BenchmarkStageReadDecode(b *testing.B) {
	path := stageFile(b)
	b.ReportAllocs()
	segs := make([]Segment, 512)
	var pkts int64
	for b.Loop() {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		for {
			n, err := r.NextBatch(segs)
			pkts += int64(n)
			if err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
		r.Close()
	}
	reportRate(b, path, pkts)
}

// BenchmarkStageSplitDecode is a split read (ReadFrames, Segments) on one
// goroutine: framing, then decoding in Segments' runs, as the consuming
// goroutine of tcpanalysis.pipelineFrames does when it decodes every
// batch. "all" reads every segment (the counting pass of a series verb),
// "only" with OnlyEndpoints set to the first segment's endpoints (its
// second pass).
func BenchmarkStageSplitDecode(b *testing.B) {
	path := stageFile(b)
	r, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	var first Segment
	if err := r.Next(&first); err != nil {
		b.Fatal(err)
	}
	r.Close()
	for _, only := range []bool{false, true} {
		name := "all"
		if only {
			name = "only"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			batch := NewFrameBatch()
			var pkts int64
			for b.Loop() {
				r, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if only {
					r.OnlyEndpoints(first.Src, first.Dst)
				}
				if !r.CanReadFrames() {
					b.Fatal("cannot read frames")
				}
				for {
					more := r.ReadFrames(batch)
					err := r.Segments(batch, func(segs []Segment) { pkts += int64(len(segs)) })
					if !more {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
				}
				r.Close()
			}
			reportRate(b, path, pkts)
		})
	}
}
