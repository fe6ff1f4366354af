package stats

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzWilcoxon checks invariants on arbitrary inputs: W+ + W− = N(N+1)/2,
// N + Zeros = len(d), 0 < P ≤ 1, and P is unchanged when every sign flips.
func FuzzWilcoxon(f *testing.F) {
	f.Add([]byte{1, 2, 3, 255, 0, 7})
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var d, neg []float64
		for len(b) >= 2 && len(d) < 80 {
			x := float64(int16(binary.LittleEndian.Uint16(b))) / 8
			d, neg = append(d, x), append(neg, -x)
			b = b[2:]
		}
		r, err := WilcoxonSignedRank(d)
		if len(d) == 0 {
			if err == nil {
				t.Fatal("no error for empty input")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		n := float64(r.N)
		if r.WPlus+r.WMinus != n*(n+1)/2 || r.N+r.Zeros != len(d) || !(r.P > 0 && r.P <= 1) {
			t.Fatalf("WilcoxonSignedRank(%v) = %+v violates invariants", d, r)
		}
		m, _ := WilcoxonSignedRank(neg)
		if math.Abs(m.P-r.P) > 1e-12 || m.WPlus != r.WMinus {
			t.Fatalf("sign flip changed the test: %+v vs %+v", r, m)
		}
	})
}
