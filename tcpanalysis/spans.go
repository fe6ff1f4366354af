package tcpanalysis

import (
	"math"
	"sort"

	"github.com/google/btree"
)

// maxSpans caps the number of disjoint spans one spanSet keeps
// (docs/robustness.md#caps). A hostile or badly damaged capture can open one
// hole per segment; past the cap the two lowest spans are joined (the
// lowest hole counts as covered) and the set is marked degraded, so memory
// stays bounded and time stays O(log n) per segment.
const maxSpans = 1 << 18

// smallSpans is how many spans a spanSet keeps in a sorted slice before it
// moves them to a B-tree: almost every connection has a handful of holes at
// most, and a slice is the fastest there; a hostile capture (one hole per
// segment) gets O(log n) updates from the tree.
const smallSpans = 32

// spanSet is a set of byte ranges [lo, hi) in one direction's relative
// sequence space, kept merged: no two spans overlap or touch. Extending the
// highest span (the in-order case) is O(1); any other update is O(smallSpans)
// while the set is small and O(log n) in the number of spans after, plus
// the spans it merges or drops (each once).
//
// The set also counts its bytes below a mark that only rises (raiseMark):
// every update keeps that count, so the bytes between a point and the
// mark are known without walking the spans between (coveredToMark): the
// SACKed bytes under the highest sequence sent, at every window point
// (docs/robustness.md#quadratic-inputs).
type spanSet struct {
	s        []span              // sorted; nil in tree mode
	tree     *btree.BTreeG[span] // ordered by lo; nil in slice mode
	sum      int64               // bytes in the set
	mark     int64               // see raiseMark; 0 until raised
	below    int64               // bytes in the set under mark
	work     int64               // spans visited by scans and merges so far (a cost count for tests)
	scratch  []span
	degraded bool // maxSpans was reached: some holes were joined
}

type span struct{ lo, hi int64 }

func spanLess(a, b span) bool { return a.lo < b.lo }

// reset empties the set (dirState.release drops a finished direction's
// sets); the mark stays where it was.
func (ss *spanSet) reset() { *ss = spanSet{degraded: ss.degraded, mark: ss.mark, work: ss.work} }

// under returns how many bytes of [lo, hi) lie below m: the share of a
// range the mark's count takes.
func under(lo, hi, m int64) int64 { return max(0, min(hi, m)-lo) }

// n returns the number of spans.
func (ss *spanSet) n() int {
	if ss.tree != nil {
		return ss.tree.Len()
	}
	return len(ss.s)
}

// add inserts [lo, hi) and returns how many of its bytes were not in the
// set. Its commonest case, in-order data extending the highest span, is
// small enough to inline into the per-packet path; the rest is addSlow.
func (ss *spanSet) add(lo, hi int64) int64 {
	if n := len(ss.s); n > 0 { // slice mode: s is nil in tree mode
		// [lo, hi) extends the highest span, above the mark (under
		// nothing to count).
		if last := &ss.s[n-1]; lo >= last.lo && lo <= last.hi && hi > last.hi && ss.mark <= last.hi {
			fresh := hi - last.hi
			last.hi = hi
			ss.sum += fresh
			return fresh
		}
	}
	return ss.addSlow(lo, hi)
}

// addSlow is add but for its inlined case.
func (ss *spanSet) addSlow(lo, hi int64) int64 {
	if hi <= lo {
		return 0
	}
	if ss.tree != nil {
		return ss.addTree(lo, hi)
	}
	n := len(ss.s)
	if n == 0 || lo > ss.s[n-1].hi {
		ss.s = append(ss.s, span{lo, hi})
		ss.sum += hi - lo
		ss.below += under(lo, hi, ss.mark)
		ss.grow()
		return hi - lo
	}
	if lo >= ss.s[n-1].lo { // overlaps or touches the last span only
		last := &ss.s[n-1]
		var fresh int64
		if hi > last.hi {
			fresh = hi - last.hi
			ss.below += under(last.hi, hi, ss.mark)
			last.hi = hi
		}
		ss.sum += fresh
		return fresh
	}
	// General case: the first span whose hi >= lo, and those after it that
	// start at or before hi, merge with [lo, hi).
	i := sort.Search(n, func(i int) bool { return ss.s[i].hi >= lo })
	j := i
	covered, coveredUnder := int64(0), int64(0)
	newLo, newHi := lo, hi
	for j < n && ss.s[j].lo <= hi {
		if a, b := max(ss.s[j].lo, lo), min(ss.s[j].hi, hi); b > a {
			covered += b - a
			coveredUnder += under(a, b, ss.mark)
		}
		newLo = min(newLo, ss.s[j].lo)
		newHi = max(newHi, ss.s[j].hi)
		j++
	}
	ss.work += int64(j - i)
	fresh := (hi - lo) - covered
	ss.sum += fresh
	ss.below += under(lo, hi, ss.mark) - coveredUnder
	if i == j {
		ss.s = append(ss.s, span{})
		copy(ss.s[i+1:], ss.s[i:])
		ss.s[i] = span{lo, hi}
		ss.grow()
		return fresh
	}
	ss.s[i] = span{newLo, newHi}
	ss.s = append(ss.s[:i+1], ss.s[j:]...)
	return fresh
}

