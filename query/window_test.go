package query

import (
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
)

// TestIntervalsFromRef: the intervals start at the reference point + From,
// are cut at + To, and add up to every payload byte sent and every byte
// newly acknowledged in the window — counted here from the segments and
// ACKs directly.
func TestIntervalsFromRef(t *testing.T) {
	for _, c := range []struct {
		name        string
		ref         Ref
		from, to    time.Duration
		sent, acked int64
		n           int
		first       time.Duration // first interval's start since the SYN
		lastW       time.Duration
	}{
		{"bulk", RefBulk, 0, 0, 584992, 579200, 25, 600 * time.Millisecond, time.Second},
		{"syn", RefSYN, 0, 0, 584992, 579200, 26, 0, time.Second},
		{"data", RefData, 0, 0, 584992, 579200, 25, 600 * time.Millisecond, time.Second},
		{"range", RefBulk, 2 * time.Second, 4500 * time.Millisecond, 17376, 55024, 3, 2600 * time.Millisecond, 500 * time.Millisecond},
		{"off-grid", RefBulk, 1500 * time.Millisecond, 3 * time.Second, 0, 0, 2, 2100 * time.Millisecond, time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			sel := All()
			sel.Ref, sel.From, sel.To = c.ref, c.from, c.to
			v, err := Analyze(synth, sel, Options{Interval: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			r, d := v.Conn, v.Dir
			iv, err := v.Intervals(r, d)
			if err != nil {
				t.Fatal(err)
			}
			var sent, acked int64
			for _, b := range iv {
				sent, acked = sent+b.Bytes, acked+b.Acked
			}
			// Independently: payload of the segments in the window.
			var want int64
			for _, s := range r.Series.Segs[d] {
				if sel.InRange(s.Time, v.Ref) {
					want += int64(s.Payload)
				}
			}
			if sent != want {
				t.Errorf("intervals hold %d B sent, the window %d B", sent, want)
			}
			if c.name != "off-grid" && (sent != c.sent || acked != c.acked) {
				t.Errorf("sent %d, acked %d; want %d, %d", sent, acked, c.sent, c.acked)
			}
			if len(iv) != c.n {
				t.Fatalf("%d intervals, want %d", len(iv), c.n)
			}
			if got := iv[0].Start.Sub(r.Conn.First); got != c.first {
				t.Errorf("first interval at %v after the SYN, want %v", got, c.first)
			}
			if got := iv[len(iv)-1].Width; got != c.lastW {
				t.Errorf("last interval %v wide, want %v", got, c.lastW)
			}
			// Interval k > 0 starts on the grid laid from the reference
			// point.
			for _, b := range iv[1:] {
				if b.Start.Sub(v.Ref)%time.Second != 0 {
					t.Errorf("interval at %v after the reference point: off the grid", b.Start.Sub(v.Ref))
				}
			}
			if c.name == "off-grid" && (iv[0].Width != 500*time.Millisecond || iv[1].Start.Sub(v.Ref) != 2*time.Second) {
				t.Errorf("--from 1.5: intervals %v/%v, %v; want the first cut to 0.5 s, the second at ref + 2 s", iv[0].Start.Sub(v.Ref), iv[0].Width, iv[1].Start.Sub(v.Ref))
			}
		})
	}
}

// TestRefResolve: a direction without the reference point asked for falls
// back (bulk → data → syn), and the view warns once, naming the one used.
func TestRefResolve(t *testing.T) {
	sel := All()
	sel.Ref, sel.Dir = RefBulk, BA
	v, err := Analyze(synth, sel, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := v.Conn
	for _, c := range []struct {
		ref  Ref
		d    flows.Direction
		used Ref
		at   time.Duration
	}{
		{RefBulk, flows.AtoB, RefBulk, 600 * time.Millisecond},
		{RefData, flows.AtoB, RefData, 600 * time.Millisecond},
		{RefSYN, flows.AtoB, RefSYN, 0},
		{RefBulk, flows.BtoA, RefSYN, 0}, // ba sends ACKs only
		{RefData, flows.BtoA, RefSYN, 0},
	} {
		ts, used := c.ref.Resolve(r, c.d)
		if used != c.used || ts.Sub(r.Conn.First) != c.at {
			t.Errorf("%v in %v: %v at %v; want %v at %v", c.ref, c.d, used, ts.Sub(r.Conn.First), c.used, c.at)
		}
	}
	if v.RefUsed != RefSYN || v.Ref != r.Conn.First {
		t.Errorf("view: RefUsed %v at %v", v.RefUsed, capture.Timestamp(v.Ref))
	}
	n := 0
	for _, w := range v.Warnings {
		if w.Kind == WarnRefFallback {
			n++
			if w.Ref != RefSYN || w.Dir != flows.BtoA {
				t.Errorf("warning %+v", w)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d WarnRefFallback warnings, want 1", n)
	}
}

// TestInWindow: both ends of the window are in it; To 0 has no end.
func TestInWindow(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		dt, from, to time.Duration
		want         bool
	}{
		{0, 0, 0, true},
		{-1, 0, 0, false},
		{2 * s, 2 * s, 4 * s, true},
		{4 * s, 2 * s, 4 * s, true},
		{4*s + 1, 2 * s, 4 * s, false},
		{2*s - 1, 2 * s, 4 * s, false},
		{1000 * s, 2 * s, 0, true},
	} {
		if got := InWindow(c.dt, c.from, c.to); got != c.want {
			t.Errorf("InWindow(%v, %v, %v) = %v, want %v", c.dt, c.from, c.to, got, c.want)
		}
		sel := Selection{From: c.from, To: c.to}
		if got := sel.InRange(capture.Timestamp(7*s+c.dt), capture.Timestamp(7*s)); got != c.want {
			t.Errorf("Selection{%v, %v}.InRange(ref + %v) = %v, want %v", c.from, c.to, c.dt, got, c.want)
		}
	}
}
