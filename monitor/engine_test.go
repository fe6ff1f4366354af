package monitor

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestLiveEngineReleases feeds 3000-odd short connections through the live
// engine, expiring as a live run does, and checks that every connection is
// flushed once with the same numbers as a one-pass analysis of the same
// segments, while the engine never holds more than a few generations.
func TestLiveEngineReleases(t *testing.T) {
	var buf bytes.Buffer
	if err := pcaptest.WriteShort(&buf, pcaptest.GenOptions{Packets: 120_000, Flows: 64, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(buf.Bytes()), "short")
	if err != nil {
		t.Fatal(err)
	}
	var segs []capture.Segment
	for {
		var s capture.Segment
		if err := r.Next(&s); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, s)
	}
	// Stretch time 1000×: packets 2..20 ms apart, so that connections
	// close and fall silent for FinishedIdle within the capture.
	t0 := segs[0].Time
	for i := range segs {
		segs[i].Time = t0 + (segs[i].Time-t0)*1000
	}

	ref := tcpanalysis.New(tcpanalysis.Options{KeepRTT: true})
	for i := range segs {
		ref.Add(&segs[i])
	}
	want := ref.Results()

	en := newLiveEngine(tcpanalysis.Options{})
	samples := map[int]int64{}
	en.onRTT = func(lc *liveConn, _ tcpanalysis.RTTSample) { samples[lc.idx]++ }
	done := map[int]int{}
	check := func(lc *liveConn) {
		done[lc.idx]++
		if lc.idx >= len(want) {
			t.Fatalf("live connection %d: the one-pass analysis has %d", lc.idx, len(want))
		}
		w := want[lc.idx]
		if lc.r.Conn.Key != w.Conn.Key || lc.r.Conn.First != w.Conn.First {
			t.Fatalf("live connection %d is %v at %d, want %v at %d", lc.idx, lc.r.Conn.Key, lc.r.Conn.First, w.Conn.Key, w.Conn.First)
		}
		if lc.r.Dir != w.Dir || !sameAggs(&lc.r.RTTAgg, &w.RTTAgg) || lc.r.Counts != w.Counts {
			t.Errorf("connection %d: live summary %+v differs from the one-pass %+v", lc.idx, lc.r.Dir, w.Dir)
		}
		if n := int64(len(w.RTT)); samples[lc.idx] != n {
			t.Errorf("connection %d: %d RTT samples streamed, want %d", lc.idx, samples[lc.idx], n)
		}
	}
	en.onDone = check
	maxGens, maxHeld := 0, 0
	for i := range segs {
		en.add(&segs[i])
		if i%500 == 0 {
			en.expire(segs[i].Time)
			held := 0
			for _, g := range en.gens {
				held += len(g.conns)
			}
			maxGens, maxHeld = max(maxGens, len(en.gens)), max(maxHeld, held)
		}
	}
	en.expire(segs[len(segs)-1].Time + capture.Timestamp(2*FinishedIdle))
	if en.total != len(want) {
		t.Fatalf("live engine saw %d connections, the one-pass analysis %d", en.total, len(want))
	}
	for i := range want {
		if done[i] != 1 {
			t.Errorf("connection %d flushed %d times, want once", i, done[i])
		}
	}
	if len(en.byKey) != 0 {
		t.Errorf("%d connections still indexed after all finished", len(en.byKey))
	}
	t.Logf("%d connections, %d segments; at most %d generations and %d connections held at once", len(want), len(segs), maxGens, maxHeld)
	if maxHeld > 3*liveGenConns {
		t.Errorf("held up to %d connections at once, want at most %d", maxHeld, 3*liveGenConns)
	}
	if len(want) < 2*liveGenConns {
		t.Fatalf("only %d connections: the test needs several generations", len(want))
	}
}

// BenchmarkLiveEngine measures the live analysis path per segment (routing
// to generations, analysis, expiry once per 500 segments) on short
// connections, the costliest mix for the engine.
func BenchmarkLiveEngine(b *testing.B) {
	var buf bytes.Buffer
	if err := pcaptest.WriteShort(&buf, pcaptest.GenOptions{Packets: 100_000, Flows: 64, Seed: 7}); err != nil {
		b.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(buf.Bytes()), "short")
	if err != nil {
		b.Fatal(err)
	}
	var segs []capture.Segment
	for {
		var s capture.Segment
		if r.Next(&s) != nil {
			break
		}
		segs = append(segs, s)
	}
	t0 := segs[0].Time
	for i := range segs {
		segs[i].Time = t0 + (segs[i].Time-t0)*1000
	}
	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			en := newLiveEngine(tcpanalysis.Options{})
			for i := range segs {
				en.add(&segs[i])
				if i%500 == 0 {
					en.expire(segs[i].Time)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(segs)), "ns/segment")
	})
	// The same segments through one Analyzer: what the engine adds.
	b.Run("analyzer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a := tcpanalysis.New(tcpanalysis.Options{})
			for i := range segs {
				a.Add(&segs[i])
			}
			a.Results()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(segs)), "ns/segment")
	})
}

// sameAggs compares two connections' RTT summaries by what they report:
// count, sum, extremes and median (one may still follow its samples, the
// other hold its median only).
func sameAggs(a, b *[2][3]tcpanalysis.RTTAgg) bool {
	for d := range a {
		for m := range a[d] {
			x, y := &a[d][m], &b[d][m]
			mx, ex, okx := x.MedianEstimate()
			my, ey, oky := y.MedianEstimate()
			if x.N != y.N || x.Sum != y.Sum || x.Min != y.Min || x.Max != y.Max || mx != my || ex != ey || okx != oky {
				return false
			}
		}
	}
	return true
}