// grow moves a slice that outgrew smallSpans into a B-tree.
func (ss *spanSet) grow() {
	if len(ss.s) <= smallSpans {
		return
	}
	ss.tree = btree.NewG(32, spanLess)
	for _, sp := range ss.s {
		ss.tree.ReplaceOrInsert(sp)
	}
	ss.s = nil
}

func (ss *spanSet) addTree(lo, hi int64) int64 {
	top, _ := ss.tree.Max()
	if lo > top.hi { // above everything, with a gap
		ss.tree.ReplaceOrInsert(span{lo, hi})
		ss.sum += hi - lo
		ss.below += under(lo, hi, ss.mark)
		ss.capSpans()
		return hi - lo
	}
	if lo >= top.lo { // overlaps or touches the highest span only
		if hi <= top.hi {
			return 0
		}
		ss.tree.ReplaceOrInsert(span{top.lo, hi})
		ss.sum += hi - top.hi
		ss.below += under(top.hi, hi, ss.mark)
		return hi - top.hi
	}
	// The span starting at or before lo, if it reaches lo, and those
	// starting in (lo, hi] merge with [lo, hi).
	start := lo
	ss.tree.DescendLessOrEqual(span{lo: lo}, func(sp span) bool {
		if sp.hi >= lo {
			start = sp.lo
		}
		return false
	})
	hit := ss.scratch[:0]
	ss.tree.AscendGreaterOrEqual(span{lo: start}, func(sp span) bool {
		if sp.lo > hi {
			return false
		}
		hit = append(hit, sp)
		return true
	})
	ss.scratch = hit
	ss.work += int64(len(hit))
	newLo, newHi, covered, coveredUnder := lo, hi, int64(0), int64(0)
	for _, sp := range hit {
		if a, b := max(sp.lo, lo), min(sp.hi, hi); b > a {
			covered += b - a
			coveredUnder += under(a, b, ss.mark)
		}
		newLo, newHi = min(newLo, sp.lo), max(newHi, sp.hi)
		ss.tree.Delete(sp)
	}
	ss.tree.ReplaceOrInsert(span{newLo, newHi})
	fresh := (hi - lo) - covered
	ss.sum += fresh
	ss.below += under(lo, hi, ss.mark) - coveredUnder
	if len(hit) == 0 {
		ss.capSpans()
	}
	ss.shrink()
	return fresh
}

// shrink moves a tree whose holes were filled back into a slice.
func (ss *spanSet) shrink() {
	if ss.tree == nil || ss.tree.Len() > smallSpans/2 {
		return
	}
	s := make([]span, 0, smallSpans)
	ss.tree.Ascend(func(sp span) bool { s = append(s, sp); return true })
	ss.s, ss.tree = s, nil
}

// capSpans joins the two lowest spans while the set holds more than maxSpans.
func (ss *spanSet) capSpans() {
	for ss.tree.Len() > maxSpans {
		ss.degraded = true
		a, _ := ss.tree.DeleteMin()
		b, _ := ss.tree.DeleteMin()
		ss.sum += b.lo - a.hi // the hole between them now counts as covered
		ss.below += under(a.hi, b.lo, ss.mark)
		ss.tree.ReplaceOrInsert(span{a.lo, b.hi})
	}
}

// covered returns how many bytes of [lo, hi) are in the set: O(1) when
// [lo, hi) holds the whole set or lies above or below it, else
// O(log n + spans inside [lo, hi)). An empty set (most resent and sacked
// sets of the per-packet path) costs no call: covered is inlined.
func (ss *spanSet) covered(lo, hi int64) int64 {
	if len(ss.s) == 0 && ss.tree == nil {
		return 0
	}
	return ss.coveredSome(lo, hi)
}

// coveredSome is covered of a set that is not empty. Its O(1) cases come
// first, before any of the search's setup: new data, above every span,
// is the commonest.
func (ss *spanSet) coveredSome(lo, hi int64) int64 {
	if ss.tree != nil {
		return ss.coveredTree(lo, hi)
	}
	s := ss.s
	if hi <= lo || lo >= s[len(s)-1].hi || hi <= s[0].lo {
		return 0
	}
	if lo <= s[0].lo && hi >= s[len(s)-1].hi {
		return ss.sum
	}
	var c int64
	i := sort.Search(len(s), func(i int) bool { return s[i].hi > lo })
	for ; i < len(s) && s[i].lo < hi; i++ {
		ss.work++
		if a, b := max(s[i].lo, lo), min(s[i].hi, hi); b > a {
			c += b - a
		}
	}
	return c
}

