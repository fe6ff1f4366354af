package export

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendFixed: appendFixed gives strconv.AppendFloat's 'f' bytes for
// hand-picked values (ties, negative zero, tiny and huge values) and for
// 1 000 000 random ones over every magnitude (exact ties at every
// precision among them).
func TestAppendFixed(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.5, 2.5, 0.0005, 0.0015, 0.0025, 0.125, 0.375, 1.0005, 2.0000005,
		-0.0004, 0.0004999999, 1e-300, 5e-324, -5e-324, 1e-7, 4.9999999e-7, 5e-7, 1 << 52, 1<<53 + 2, 1 << 62, 1<<63 - 1024, 1 << 63, 1e19, 1e300,
		math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 12.345678, 1234.5678, 320.5, 0.1, 0.2, 0.3, 2.675, 1.005, 9.9995, 9.99949999,
		math.Nextafter(0.0005, 0), math.Nextafter(0.0005, 1), math.Nextafter(0.5, 0), math.Nextafter(2.5, 3),
		0.0625, 0.1875, 0.03125, 0.015625, 0.0078125, 0.0000005, 0.0000015, 0.00000762939453125, -0.0625, -2.5, -1e19,
		-math.MaxFloat64, math.SmallestNonzeroFloat64, float64(1<<63) / 1e6, float64(1<<63) / 1e3, float64(1<<64) / 1e6,
		math.Nextafter(float64(1<<63)/1e6, 0), math.Nextafter(1<<63, 0), math.Float64frombits(0x7ff8000000000001), math.Copysign(math.NaN(), -1)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		var v float64
		switch rng.IntN(6) {
		case 0:
			v = math.Float64frombits(rng.Uint64())
		case 1:
			v = rng.Float64() * math.Pow(10, float64(rng.IntN(30)-12))
		case 2: // ties and near-ties at 3 and 6 decimals
			v = float64(rng.IntN(1_000_000_000)) / 2000
		case 3: // exact ties at 0 … 6 decimals (k/2^j: a tie at j decimals and above)
			v = float64(rng.Int64N(1<<50)) / float64(uint64(1)<<(1+rng.IntN(20)))
		case 4: // around the 128-bit product's edges: 2^63 / 10^prec, 2^52 … 2^63
			v = math.Nextafter(float64(uint64(1)<<63)/math.Pow(10, float64(rng.IntN(7))), 0) * (1 - rng.Float64()/1e6)
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

// TestAppendDecimal: appendDecimal and appendCell give strconv's digits
// for every power of ten and its neighbours, and 1 000 000 random values
// of every length.
func TestAppendDecimal(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 11, 99, 100, 101, math.MaxUint64, math.MaxInt64, math.MaxInt64 + 1}
	for p := uint64(1); ; p *= 10 {
		vals = append(vals, p-1, p, p+1)
		if p > math.MaxUint64/10 {
			break
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1_000_000 {
		vals = append(vals, rng.Uint64()>>rng.IntN(64))
	}
	for _, u := range vals {
		want := strconv.AppendUint([]byte("x"), u, 10)
		if got := appendDecimal([]byte("x"), u); string(got) != string(want) {
			t.Fatalf("appendDecimal(%d) = %s, want %s", u, got, want)
		}
		for _, v := range []int64{int64(u), -int64(u)} {
			want := strconv.AppendInt([]byte("x,"), v, 10)
			if got := appendCell([]byte("x"), v); string(got) != string(want) {
				t.Fatalf("appendCell(%d) = %s, want %s", v, got, want)
			}
		}
	}
}
