package tcpanalysis

import "github.com/google/btree"

// maxSpans caps the number of disjoint spans one spanSet keeps
// (docs/robustness.md#caps). A hostile or badly damaged capture can open one
// hole per segment; past the cap the two lowest spans are joined (the
// lowest hole counts as covered) and the set is marked degraded, so memory
// stays bounded (about 70 bytes a span) and time stays O(log n) per segment.
const maxSpans = 1 << 18

// spanSet is a set of byte ranges [lo, hi) in one direction's relative
// sequence space, kept merged: no two spans overlap or touch. Every update
// is O(log n) in the number of spans (a B-tree orders their starts), and
// extending the highest span, the in-order case, is O(1).
//
// s holds the spans keyed by their start. Code outside this file may range
// over s (in any order: since spans never touch, at most one contains a given
// offset) and may set it to nil to drop the set; the methods notice that and
// reset the index.
type spanSet struct {
	s        map[int64]span
	idx      *btree.BTreeG[int64] // starts of the spans in s, ordered
	sum      int64                // bytes in the set
	top      int64                // start of the highest span; valid iff len(s) > 0
	scratch  []int64
	degraded bool // maxSpans was reached: some holes were joined
}

type span struct{ lo, hi int64 }

func lessInt64(a, b int64) bool { return a < b }

// sync resets the index and the byte count when s was dropped from outside.
func (ss *spanSet) sync() {
	if len(ss.s) == 0 && ss.sum != 0 || ss.idx != nil && ss.idx.Len() != len(ss.s) {
		ss.s = nil
		ss.sum = 0
		if ss.idx != nil {
			ss.idx.Clear(false)
		}
	}
}

func (ss *spanSet) put(sp span) {
	if ss.s == nil {
		ss.s = make(map[int64]span)
	}
	if ss.idx == nil {
		ss.idx = btree.NewG(32, lessInt64)
	}
	ss.s[sp.lo] = sp
	ss.idx.ReplaceOrInsert(sp.lo)
	ss.sum += sp.hi - sp.lo
}

func (ss *spanSet) del(lo int64) {
	ss.sum -= ss.s[lo].hi - lo
	delete(ss.s, lo)
	ss.idx.Delete(lo)
}

// add inserts [lo, hi) and returns how many of its bytes were not in the set.
func (ss *spanSet) add(lo, hi int64) int64 {
	if hi <= lo {
		return 0
	}
	ss.sync()
	if len(ss.s) == 0 {
		ss.put(span{lo, hi})
		ss.top = lo
		return hi - lo
	}
	t := ss.s[ss.top]
	if lo > t.hi { // above everything, with a gap
		ss.put(span{lo, hi})
		ss.top = lo
		ss.capSpans()
		return hi - lo
	}
	if lo >= t.lo { // overlaps or touches the highest span only
		if hi <= t.hi {
			return 0
		}
		fresh := hi - t.hi
		ss.s[t.lo] = span{t.lo, hi}
		ss.sum += fresh
		return fresh
	}
	// General case: the spans that overlap or touch [lo, hi) are the one
	// starting at or before lo, if it reaches lo, and those starting in
	// (lo, hi].
	start := lo
	ss.idx.DescendLessOrEqual(lo, func(k int64) bool {
		if ss.s[k].hi >= lo {
			start = k
		}
		return false
	})
	hit := ss.scratch[:0]
	ss.idx.AscendGreaterOrEqual(start, func(k int64) bool {
		if k > hi {
			return false
		}
		hit = append(hit, k)
		return true
	})
	ss.scratch = hit
	newLo, newHi, covered := lo, hi, int64(0)
	for _, k := range hit {
		sp := ss.s[k]
		if a, b := max(sp.lo, lo), min(sp.hi, hi); b > a {
			covered += b - a
		}
		newLo, newHi = min(newLo, sp.lo), max(newHi, sp.hi)
		ss.del(k)
	}
	ss.put(span{newLo, newHi})
	if top, ok := ss.idx.Max(); ok {
		ss.top = top
	}
	if len(hit) == 0 {
		ss.capSpans()
	}
	return (hi - lo) - covered
}

// capSpans joins the two lowest spans while the set holds more than maxSpans.
func (ss *spanSet) capSpans() {
	for len(ss.s) > maxSpans {
		ss.degraded = true
		a, _ := ss.idx.Min()
		lo := ss.s[a]
		ss.del(a)
		b, _ := ss.idx.Min()
		hi := ss.s[b].hi
		ss.del(b)
		ss.put(span{lo.lo, hi})
		if b == ss.top {
			ss.top = lo.lo
		}
	}
}

// covered returns how many bytes of [lo, hi) are in the set. It is O(1) when
// [lo, hi) holds the whole set, else O(log n + spans inside [lo, hi)).
func (ss *spanSet) covered(lo, hi int64) int64 {
	ss.sync()
	if len(ss.s) == 0 || hi <= lo {
		return 0
	}
	if first, _ := ss.idx.Min(); lo <= first && hi >= ss.s[ss.top].hi {
		return ss.sum
	}
	var c int64
	add := func(k int64) {
		sp := ss.s[k]
		if a, b := max(sp.lo, lo), min(sp.hi, hi); b > a {
			c += b - a
		}
	}
	ss.idx.DescendLessOrEqual(lo, func(k int64) bool { add(k); return false })
	ss.idx.AscendRange(lo+1, hi, func(k int64) bool { add(k); return true })
	return c
}

// total returns the number of bytes in the set.
func (ss *spanSet) total() int64 {
	ss.sync()
	return ss.sum
}

// trim drops every byte below lo.
func (ss *spanSet) trim(lo int64) {
	ss.sync()
	for len(ss.s) > 0 {
		k, _ := ss.idx.Min()
		sp := ss.s[k]
		if sp.lo >= lo {
			return
		}
		ss.del(k)
		if sp.hi > lo {
			ss.put(span{lo, sp.hi})
			if k == ss.top {
				ss.top = lo
			}
			return
		}
	}
}

// maxHi returns the end of the highest span, or the minimum int64 when empty.
func (ss *spanSet) maxHi() int64 {
	ss.sync()
	if len(ss.s) == 0 {
		return -1 << 63
	}
	return ss.s[ss.top].hi
}

// spans returns the spans in ascending order (for tests and debugging).
func (ss *spanSet) spans() []span {
	ss.sync()
	var out []span
	if ss.idx != nil {
		ss.idx.Ascend(func(k int64) bool { out = append(out, ss.s[k]); return true })
	}
	return out
}