// coveredTree is covered in tree mode.
func (ss *spanSet) coveredTree(lo, hi int64) int64 {
	if hi <= lo {
		return 0
	}
	var c int64
	add := func(sp span) {
		ss.work++
		if a, b := max(sp.lo, lo), min(sp.hi, hi); b > a {
			c += b - a
		}
	}
	first, _ := ss.tree.Min()
	last, _ := ss.tree.Max()
	if lo <= first.lo && hi >= last.hi {
		return ss.sum
	}
	if lo >= last.hi || hi <= first.lo {
		return 0
	}
	ss.tree.DescendLessOrEqual(span{lo: lo}, func(sp span) bool { add(sp); return false })
	ss.tree.AscendRange(span{lo: lo + 1}, span{lo: hi}, func(sp span) bool { add(sp); return true })
	return c
}

// total returns the number of bytes in the set.
func (ss *spanSet) total() int64 { return ss.sum }

// raiseMark moves the mark up to m (a lower m is ignored), counting the
// bytes it passes: O(log n) plus the spans wholly between the two marks,
// each passed once, as the mark never comes down.
func (ss *spanSet) raiseMark(m int64) {
	if len(ss.s) == 0 && ss.tree == nil {
		ss.mark = max(ss.mark, m) // nothing to count: inlined
		return
	}
	ss.raiseMarkSome(m)
}

// raiseMarkSome is raiseMark of a set that is not empty, out of
// raiseMark's inlined path.
//
//go:noinline
func (ss *spanSet) raiseMarkSome(m int64) {
	if m <= ss.mark {
		return
	}
	ss.below += ss.coveredSome(ss.mark, m)
	ss.mark = m
}

// coveredToMark returns covered(lo, mark): O(1) when no span lies under
// lo (dirState.sacked, trimmed at the cumulative ACK, never has one), else
// O(log n) plus the spans under lo.
func (ss *spanSet) coveredToMark(lo int64) int64 {
	if lo >= ss.mark {
		return 0
	}
	return ss.below - ss.covered(math.MinInt64, lo)
}

// trim drops every byte below lo. An empty set (most sacked sets, trimmed
// at every ACK that moves) costs no call: trim is inlined.
func (ss *spanSet) trim(lo int64) {
	if len(ss.s) == 0 && ss.tree == nil {
		return
	}
	ss.trimSome(lo)
}

// trimSome is trim of a set that is not empty.
func (ss *spanSet) trimSome(lo int64) {
	if ss.tree == nil {
		i := 0
		for i < len(ss.s) && ss.s[i].hi <= lo {
			ss.sum -= ss.s[i].hi - ss.s[i].lo
			ss.below -= under(ss.s[i].lo, ss.s[i].hi, ss.mark)
			i++
		}
		ss.work += int64(i)
		if i > 0 {
			ss.s = append(ss.s[:0], ss.s[i:]...)
		}
		if len(ss.s) > 0 && ss.s[0].lo < lo {
			ss.sum -= lo - ss.s[0].lo
			ss.below -= under(ss.s[0].lo, lo, ss.mark)
			ss.s[0].lo = lo
		}
		return
	}
	for ss.tree.Len() > 0 {
		sp, _ := ss.tree.Min()
		if sp.lo >= lo {
			return
		}
		ss.work++
		ss.tree.DeleteMin()
		if sp.hi > lo {
			ss.sum -= lo - sp.lo
			ss.below -= under(sp.lo, lo, ss.mark)
			ss.tree.ReplaceOrInsert(span{lo, sp.hi})
			return
		}
		ss.sum -= sp.hi - sp.lo
		ss.below -= under(sp.lo, sp.hi, ss.mark)
	}
	ss.shrink()
}

// maxHi returns the end of the highest span, or the minimum int64 when empty.
func (ss *spanSet) maxHi() int64 {
	if ss.n() == 0 {
		return -1 << 63
	}
	if ss.tree != nil {
		top, _ := ss.tree.Max()
		return top.hi
	}
	return ss.s[len(ss.s)-1].hi
}

// spans returns the spans in ascending order.
func (ss *spanSet) spans() []span {
	if ss.tree == nil {
		return ss.s
	}
	out := make([]span, 0, ss.tree.Len())
	ss.tree.Ascend(func(sp span) bool { out = append(out, sp); return true })
	return out
}
