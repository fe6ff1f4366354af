package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Method names how a p-value was computed.
type Method string

const (
	// MethodExact is the exact permutation null distribution.
	MethodExact Method = "exact"
	// MethodNormal is the normal approximation with tie and continuity corrections.
	MethodNormal Method = "normal"
)

// WilcoxonExactMaxN is the largest number of non-zero differences for which
// WilcoxonSignedRank computes the exact null distribution; above it the
// normal approximation is used.
const WilcoxonExactMaxN = 50

// WilcoxonResult is the outcome of a two-sided Wilcoxon signed-rank test.
type WilcoxonResult struct {
	N     int // differences used: the non-zero ones
	Zeros int // differences equal to zero, dropped before ranking
	// Ties is the number of used differences whose |d| equals that of
	// another used difference; they share a mid-rank. 0 means no ties.
	Ties int
	// WPlus and WMinus are the sums of the (mid-)ranks of |d| over the
	// positive and the negative differences; WPlus + WMinus = N(N+1)/2.
	// They are multiples of 0.5.
	WPlus, WMinus float64
	// P is the two-sided p-value, min(1, 2·min(P(W+ ≤ w), P(W+ ≥ w))).
	// It is 1 when N == 0.
	P      float64
	Method Method // MethodExact if N ≤ WilcoxonExactMaxN, else MethodNormal
	// Z is the continuity-corrected standard score of WPlus; valid iff
	// Method == MethodNormal, 0 otherwise.
	Z float64
}

// String formats the result as "V = 40, p = 0.039 (exact, n = 9, 0 zeros)".
func (r WilcoxonResult) String() string {
	return fmt.Sprintf("V = %g, p = %s (%s, n = %d, %d zeros)", r.WPlus, FormatP(r.P), r.Method, r.N, r.Zeros)
}

// WilcoxonSignedRank performs the two-sided Wilcoxon signed-rank test of the
// hypothesis that the paired differences d are symmetric about zero
// (Wilcoxon, 1945). WPlus is R's statistic V.
//
// Zeros: differences exactly equal to 0 are dropped before ranking
// (Wilcoxon's original rule, as R's wilcox.test does) and counted in Zeros.
// If no non-zero difference remains, the result has N == 0 and P == 1 (no
// evidence either way) with Method == MethodExact and a nil error.
//
// Ties: equal |d| (compared exactly, as R does; round first if the data carry
// float noise) receive the mean of the ranks they span (mid-ranks). For
// N ≤ WilcoxonExactMaxN the null distribution of W+ is enumerated exactly over
// the actual mid-ranks: every one of the 2^N sign assignments is equally
// likely under H0, and a dynamic programme over sums of doubled ranks (which
// are integers) counts them. Unlike R, which falls back to the normal
// approximation when there are ties or zeros, this stays exact with ties.
// For larger N the normal approximation is used, with variance
// N(N+1)(2N+1)/24 − Σ(t³−t)/48 over tie groups of size t and a continuity
// correction of 0.5 towards the mean (as R's exact=FALSE, correct=TRUE).
//
// It returns ErrEmpty if d is empty and ErrNonFinite if any d is NaN or ±Inf.
func WilcoxonSignedRank(d []float64) (WilcoxonResult, error) {
	if len(d) == 0 {
		return WilcoxonResult{}, fmt.Errorf("wilcoxon signed-rank: %w", ErrEmpty)
	}
	type obs struct {
		abs float64
		pos bool
	}
	nz := make([]obs, 0, len(d))
	for i, x := range d {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return WilcoxonResult{}, fmt.Errorf("wilcoxon signed-rank: %w: d[%d] = %v", ErrNonFinite, i, x)
		}
		if x != 0 {
			nz = append(nz, obs{math.Abs(x), x > 0})
		}
	}
	n := len(nz)
	r := WilcoxonResult{N: n, Zeros: len(d) - n, Method: MethodExact, P: 1}
	if n == 0 {
		return r, nil
	}
	slices.SortFunc(nz, func(a, b obs) int {
		switch {
		case a.abs < b.abs:
			return -1
		case a.abs > b.abs:
			return 1
		}
		return 0
	})

	// Doubled mid-ranks: a tie group at sorted positions i..j-1 (0-based)
	// spans ranks i+1..j, whose mean doubled is i+1+j, an integer.
	ranks2 := make([]int, n)
	wPlus2 := 0
	tieSum := 0.0 // Σ(t³ − t) over tie groups
	for i := 0; i < n; {
		j := i + 1
		for j < n && nz[j].abs == nz[i].abs {
			j++
		}
		if t := j - i; t > 1 {
			r.Ties += t
			tieSum += float64(t)*float64(t)*float64(t) - float64(t)
		}
		for k := i; k < j; k++ {
			ranks2[k] = i + 1 + j
			if nz[k].pos {
				wPlus2 += i + 1 + j
			}
		}
		i = j
	}
	total2 := n * (n + 1)
	r.WPlus = float64(wPlus2) / 2
	r.WMinus = float64(total2-wPlus2) / 2

	if n <= WilcoxonExactMaxN {
		r.P = exactSignedRankP(ranks2, wPlus2)
		return r, nil
	}
	r.Method = MethodNormal
	nf := float64(n)
	mu := nf * (nf + 1) / 4
	sigma := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tieSum/48)
	z := r.WPlus - mu
	switch {
	case z > 0:
		z -= 0.5
	case z < 0:
		z += 0.5
	}
	z /= sigma
	r.Z = z
	// 2·Φ(−|z|) rather than 1 − Φ(|z|), which cancels to 0 for z ≳ 8.3.
	r.P = math.Min(1, 2*distuv.UnitNormal.CDF(-math.Abs(z)))
	return r, nil
}

// exactSignedRankP returns the two-sided exact p-value of an observed doubled
// W+ of w2, given the doubled ranks of the N used differences. Under H0 each
// sign assignment has probability 2^−N; counts[s] is the number of
// assignments whose doubled W+ equals s. N must be ≤ 62 so that counts fit.
func exactSignedRankP(ranks2 []int, w2 int) float64 {
	n := len(ranks2)
	total := 0
	for _, r := range ranks2 {
		total += r
	}
	counts := make([]uint64, total+1)
	counts[0] = 1
	hi := 0 // largest reachable sum so far
	for _, r := range ranks2 {
		for s := hi; s >= 0; s-- {
			counts[s+r] += counts[s]
		}
		hi += r
	}
	var le, ge uint64
	for s, c := range counts {
		if s <= w2 {
			le += c
		}
		if s >= w2 {
			ge += c
		}
	}
	return math.Min(1, math.Ldexp(float64(2*min(le, ge)), -n))
}
