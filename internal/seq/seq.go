// Package seq holds wrap-aware TCP sequence-space arithmetic (RFC 793 §3.3,
// RFC 1982 serial-number comparison).
//
// Nothing outside this package compares raw 32-bit sequence numbers with <.
// Plots and byte counts use the 64-bit offsets an Unwrapper returns.
package seq

// Num is a point in TCP sequence space; arithmetic wraps at 2^32.
type Num uint32

// Size is a length in sequence space, in bytes.
type Size uint32

// Less reports whether a comes before b. Valid while |a-b| < 2^31.
func (a Num) Less(b Num) bool { return int32(a-b) < 0 }

// LessEq reports whether a comes before b or equals it.
func (a Num) LessEq(b Num) bool { return int32(a-b) <= 0 }

// Dist returns b − a as a signed distance in bytes (valid while |a-b| < 2^31).
func (a Num) Dist(b Num) int64 { return int64(int32(b - a)) }

// Add returns a advanced by n bytes, wrapping at 2^32.
func (a Num) Add(n Size) Num { return a + Num(n) }

// Unwrapper maps Nums to a 64-bit offset from a base (usually the ISN), so
// that a connection that crosses the 2^32 wrap keeps increasing offsets. It
// follows the last number it was given, so it tracks any number of wraps as
// long as consecutive numbers are less than 2^31 apart.
//
// The zero value maps everything relative to base 0.
type Unwrapper struct {
	last Num
	rel  int64
}

// NewUnwrapper returns an Unwrapper whose offset 0 is base.
func NewUnwrapper(base Num) Unwrapper { return Unwrapper{last: base} }

// Unwrap returns n's offset from the base, in bytes. It may be negative for
// numbers before the base. Unwrap remembers n as the new reference point.
func (u *Unwrapper) Unwrap(n Num) int64 {
	u.rel += u.last.Dist(n)
	u.last = n
	return u.rel
}

// Peek returns n's offset from the base like Unwrap, without moving the
// reference point.
func (u *Unwrapper) Peek(n Num) int64 { return u.rel + u.last.Dist(n) }
