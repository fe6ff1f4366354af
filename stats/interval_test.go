package stats

import (
	"errors"
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMeanCI(t *testing.T) {
	// t quantiles from printed tables: t_{0.975,4} = 2.776445,
	// t_{0.95,3} = 2.353363, t_{0.975,1} = 12.706205.
	tests := []struct {
		name   string
		xs     []float64
		level  float64
		mean   float64
		sd     float64
		lo, hi float64
	}{
		// mean 8, sd √5, half-width t·√5/√5 = t.
		{"textbook-n5", []float64{5, 7, 8, 9, 11}, 0.95, 8, math.Sqrt(5), 8 - 2.776445, 8 + 2.776445},
		// mean 2.5, sd √(5/3), half-width 2.353363·√(5/3)/2 = 1.519089.
		{"n4-90pct", []float64{1, 2, 3, 4}, 0.90, 2.5, math.Sqrt(5.0 / 3), 2.5 - 1.519089, 2.5 + 1.519089},
		// mean 1, sd √2, half-width t·√2/√2 = t.
		{"n2", []float64{0, 2}, 0.95, 1, math.Sqrt2, 1 - 12.706205, 1 + 12.706205},
		{"constant", []float64{3, 3, 3}, 0.95, 3, 0, 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := MeanCI(tt.xs, tt.level)
			if err != nil {
				t.Fatalf("MeanCI(%v, %v) error %v", tt.xs, tt.level, err)
			}
			if got.N != len(tt.xs) || got.Level != tt.level || !got.Defined() ||
				!near(got.Mean, tt.mean, 1e-12) || !near(got.SD, tt.sd, 1e-12) ||
				!near(got.Lo, tt.lo, 1e-5) || !near(got.Hi, tt.hi, 1e-5) {
				t.Errorf("MeanCI(%v, %v) = %+v, want mean %v sd %v [%v, %v]",
					tt.xs, tt.level, got, tt.mean, tt.sd, tt.lo, tt.hi)
			}
		})
	}
}

func TestMeanCISingle(t *testing.T) {
	got, err := MeanCI([]float64{1346}, 0.95)
	if err != nil {
		t.Fatalf("MeanCI({1346}) error %v", err)
	}
	if got.N != 1 || got.Mean != 1346 || !math.IsNaN(got.SD) || !math.IsNaN(got.Lo) || !math.IsNaN(got.Hi) || got.Defined() {
		t.Errorf("MeanCI({1346}) = %+v, want mean 1346 with NaN SD, Lo, Hi", got)
	}
	if s, want := got.String(), "1346.0 [n/a]"; s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
}

func TestIntervalString(t *testing.T) {
	iv := Interval{Mean: 1346.04, Lo: 1301.94, Hi: 1390.01, N: 20, Level: 0.95}
	if s, want := iv.String(), "1346.0 [1301.9, 1390.0]"; s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
}

func TestMeanCIErrors(t *testing.T) {
	tests := []struct {
		name  string
		xs    []float64
		level float64
		want  error
	}{
		{"empty", nil, 0.95, ErrEmpty},
		{"level-0", []float64{1, 2}, 0, ErrLevel},
		{"level-1", []float64{1, 2}, 1, ErrLevel},
		{"level-95-not-fraction", []float64{1, 2}, 95, ErrLevel},
		{"level-NaN", []float64{1, 2}, math.NaN(), ErrLevel},
		{"NaN", []float64{1, math.NaN()}, 0.95, ErrNonFinite},
		{"Inf", []float64{math.Inf(-1), 1}, 0.95, ErrNonFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := MeanCI(tt.xs, tt.level); !errors.Is(err, tt.want) {
				t.Errorf("MeanCI(%v, %v) error = %v, want %v", tt.xs, tt.level, err, tt.want)
			}
		})
	}
}
