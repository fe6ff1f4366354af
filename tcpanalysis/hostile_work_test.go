package tcpanalysis

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// hostileWork analyses the hostile capture kind of n segments with every
// series kept (the window points of 'tcpviz window', 'report' and
// 'compare' included) and returns the spans the byte-range sets of its
// connections visited (spanSet.work), and the window points made.
func hostileWork(t *testing.T, k pcaptest.Hostile, n int) (work, points int64) {
	t.Helper()
	var w bytes.Buffer
	if err := pcaptest.WriteHostile(&w, k, n); err != nil {
		t.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(w.Bytes()), string(k))
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{Keep: func(int) bool { return true }})
	var s capture.Segment
	for {
		if err := r.Next(&s); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		a.Add(&s)
	}
	// Before finish, which frees the sets.
	for _, cs := range a.res {
		for _, ds := range cs.dir {
			if ds != nil {
				work += ds.seen.work + ds.resent.work + ds.probe.work + ds.sacked.work
			}
		}
		if cs.Series != nil {
			points += int64(len(cs.Series.Window[0]) + len(cs.Series.Window[1]))
		}
	}
	return work, points
}

// TestHostileWorkIsLinear: on every hostile capture kind (one connection,
// pcaptest.WriteHostile), doubling the segments at most doubles the spans
// the byte-range sets visit, give or take a little: a per-point walk over
// the spans (the SACK-aware in flight walked every span under the highest
// sequence sent at every window point, 52 s at 100 000 segments) grows
// fourfold. No timing: the count is the analysis's own.
func TestHostileWorkIsLinear(t *testing.T) {
	const n = 2000
	for _, k := range pcaptest.Hostiles {
		if k == pcaptest.HostileSYNFlood {
			continue // n connections, no byte ranges
		}
		t.Run(string(k), func(t *testing.T) {
			w1, p1 := hostileWork(t, k, n)
			w2, p2 := hostileWork(t, k, 2*n)
			t.Logf("n=%d: %d span visits, %d window points; 2n: %d, %d", n, w1, p1, w2, p2)
			if p1 == 0 || p2 < 2*p1-8 {
				t.Fatalf("window points %d then %d: the window series did not run", p1, p2)
			}
			if w2 > 5*w1/2+64 {
				t.Errorf("span visits %d at n=%d, %d at 2n: grow faster than linearly", w1, n, w2)
			}
		})
	}
}
