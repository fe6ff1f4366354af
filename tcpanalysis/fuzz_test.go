package tcpanalysis

import (
	"testing"

	"github.com/tcpviz/tcpviz/internal/fuzzseed"
)

// FuzzAnalyze runs the whole analysis, every event and RTT sample kept, on
// arbitrary captures opened plain, gzip, zstd or through the memory-mapped
// file path, and checks invariants that hold for any input: no panic, no
// negative duration, RTT or zero-window period, every event inside its
// connection's time span, and, in a direction whose segments were
// captured, no more bytes acknowledged than sent unless the analysis counted
// ACKs for data the capture missed.
//
//	go test ./tcpanalysis -run XXX -fuzz FuzzAnalyze -fuzztime 30s
func FuzzAnalyze(f *testing.F) {
	for _, s := range fuzzseed.Seeds() {
		for _, w := range fuzzseed.Ways() {
			f.Add(s, w)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, way uint8) {
		r, done, err := fuzzseed.Open(data, way)
		if err != nil {
			return
		}
		defer done()
		rep, err := Analyze(r, Options{Detail: true})
		if err != nil {
			return
		}
		for _, c := range rep.Conns {
			checkConn(t, c, rep.Stats.TimeBackwards == 0)
		}
	})
}

// checkConn checks the invariants of one connection. ordered is false when
// some frame is stamped before its predecessor: first and last are then in
// file order and a span can be negative (see the report of issue 16), so
// the time checks are left out.
func checkConn(t *testing.T, c *ConnResult, ordered bool) {
	t.Helper()
	cn := c.Conn
	if !ordered {
		checkBytes(t, c)
		return
	}
	if cn.Last < cn.First {
		t.Fatalf("conn %d: last packet %d before first %d", cn.Index, cn.Last, cn.First)
	}
	for _, e := range c.Events {
		if e.Time < cn.First || e.Time > cn.Last {
			t.Fatalf("conn %d: event %v at frame %d, time %d outside [%d, %d]", cn.Index, e.Class, e.Frame, e.Time, cn.First, cn.Last)
		}
	}
	for _, s := range c.RTT {
		if s.RTT < 0 {
			t.Fatalf("conn %d: negative RTT %v at frame %d", cn.Index, s.RTT, s.Frame)
		}
	}
	for _, z := range c.ZeroWindows {
		if z.End != 0 && z.End < z.Start {
			t.Fatalf("conn %d: zero-window period ends (%d) before it starts (%d)", cn.Index, z.End, z.Start)
		}
	}
	for d, st := range c.Dir {
		if st.LastData < st.FirstData {
			t.Fatalf("conn %d dir %d: last data %d before first %d", cn.Index, d, st.LastData, st.FirstData)
		}
	}
	checkBytes(t, c)
}

func checkBytes(t *testing.T, c *ConnResult) {
	t.Helper()
	cn := c.Conn
	for d, st := range c.Dir {
		if st.Bytes < 0 || st.Unique < 0 || st.Unique > st.Bytes || st.RetxBytes < 0 {
			t.Fatalf("conn %d dir %d: bytes %d, unique %d, retransmitted %d", cn.Index, d, st.Bytes, st.Unique, st.RetxBytes)
		}
		// A direction with no segment captured may be acknowledged from the
		// peer's ACKs alone (a one-sided capture): nothing to compare.
		if st.HighSeq > 0 && st.AckedUnseen == 0 && st.AckedBytes > st.HighSeq {
			t.Fatalf("conn %d dir %d: %d bytes acknowledged but the highest byte sent is %d, and no ACK was counted as acknowledging unseen data", cn.Index, d, st.AckedBytes, st.HighSeq)
		}
	}
}
