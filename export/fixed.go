package export

import (
	"math"
	"math/bits"
	"strconv"
)

// pow10 are 10^0 … 10^6.
var pow10 = [...]uint64{1, 10, 100, 1000, 10000, 100000, 1000000}

// appendFixed appends v formatted as strconv.AppendFloat(dst, v, 'f',
// prec, 64) does, byte for byte, for prec 0…6: the exact binary value
// rounded to prec decimals, ties to even, "-" for a negative value or
// negative zero. It computes the digits in 128-bit integers (v = m·2^e,
// m < 2^53, so m·10^prec < 2^73) instead of strconv's general algorithm;
// NaN, infinities and values of 2^63 and above go to strconv.
func appendFixed(dst []byte, v float64, prec int) []byte {
	if prec < 0 || prec >= len(pow10) || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 1<<63 {
		return strconv.AppendFloat(dst, v, 'f', prec, 64)
	}
	b := math.Float64bits(v)
	neg := b>>63 != 0
	exp := int(b>>52) & 0x7ff
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
		default:
			// q = (hi:lo) >> s; r = the bits shifted out, compared with
			// half = 1 << (s-1).
			var qh, ql, rh, rl, hh, hl uint64
			if s >= 64 {
				qh, ql = 0, hi>>(s-64)
				if s == 64 {
					ql = hi
				}
				rh, rl = hi&(1<<(s-64)-1), lo
				if s == 64 {
					rh = 0
				}
				hh, hl = 1<<(s-65), 0
				if s == 64 {
					hh, hl = 0, 1<<63
				}
			} else {
				qh, ql = hi>>s, lo>>s|hi<<(64-s)
				rh, rl = 0, lo&(1<<s-1)
				hh, hl = 0, 1<<(s-1)
			}
			if qh != 0 {
				return strconv.AppendFloat(dst, v, 'f', prec, 64)
			}
			q = ql
			if rh > hh || rh == hh && (rl > hl || rl == hl && q&1 == 1) {
				q++
			}
		}
	}
	if neg {
		dst = append(dst, '-')
	}
	// The flows columns' precisions with constant divisors (the compiler
	// turns them into multiplications).
	switch prec {
	case 3:
		f := q % 1000
		dst = strconv.AppendUint(dst, q/1000, 10)
		return append(dst, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
	case 6:
		f := q % 1000000
		dst = strconv.AppendUint(dst, q/1000000, 10)
		hi, lo := f/1000, f%1000
		return append(dst, '.', byte('0'+hi/100), byte('0'+hi/10%10), byte('0'+hi%10), byte('0'+lo/100), byte('0'+lo/10%10), byte('0'+lo%10))
	}
	p := pow10[prec]
	dst = strconv.AppendUint(dst, q/p, 10)
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
