package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Sentinel errors returned (possibly wrapped) by this package.
var (
	// ErrEmpty means there was no observation to summarise.
	ErrEmpty = errors.New("no observations")
	// ErrLevel means a confidence level outside the open interval (0, 1).
	ErrLevel = errors.New("confidence level must be in (0, 1)")
	// ErrNonFinite means an observation was NaN or ±Inf.
	ErrNonFinite = errors.New("non-finite observation")
	// ErrDuplicateKey means a pairing key occurred twice in one sample.
	ErrDuplicateKey = errors.New("duplicate key")
)

// Interval is a sample mean with its two-sided confidence interval.
// Mean, SD, Lo and Hi are in the unit of the observations.
type Interval struct {
	Mean float64 // sample mean
	// SD is the sample standard deviation (divisor N−1); NaN if N == 1.
	SD float64
	// Lo and Hi bound the t-based confidence interval for the mean.
	// Both are NaN if N == 1: one observation gives no variance estimate.
	Lo, Hi float64
	N      int     // number of observations, ≥ 1
	Level  float64 // confidence level, e.g. 0.95
}

// Defined reports whether the interval bounds are defined (N ≥ 2).
func (iv Interval) Defined() bool { return iv.N >= 2 && !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) }

// HalfWidth returns (Hi − Lo)/2, or NaN if the interval is undefined.
func (iv Interval) HalfWidth() float64 { return (iv.Hi - iv.Lo) / 2 }

// String formats the interval with one decimal, as "1346.0 [1301.9, 1390.0]".
// An undefined interval (N == 1) prints "n/a", in brackets, for the bounds.
func (iv Interval) String() string { return formatInterval(iv.Mean, iv.Lo, iv.Hi, false) }

// formatInterval renders "mean [lo, hi]" with one decimal; signed adds an
// explicit "+" to non-negative numbers (for differences).
func formatInterval(mean, lo, hi float64, signed bool) string {
	f := "%.1f"
	if signed {
		f = "%+.1f"
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return fmt.Sprintf(f+" [n/a]", mean)
	}
	return fmt.Sprintf(f+" ["+f+", "+f+"]", mean, lo, hi)
}

// MeanCI returns the mean of xs, its sample standard deviation and the
// two-sided confidence interval at the given level (e.g. 0.95):
//
//	mean ± t_{(1+level)/2, n−1} · sd/√n
//
// with the Student t quantile from gonum's distuv.StudentsT (n−1 degrees of
// freedom). This is the textbook interval for a mean under approximate
// normality (Student, 1908).
//
// With one observation the mean is returned with SD, Lo and Hi set to NaN
// (Interval.Defined reports false) and a nil error. It returns ErrEmpty for
// no observations, ErrLevel for a level outside (0, 1) and ErrNonFinite if an
// observation is NaN or infinite.
func MeanCI(xs []float64, level float64) (Interval, error) {
	if !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("mean CI: %w: %v", ErrLevel, level)
	}
	if len(xs) == 0 {
		return Interval{}, fmt.Errorf("mean CI: %w", ErrEmpty)
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Interval{}, fmt.Errorf("mean CI: %w: xs[%d] = %v", ErrNonFinite, i, x)
		}
	}
	n := len(xs)
	if n == 1 {
		nan := math.NaN()
		return Interval{Mean: xs[0], SD: nan, Lo: nan, Hi: nan, N: 1, Level: level}, nil
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-level)/2)
	half := t * sd / math.Sqrt(float64(n))
	return Interval{Mean: mean, SD: sd, Lo: mean - half, Hi: mean + half, N: n, Level: level}, nil
}
