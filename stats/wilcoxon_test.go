package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func seq(from, to int, sign float64) []float64 {
	var xs []float64
	for i := from; i <= to; i++ {
		xs = append(xs, sign*float64(i))
	}
	return xs
}

// depression: Hollander & Wolfe (1973) p. 29, the paired example of R's
// ?wilcox.test: x − y. R: wilcox.test(x, y, paired = TRUE) gives
// V = 40, p-value = 0.03906 (= 20/512: W− ≤ 5 in 10 of 512 sign sets).
var depressionX = []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
var depressionY = []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}

func depressionDiffs() []float64 {
	d := make([]float64, len(depressionX))
	for i := range d {
		d[i] = depressionX[i] - depressionY[i]
	}
	return d
}

func TestWilcoxonSignedRank(t *testing.T) {
	tests := []struct {
		name          string
		d             []float64
		n, zeros      int
		ties          int
		wPlus, wMinus float64
		p             float64
	}{
		{"R-depression", depressionDiffs(), 9, 0, 0, 40, 5, 20.0 / 512},
		// Only the all-positive assignment reaches W+ = 210: p = 2/2^20.
		{"n20-all-positive", seq(1, 20, 1), 20, 0, 0, 210, 0, 2 / math.Exp2(20)},
		{"n20-all-negative", seq(1, 20, -1), 20, 0, 0, 0, 210, 2 / math.Exp2(20)},
		// R: wilcox.test(c(-1, 2, 3, 4, 5)) gives V = 14, p-value = 0.125
		// (W− ≤ 1 in 2 of 32 sign sets).
		{"R-n5", []float64{-1, 2, 3, 4, 5}, 5, 0, 0, 14, 1, 0.125},
		// |d| mid-ranks 1.5 1.5 3.5 3.5 5.5 5.5; W+ = 10.5 is the null mean.
		{"symmetric-ties", []float64{-3, -2, -1, 1, 2, 3}, 6, 0, 6, 10.5, 10.5, 1},
		// Mid-ranks 1.5 1.5 3 4, W+ = 7. Of the 16 subset sums
		// {0,1.5,1.5,3,4,3,4.5,5.5,4.5,5.5,7,6,7,8.5,8.5,10}, 5 are ≥ 7
		// and 13 are ≤ 7: p = 2·5/16.
		{"ties-by-hand", []float64{1, 1, -2, 3}, 4, 0, 2, 7, 3, 10.0 / 16},
		// The zero is dropped; ranks 1 2 3 all positive: p = 2/8.
		{"zero-dropped", []float64{0, 1, 2, 3}, 3, 1, 0, 6, 0, 0.25},
		{"all-zero", []float64{0, 0, 0}, 0, 3, 0, 0, 0, 1},
		{"single", []float64{-4}, 1, 0, 0, 0, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := WilcoxonSignedRank(tt.d)
			if err != nil {
				t.Fatalf("WilcoxonSignedRank(%v) error %v", tt.d, err)
			}
			if got.N != tt.n || got.Zeros != tt.zeros || got.Ties != tt.ties ||
				got.WPlus != tt.wPlus || got.WMinus != tt.wMinus ||
				!near(got.P, tt.p, 1e-15) || got.Method != MethodExact {
				t.Errorf("WilcoxonSignedRank(%v) = %+v, want N %d Zeros %d Ties %d W+ %v W− %v P %v exact",
					tt.d, got, tt.n, tt.zeros, tt.ties, tt.wPlus, tt.wMinus, tt.p)
			}
		})
	}
}

func TestWilcoxonErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    []float64
		want error
	}{
		{"empty", nil, ErrEmpty},
		{"NaN", []float64{1, math.NaN()}, ErrNonFinite},
		{"Inf", []float64{math.Inf(1)}, ErrNonFinite},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := WilcoxonSignedRank(tt.d); !errors.Is(err, tt.want) {
				t.Errorf("WilcoxonSignedRank(%v) error = %v, want %v", tt.d, err, tt.want)
			}
		})
	}
}

// bruteForceP recomputes the exact two-sided p by definition, independently
// of WilcoxonSignedRank: mid-ranks by counting, then all 2^n sign sets.
func bruteForceP(d []float64) (wPlus, p float64) {
	var abs []float64
	var pos []bool
	for _, x := range d {
		if x != 0 {
			abs = append(abs, math.Abs(x))
			pos = append(pos, x > 0)
		}
	}
	n := len(abs)
	rank := make([]float64, n)
	for i := range abs {
		less, equal := 0, 0
		for j := range abs {
			if abs[j] < abs[i] {
				less++
			} else if abs[j] == abs[i] {
				equal++
			}
		}
		rank[i] = float64(less) + float64(equal+1)/2 // mean of ranks less+1 .. less+equal
		if pos[i] {
			wPlus += rank[i]
		}
	}
	le, ge := 0, 0
	for mask := 0; mask < 1<<n; mask++ {
		w := 0.0
		for i := range n {
			if mask&(1<<i) != 0 {
				w += rank[i]
			}
		}
		if w <= wPlus {
			le++
		}
		if w >= wPlus {
			ge++
		}
	}
	return wPlus, math.Min(1, 2*float64(min(le, ge))/float64(int(1)<<n))
}

func TestWilcoxonBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		n := 1 + rng.IntN(12)
		d := make([]float64, n)
		for i := range d {
			// Small integers and halves: many ties, some zeros.
			d[i] = float64(rng.IntN(13)-6) / 2
		}
		got, err := WilcoxonSignedRank(d)
		wPlus, p := bruteForceP(d)
		if err != nil || got.WPlus != wPlus || !near(got.P, p, 1e-12) {
			t.Errorf("trial %d: WilcoxonSignedRank(%v) = %+v, %v; brute force W+ %v p %v", trial, d, got, err, wPlus, p)
		}
	}
}

func TestWilcoxonNormal(t *testing.T) {
	t.Run("method-switch", func(t *testing.T) {
		for n, want := range map[int]Method{WilcoxonExactMaxN: MethodExact, WilcoxonExactMaxN + 1: MethodNormal} {
			// Zeros do not count towards the switch.
			d := append(seq(1, n, 1), 0, 0)
			if got, _ := WilcoxonSignedRank(d); got.Method != want || got.N != n || got.Zeros != 2 {
				t.Errorf("WilcoxonSignedRank(1..%d, 0, 0) = %+v, want Method %s", n, got, want)
			}
		}
	})
	t.Run("n60-all-positive", func(t *testing.T) {
		// W+ = 1830, mean 915, sd √(60·61·121/24) = 135.83998,
		// z = (915 − 0.5)/135.83998 = 6.732186, p = erfc(z/√2) = 1.671329e-11.
		got, err := WilcoxonSignedRank(seq(1, 60, 1))
		if err != nil || got.Method != MethodNormal || got.WPlus != 1830 ||
			!near(got.Z, 6.732186, 1e-6) || !near(got.P, 1.671329e-11, 1e-17) {
			t.Errorf("WilcoxonSignedRank(1..60) = %+v, %v; want W+ 1830 z 6.732186 p 1.6713e-11 normal", got, err)
		}
	})
	t.Run("far-tail-no-underflow", func(t *testing.T) {
		// 71 equal positive values: all mid-ranks 36, W+ = 2556, mean 1278,
		// var = n(n+1)²/16 = 23004, z = 1277.5/151.671 = 8.4228,
		// p = 2Φ(−z) ≈ 3.7e-17 (1 − Φ(z) would round to 0).
		d := make([]float64, 71)
		for i := range d {
			d[i] = 1831.125
		}
		got, err := WilcoxonSignedRank(d)
		if err != nil || got.Ties != 71 || !near(got.Z, 1277.5/math.Sqrt(23004), 1e-12) || !(got.P > 3e-17 && got.P < 4.5e-17) {
			t.Errorf("WilcoxonSignedRank(71 × 1831.125) = %+v, %v; want z 8.4228, p ≈ 3.7e-17", got, err)
		}
	})
	t.Run("symmetric", func(t *testing.T) {
		d := append(seq(1, 30, 1), seq(1, 30, -1)...)
		if got, _ := WilcoxonSignedRank(d); got.P != 1 || got.Z != 0 {
			t.Errorf("WilcoxonSignedRank(±1..30) = %+v, want P 1, Z 0", got)
		}
	})
	t.Run("close-to-exact-with-ties", func(t *testing.T) {
		// The tie-corrected normal p should track the exact one (computed
		// here with the same enumeration, which is valid up to n = 62).
		rng := rand.New(rand.NewPCG(3, 4))
		normal := 0
		for trial := range 50 {
			d := make([]float64, 60)
			for i := range d {
				d[i] = float64(rng.IntN(11) - 4) // ties, zeros, a positive shift
			}
			got, err := WilcoxonSignedRank(d)
			if err != nil {
				t.Fatal(err)
			}
			ranks2, w2 := doubledRanks(d)
			exact := exactSignedRankP(ranks2, w2)
			if got.Method != MethodNormal {
				continue
			}
			normal++
			if !near(got.P, exact, 0.005) {
				t.Errorf("trial %d: normal p %v, exact p %v (n %d)", trial, got.P, exact, got.N)
			}
		}
		if normal < 40 {
			t.Errorf("only %d of 50 trials used the normal approximation, want ≥ 40", normal)
		}
	})
}

// doubledRanks returns the doubled mid-ranks of the non-zero |d| and the
// doubled W+, for feeding exactSignedRankP directly.
func doubledRanks(d []float64) ([]int, int) {
	var ranks2 []int
	w2 := 0
	for _, x := range d {
		if x == 0 {
			continue
		}
		less, equal := 0, 0
		for _, y := range d {
			if y == 0 {
				continue
			}
			if math.Abs(y) < math.Abs(x) {
				less++
			} else if math.Abs(y) == math.Abs(x) {
				equal++
			}
		}
		r2 := 2*less + equal + 1
		ranks2 = append(ranks2, r2)
		if x > 0 {
			w2 += r2
		}
	}
	return ranks2, w2
}
