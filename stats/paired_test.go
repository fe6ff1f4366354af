package stats

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func pairs(keys []int, vals []float64) []Pair[int] {
	ps := make([]Pair[int], len(keys))
	for i := range keys {
		ps[i] = Pair[int]{keys[i], vals[i]}
	}
	return ps
}

func TestPairedDepression(t *testing.T) {
	keys := []int{9, 8, 7, 6, 5, 4, 3, 2, 1} // order of input must not matter
	got, err := Paired(pairs(keys, depressionX), pairs(keys, depressionY), 0.95)
	if err != nil {
		t.Fatalf("Paired(depression) error %v", err)
	}
	// d = x − y by key ascending = reverse of input order.
	d := depressionDiffs()
	slices.Reverse(d)
	if !slices.Equal(got.Keys, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}) || !slices.Equal(got.Diffs, d) {
		t.Errorf("Paired keys/diffs = %v %v, want 1..9 %v", got.Keys, got.Diffs, d)
	}
	// Mean of d = 3.887/9; 7 of 9 positive; Wilcoxon as in R.
	if got.N != 9 || got.Positive != 7 || got.Negative != 2 || !near(got.Diff.Mean, 3.887/9, 1e-12) ||
		got.Wilcoxon.WPlus != 40 || !near(got.Wilcoxon.P, 20.0/512, 1e-15) {
		t.Errorf("Paired(depression) = %+v", got)
	}
	want, _ := MeanCI(d, 0.95)
	if got.Diff != want {
		t.Errorf("Paired Diff = %+v, want MeanCI(diffs) %+v", got.Diff, want)
	}
	if s, want := got.String(), "+0.4 [+0.1, +0.8], p = 0.039, 7/9 positive"; s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
}

func TestPairedSignAndUnmatched(t *testing.T) {
	a := pairs([]int{1, 2, 3, 4, 5, 7}, []float64{10, 12, 9, 11, 10, 99})
	b := pairs([]int{6, 5, 4, 3, 2, 8}, []float64{99, 10, 10, 10, 10, 99})
	got, err := Paired(a, b, 0.95)
	if err != nil {
		t.Fatalf("Paired error %v", err)
	}
	// Keys 2..5: a − b = 12−10, 9−10, 11−10, 10−10 = +2, −1, +1, 0.
	if !slices.Equal(got.Keys, []int{2, 3, 4, 5}) || !slices.Equal(got.Diffs, []float64{2, -1, 1, 0}) ||
		!slices.Equal(got.OnlyA, []int{1, 7}) || !slices.Equal(got.OnlyB, []int{6, 8}) {
		t.Errorf("Paired keys %v diffs %v onlyA %v onlyB %v, want [2 3 4 5] [2 -1 1 0] [1 7] [6 8]",
			got.Keys, got.Diffs, got.OnlyA, got.OnlyB)
	}
	// The zero counts in N but is neither positive nor negative, and the
	// Wilcoxon test drops it: |d| 2,1,1 → ranks 3,1.5,1.5, W+ = 4.5.
	if got.N != 4 || got.Positive != 2 || got.Negative != 1 || got.Wilcoxon.Zeros != 1 ||
		got.Wilcoxon.N != 3 || got.Wilcoxon.WPlus != 4.5 || got.Diff.Mean != 0.5 {
		t.Errorf("Paired = %+v", got)
	}
}

func TestPairedStringKeys(t *testing.T) {
	a := []Pair[string]{{"s1", 3}, {"s2", 5}}
	b := []Pair[string]{{"s2", 1}, {"s1", 4}}
	got, err := Paired(a, b, 0.95)
	if err != nil || !slices.Equal(got.Diffs, []float64{-1, 4}) || got.OnlyA != nil || got.OnlyB != nil {
		t.Errorf("Paired(string keys) = %+v, %v; want diffs [-1 4]", got, err)
	}
}

func TestPairedSingleKey(t *testing.T) {
	got, err := Paired(pairs([]int{1}, []float64{5}), pairs([]int{1}, []float64{3}), 0.95)
	if err != nil || got.N != 1 || got.Diff.Mean != 2 || !math.IsNaN(got.Diff.Lo) || got.Wilcoxon.P != 1 {
		t.Errorf("Paired(one key) = %+v, %v; want mean 2, NaN CI, p 1", got, err)
	}
}

func TestPairedErrors(t *testing.T) {
	ok := pairs([]int{1, 2}, []float64{1, 2})
	for _, tt := range []struct {
		name  string
		a, b  []Pair[int]
		level float64
		want  error
	}{
		{"duplicate-a", pairs([]int{1, 1}, []float64{1, 2}), ok, 0.95, ErrDuplicateKey},
		{"duplicate-b", ok, pairs([]int{2, 2}, []float64{1, 2}), 0.95, ErrDuplicateKey},
		{"no-common-key", ok, pairs([]int{3, 4}, []float64{1, 2}), 0.95, ErrEmpty},
		{"empty", nil, nil, 0.95, ErrEmpty},
		{"NaN", ok, pairs([]int{1, 2}, []float64{1, math.NaN()}), 0.95, ErrNonFinite},
		{"level", ok, ok, 1.5, ErrLevel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Paired(tt.a, tt.b, tt.level); !errors.Is(err, tt.want) {
				t.Errorf("Paired(%v, %v, %v) error = %v, want %v", tt.a, tt.b, tt.level, err, tt.want)
			}
		})
	}
}
