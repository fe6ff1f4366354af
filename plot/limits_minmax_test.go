package plot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// limitsRef is dataLimitsIn as math.Min and math.Max give it.
func limitsRef(ss []Named, from, to float64) limits {
	l := limits{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1), 0}
	for _, s := range ss {
		for i := range s.X {
			if math.IsNaN(s.Y[i]) || math.IsInf(s.Y[i], 0) {
				continue
			}
			if to > from && (s.X[i] < from || s.X[i] > to) {
				continue
			}
			l.xlo, l.xhi = math.Min(l.xlo, s.X[i]), math.Max(l.xhi, s.X[i])
			l.ylo, l.yhi = math.Min(l.ylo, s.Y[i]), math.Max(l.yhi, s.Y[i])
		}
	}
	if math.IsInf(l.xlo, 0) {
		l = limits{0, 1, 0, 1, 0}
	}
	return l
}

func same(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b) || a != a && b != b
}

func TestDataLimitsInMatchesMinMax(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, 2.5, math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e-300}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20000 {
		var ss []Named
		for range 1 + rng.IntN(3) {
			n := rng.IntN(6)
			s := Named{X: make([]float64, n), Y: make([]float64, n)}
			for i := range n {
				s.X[i] = special[rng.IntN(len(special))]
				s.Y[i] = special[rng.IntN(len(special))]
			}
			ss = append(ss, s)
		}
		from, to := 0.0, 0.0
		if trial%2 == 1 {
			from, to = -1, 2.5
		}
		got, want := dataLimitsIn(ss, from, to), limitsRef(ss, from, to)
		if !same(got.xlo, want.xlo) || !same(got.xhi, want.xhi) || !same(got.ylo, want.ylo) || !same(got.yhi, want.yhi) || got.cap != want.cap {
			t.Fatalf("trial %d: %+v: got %+v, want %+v", trial, ss, got, want)
		}
	}
}
