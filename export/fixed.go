package export

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// pow10 are 10^0 … 10^19, every power of ten below 2^64.
var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// maxFixedPrec is the largest precision appendFixed computes itself.
const maxFixedPrec = 6

// digits2 holds the two decimal digits of 0 … 99, in order.
const digits2 = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// appendFixed appends v formatted as strconv.AppendFloat(dst, v, 'f',
// prec, 64) does, byte for byte, for prec 0…6: the exact binary value
// rounded to prec decimals, ties to even, "-" for a negative value or
// negative zero. It computes the digits in 128-bit integers (v = m·2^e,
// m < 2^53, so m·10^prec < 2^73) instead of strconv's general algorithm;
// NaN, infinities and values of 2^63 and above go to strconv.
func appendFixed(dst []byte, v float64, prec int) []byte {
	b := math.Float64bits(v)
	exp := int(b>>52) & 0x7ff
	// An exponent field of 1023+63 or more: |v| ≥ 2^63, an infinity or NaN.
	if uint(prec) > maxFixedPrec || exp >= 1023+63 {
		return strconv.AppendFloat(dst, v, 'f', prec, 64)
	}
	mant := b & (1<<52 - 1)
	if exp == 0 {
		exp = 1 // subnormal
	} else {
		mant |= 1 << 52
	}
	e := exp - 1075 // v = mant · 2^e
	var q uint64    // round(|v| · 10^prec)
	if e >= 0 {
		// An integer below 2^63: times 10^prec may pass 2^64.
		hi, lo := bits.Mul64(mant<<uint(e), pow10[prec])
		if hi != 0 {
			return strconv.AppendFloat(dst, v, 'f', prec, 64)
		}
		q = lo
	} else {
		hi, lo := bits.Mul64(mant, pow10[prec]) // < 2^73
		s := uint(-e)
		switch {
		case s >= 128:
			q = 0 // below 2^-55: far below half a unit
		case s < 64:
			// q = (hi:lo) >> s, below 2^64 unless hi ≥ 2^s; r = the bits
			// shifted out (lo's low s bits), compared with half = 1 << (s-1).
			if hi>>s != 0 {
				return strconv.AppendFloat(dst, v, 'f', prec, 64)
			}
			q = lo>>s | hi<<(64-s)
			r, half := lo&(1<<s-1), uint64(1)<<(s-1)
			if r > half || r == half && q&1 == 1 {
				q++
			}
		default:
			// 64 ≤ s < 128: q = hi >> (s-64); r = (hi's low s-64 bits : lo)
			// against half = 1 << (s-1).
			t := s - 64
			q = hi >> t
			var rh, hh, hl uint64
			if t == 0 {
				hl = 1 << 63
			} else {
				rh, hh = hi&(1<<t-1), 1<<(t-1)
			}
			if rh > hh || rh == hh && (lo > hl || lo == hl && q&1 == 1) {
				q++
			}
		}
	}
	if b>>63 != 0 {
		dst = append(dst, '-')
	}
	return appendPoint(dst, q, prec)
}

// appendPoint appends q / 10^prec with prec decimals (prec 0 … 6): the
// integer part, then, for prec > 0, a point and q's last prec digits.
func appendPoint(dst []byte, q uint64, prec int) []byte {
	// The flows columns' precisions with constant divisors (the compiler
	// turns them into multiplications).
	switch prec {
	case 3:
		f := q % 1000
		dst = appendDecimal(dst, q/1000)
		h, l := f/100, f%100
		return append(dst, '.', byte('0'+h), digits2[2*l], digits2[2*l+1])
	case 6:
		f := q % 1000000
		dst = appendDecimal(dst, q/1000000)
		h, m, l := f/10000, f/100%100, f%100
		return append(dst, '.', digits2[2*h], digits2[2*h+1], digits2[2*m], digits2[2*m+1], digits2[2*l], digits2[2*l+1])
	}
	p := pow10[prec]
	dst = appendDecimal(dst, q/p)
	if prec == 0 {
		return dst
	}
	dst = append(dst, '.')
	f := q % p
	for d := p / 10; d > 0; d /= 10 {
		dst = append(dst, byte('0'+f/d%10))
	}
	return dst
}

// appendDecimal appends u in decimal, as strconv.AppendUint(dst, u, 10).
func appendDecimal(dst []byte, u uint64) []byte {
	if u < 10 {
		return append(dst, byte('0'+u))
	}
	return appendDecimalLong(dst, u)
}

// appendDecimalLong is appendDecimal for u ≥ 10: its digits written in
// place, two at a time from the last.
func appendDecimalLong(dst []byte, u uint64) []byte {
	// t = ⌊log10 2^bitlen⌋ (1233/4096 ≈ log10 2); u has t or t+1 digits.
	t := bits.Len64(u) * 1233 >> 12
	n := t
	if u >= pow10[t] {
		n++
	}
	i := len(dst) + n
	if i > cap(dst) {
		dst = slices.Grow(dst, n)
	}
	dst = dst[:i]
	for u >= 100 {
		r := u % 100
		u /= 100
		i -= 2
		dst[i], dst[i+1] = digits2[2*r], digits2[2*r+1]
	}
	if u >= 10 {
		dst[i-2], dst[i-1] = digits2[2*u], digits2[2*u+1]
	} else {
		dst[i-1] = byte('0' + u)
	}
	return dst
}
