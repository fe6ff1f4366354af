package export

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendFixed: appendFixed gives strconv.AppendFloat's 'f' bytes for
// hand-picked values (ties, negative zero, tiny and huge values) and for
// 200 000 random ones over every magnitude.
func TestAppendFixed(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.5, 2.5, 0.0005, 0.0015, 0.0025, 0.125, 0.375, 1.0005, 2.0000005,
		-0.0004, 0.0004999999, 1e-300, 5e-324, -5e-324, 1e-7, 4.9999999e-7, 5e-7, 1 << 52, 1<<53 + 2, 1 << 62, 1<<63 - 1024, 1 << 63, 1e19, 1e300,
		math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 12.345678, 1234.5678, 320.5, 0.1, 0.2, 0.3, 2.675, 1.005, 9.9995, 9.99949999,
		math.Nextafter(0.0005, 0), math.Nextafter(0.0005, 1), math.Nextafter(0.5, 0), math.Nextafter(2.5, 3)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		var v float64
		switch rng.IntN(4) {
		case 0:
			v = math.Float64frombits(rng.Uint64())
		case 1:
			v = rng.Float64() * math.Pow(10, float64(rng.IntN(30)-12))
		case 2: // ties and near-ties at 3 and 6 decimals
			v = float64(rng.IntN(1_000_000_000)) / 2000
		default:
			v = float64(rng.IntN(1<<30)) / float64(uint64(1)<<rng.IntN(60))
		}
		if rng.IntN(2) == 0 {
			v = -v
		}
		vals = append(vals, v)
	}
	for _, v := range vals {
		for prec := 0; prec <= 6; prec++ {
			want := strconv.AppendFloat([]byte("x"), v, 'f', prec, 64)
			if got := appendFixed([]byte("x"), v, prec); string(got) != string(want) {
				t.Fatalf("appendFixed(%v (%#x), %d) = %s, want %s", v, math.Float64bits(v), prec, got, want)
			}
		}
	}
}

// BenchmarkAppendFixed and BenchmarkAppendFloat format the same values
// with 3 decimals.
func BenchmarkAppendFixed(b *testing.B) {
	vals := []float64{12.345678, 0.5, 1234.5678, 0, 320.123456, 0.0125}
	var buf []byte
	for b.Loop() {
		for _, v := range vals {
			buf = appendFixed(buf[:0], v, 3)
		}
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	vals := []float64{12.345678, 0.5, 1234.5678, 0, 320.123456, 0.0125}
	var buf []byte
	for b.Loop() {
		for _, v := range vals {
			buf = strconv.AppendFloat(buf[:0], v, 'f', 3, 64)
		}
	}
}
