package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Pair is one observation of a keyed sample: the per-run metric Value
// (e.g. goodput in kbps) of the run identified by Key (e.g. the seed).
type Pair[K cmp.Ordered] struct {
	Key   K
	Value float64
}

// PairedResult compares two keyed samples a and b key by key.
// Differences are a − b: a positive difference means a's value is larger.
type PairedResult[K cmp.Ordered] struct {
	Keys  []K       // keys present in both samples, ascending
	Diffs []float64 // a − b for each of Keys, in the same order
	OnlyA []K       // keys present only in a (unused), ascending; nil if none
	OnlyB []K       // keys present only in b (unused), ascending; nil if none

	// Diff is the mean of Diffs with its t-based confidence interval
	// (MeanCI); Diff.N == N. Its bounds are NaN if N == 1.
	Diff Interval
	// Wilcoxon is the two-sided signed-rank test on Diffs; zero
	// differences are dropped there (Wilcoxon.Zeros counts them).
	Wilcoxon WilcoxonResult

	// N is the number of matched keys, including those with a zero
	// difference; Positive and Negative count Diffs > 0 and < 0, so
	// "Positive/N positive" is the study's "k/n positive" and
	// N − Positive − Negative == Wilcoxon.Zeros.
	N, Positive, Negative int
}

// String formats r as "+319.2 [+256.4, +382.1], p = 1.9e-06, 20/20 positive".
func (r PairedResult[K]) String() string {
	return fmt.Sprintf("%s, p = %s, %d/%d positive",
		formatInterval(r.Diff.Mean, r.Diff.Lo, r.Diff.Hi, true), FormatP(r.Wilcoxon.P), r.Positive, r.N)
}

// Paired pairs a and b by Key and summarises the per-key differences a − b:
// their mean with the t-based confidence interval at level (MeanCI), the
// exact two-sided Wilcoxon signed-rank test (WilcoxonSignedRank), and how
// many are positive. Only keys present in both samples are used; the others
// are reported in OnlyA and OnlyB, not treated as errors.
//
// It returns an error wrapping ErrDuplicateKey if a key occurs twice in one
// sample, ErrNonFinite for a NaN or infinite value, ErrEmpty if no key is
// common to both samples, and ErrLevel for a level outside (0, 1).
func Paired[K cmp.Ordered](a, b []Pair[K], level float64) (PairedResult[K], error) {
	var r PairedResult[K]
	am, err := indexPairs("a", a)
	if err != nil {
		return r, err
	}
	bm, err := indexPairs("b", b)
	if err != nil {
		return r, err
	}
	for k := range am {
		if _, ok := bm[k]; ok {
			r.Keys = append(r.Keys, k)
		} else {
			r.OnlyA = append(r.OnlyA, k)
		}
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			r.OnlyB = append(r.OnlyB, k)
		}
	}
	slices.Sort(r.Keys)
	slices.Sort(r.OnlyA)
	slices.Sort(r.OnlyB)
	if len(r.Keys) == 0 {
		return r, fmt.Errorf("paired: %w: no key common to both samples (%d in a, %d in b)", ErrEmpty, len(a), len(b))
	}
	r.N = len(r.Keys)
	r.Diffs = make([]float64, r.N)
	for i, k := range r.Keys {
		d := am[k] - bm[k]
		r.Diffs[i] = d
		switch {
		case d > 0:
			r.Positive++
		case d < 0:
			r.Negative++
		}
	}
	if r.Diff, err = MeanCI(r.Diffs, level); err != nil {
		return r, fmt.Errorf("paired: %w", err)
	}
	if r.Wilcoxon, err = WilcoxonSignedRank(r.Diffs); err != nil {
		return r, fmt.Errorf("paired: %w", err)
	}
	return r, nil
}

// indexPairs maps keys to values, rejecting duplicate keys and non-finite values.
func indexPairs[K cmp.Ordered](name string, ps []Pair[K]) (map[K]float64, error) {
	m := make(map[K]float64, len(ps))
	for i, p := range ps {
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			return nil, fmt.Errorf("paired: sample %s: %w: key %v = %v", name, ErrNonFinite, p.Key, p.Value)
		}
		if _, dup := m[p.Key]; dup {
			return nil, fmt.Errorf("paired: sample %s: %w %v (entry %d)", name, ErrDuplicateKey, p.Key, i)
		}
		m[p.Key] = p.Value
	}
	return m, nil
}
