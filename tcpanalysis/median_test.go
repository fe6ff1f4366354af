package tcpanalysis

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestMedianEstimate: RTTAgg.MedianEstimate is the exact nearest-rank
// median (Percentiles' p50) up to medExact samples, and within
// MedianRelErr of it past that, whatever the samples' shape: uniform,
// a bimodal delayed-ACK mix (a few hundred µs and 40 ms, the shape a
// marker-based estimator such as P² misses by an order of magnitude:
// the pep-on_window-20KB client's toward-sender samples, 340 µs exact
// against P²'s 8.3 ms), heavy-tailed, with zeros, and before and after
// the connection is over (freezeMedian), the histogram recycled through
// the pool.
func TestMedianEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := map[string]func() time.Duration{
		"uniform": func() time.Duration { return time.Duration(10_000 + rng.IntN(1_000_000)) },
		"bimodal": func() time.Duration {
			return []time.Duration{time.Duration(300_000 + rng.IntN(80_000)), 40 * time.Millisecond}[rng.IntN(2)]
		},
		"tail":     func() time.Duration { return time.Duration(20_000 * rng.ExpFloat64() * rng.ExpFloat64()) },
		"zeros":    func() time.Duration { return time.Duration(rng.IntN(3) * 5000) },
		"constant": func() time.Duration { return 612 * time.Millisecond },
	}
	pool := &scratchPool{}
	for name, gen := range shapes {
		for _, n := range []int{1, 2, 3, 5, 16, 17, 54, 1000, 40_000} {
			var a RTTAgg
			ds := make([]time.Duration, n)
			for i := range ds {
				ds[i] = gen()
				a.add(ds[i], false, pool)
			}
			_, _, want, _, _, _, _ := Percentiles(slices.Clone(ds))
			check := func(when string) {
				got, exact, ok := a.MedianEstimate()
				if !ok {
					t.Fatalf("%s n=%d %s: no median", name, n, when)
				}
				if exact != (n <= medExact) {
					t.Errorf("%s n=%d %s: exact %v", name, n, when, exact)
				}
				if exact && got != want || !exact && float64(max(got-want, want-got)) > MedianRelErr*float64(want)+16 {
					t.Errorf("%s n=%d %s: median %v, exact %v (rel. err. %.4f)", name, n, when, got, want, float64(max(got-want, want-got))/float64(want))
				}
			}
			check("alive")
			a.freezeMedian(pool)
			if a.med != nil {
				t.Fatalf("%s n=%d: histogram kept after freezeMedian", name, n)
			}
			check("over")
		}
	}
	if len(pool.hists) == 0 {
		t.Error("no histogram given back to the pool")
	}
	var none RTTAgg
	if _, _, ok := none.MedianEstimate(); ok {
		t.Error("median of no samples")
	}
}
