package tcpanalysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestQuantileExactThenSketch: up to ExactQuantileLimit samples the
// quantiles equal Percentiles' nearest-rank values; beyond, every quantile
// is within QuantileRelErr of the exact one (log-normal RTTs around 600 ms
// with a few zeros, as a GEO path with a local echo would give).
func TestQuantileExactThenSketch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 1000, ExactQuantileLimit, 3 * ExactQuantileLimit} {
		var a RTTAgg
		ds := make([]time.Duration, n)
		for i := range ds {
			ds[i] = time.Duration(math.Exp(rng.NormFloat64()*0.8) * float64(600*time.Millisecond))
			if i%97 == 0 {
				ds[i] = 0
			}
			a.add(ds[i], true, nil)
		}
		sorted := slices.Clone(ds)
		slices.Sort(sorted)
		_, _, p50, _, p95, _, _ := Percentiles(ds)
		for _, p := range []float64{0.01, 0.25, 0.5, 0.9, 0.95, 0.99, 1} {
			got, ok := a.Quantile(p)
			want := sorted[max(int(math.Ceil(p*float64(n)))-1, 0)]
			if !ok {
				t.Fatalf("n=%d: no quantile", n)
			}
			if n <= ExactQuantileLimit {
				if got != want {
					t.Errorf("n=%d p=%v: %v, want exactly %v", n, p, got, want)
				}
				continue
			}
			if err := math.Abs(float64(got-want)) / float64(want); want > 0 && err > QuantileRelErr {
				t.Errorf("n=%d p=%v: %v, want %v ±%.1f%% (off by %.3f%%)", n, p, got, want, QuantileRelErr*100, err*100)
			}
		}
		if q, _ := a.Quantile(0.5); n <= ExactQuantileLimit && q != p50 {
			t.Errorf("n=%d: p50 %v, Percentiles says %v", n, q, p50)
		}
		if q, _ := a.Quantile(0.95); n <= ExactQuantileLimit && q != p95 {
			t.Errorf("n=%d: p95 %v, Percentiles says %v", n, q, p95)
		}
		if a.Exact() != (n <= ExactQuantileLimit) {
			t.Errorf("n=%d: Exact() = %v", n, a.Exact())
		}
	}
}
