package tcpanalysis

import (
	"math"
	"slices"
	"time"
)

// Quantiles of RTT samples (docs/metrics.md#rtt-percentiles): exact while a
// series has at most ExactQuantileLimit samples, then a log-bucketed sketch
// whose every quantile is within QuantileRelErr of the exact nearest-rank
// value (the bucket scheme of DDSketch, Masson et al., VLDB 2019). Memory:
// 8 bytes per sample up to the limit, then at most one 8-byte counter per
// bucket (≈ 1 900 buckets span 1 µs … 100 s).
const (
	ExactQuantileLimit = 1 << 15
	// QuantileRelErr bounds the relative error of a sketched quantile.
	QuantileRelErr = 0.005
)

var (
	qGamma    = (1 + QuantileRelErr) / (1 - QuantileRelErr)
	qLogGamma = math.Log(qGamma)
)

// quantiles holds one series of non-negative durations.
type quantiles struct {
	exact  []time.Duration // while len ≤ ExactQuantileLimit and sketch is nil
	sorted bool
	// sketch: zero counts samples of exactly 0; counts[i] those in bucket
	// off+i, bucket k holding (γ^(k−1), γ^k] nanoseconds.
	zero   uint64
	counts []uint64
	off    int
	n      uint64
	sketch bool
}

func qBucket(d time.Duration) int { return int(math.Ceil(math.Log(float64(d)) / qLogGamma)) }

func (q *quantiles) add(d time.Duration) {
	q.n++
	if !q.sketch {
		if n := len(q.exact); n < ExactQuantileLimit {
			if n == cap(q.exact) && n >= ExactQuantileLimit/16 {
				// A long series: one step to the limit rather than a
				// chain of growing copies, each garbage.
				q.exact = slices.Grow(q.exact, ExactQuantileLimit-n)
			}
			q.exact = append(q.exact, d)
			q.sorted = false
			return
		}
		// The sample past the limit: to the sketch, without growing the
		// exact slice first (that would double it for one sample).
		q.sketch = true
		ex := q.exact
		q.exact = nil
		for _, x := range ex {
			q.bucket(x)
		}
	}
	q.bucket(d)
}

func (q *quantiles) bucket(d time.Duration) {
	if d <= 0 {
		q.zero++
		return
	}
	k := qBucket(d)
	q.counts, q.off = spanTo(q.counts, q.off, k)
	q.counts[k-q.off]++
}

// spanTo returns counts (whose first element is bucket lo) and lo grown,
// if need be, to hold bucket k, new buckets zero: the sparse histograms of
// quantiles and medHist, which hold the buckets from the lowest sample's
// to the highest's.
func spanTo[T uint32 | uint64](counts []T, lo, k int) ([]T, int) {
	switch {
	case len(counts) == 0:
		return append(counts[:0], 0), k
	case k < lo:
		grow := make([]T, lo-k+len(counts), lo-k+len(counts)+8)
		copy(grow[lo-k:], counts)
		return grow, k
	case k >= lo+len(counts):
		return append(counts, make([]T, k-lo-len(counts)+1)...), lo
	}
	return counts, lo
}

// quantile returns the nearest-rank p-quantile (0 < p ≤ 1): exact, or
// within QuantileRelErr of it once sketched; false without samples.
func (q *quantiles) quantile(p float64) (time.Duration, bool) {
	if q == nil || q.n == 0 {
		return 0, false
	}
	rank := uint64(math.Ceil(p * float64(q.n)))
	rank = max(rank, 1)
	if !q.sketch {
		if !q.sorted {
			slices.Sort(q.exact)
			q.sorted = true
		}
		return q.exact[rank-1], true
	}
	c := q.zero
	if c >= rank {
		return 0, true
	}
	for i, n := range q.counts {
		c += n
		if c >= rank {
			k := float64(q.off + i)
			// The bucket's point of least relative error: 2γ^k/(γ+1).
			return time.Duration(2 * math.Exp(k*qLogGamma) / (qGamma + 1)), true
		}
	}
	return 0, false
}

// Quantile returns the nearest-rank p-quantile (0 < p ≤ 1) of the samples
// added to a, clamped to [Min, Max]; exact up to ExactQuantileLimit samples,
// within QuantileRelErr above (docs/metrics.md#rtt-percentiles). ok is
// false when a holds no samples or quantiles were not kept
// (Options.RTTQuantiles).
func (a *RTTAgg) Quantile(p float64) (time.Duration, bool) {
	v, ok := a.q.quantile(p)
	if !ok {
		return 0, false
	}
	return min(max(v, a.Min), a.Max), true
}

// Exact reports whether Quantile's values are exact (no sketch used).
func (a *RTTAgg) Exact() bool { return a.q == nil || !a.q.sketch }
