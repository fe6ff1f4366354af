package tcpanalysis

import "sort"

// spanSet is a set of byte ranges [lo, hi) in one direction's relative
// sequence space, kept sorted and merged. Appending in order is O(1).
type spanSet struct{ s []span }

type span struct{ lo, hi int64 }

// add inserts [lo, hi) and returns how many of its bytes were not in the set.
func (ss *spanSet) add(lo, hi int64) int64 {
	if hi <= lo {
		return 0
	}
	n := len(ss.s)
	if n == 0 || lo > ss.s[n-1].hi {
		ss.s = append(ss.s, span{lo, hi})
		return hi - lo
	}
	if lo >= ss.s[n-1].lo { // overlaps or touches the last span only
		last := &ss.s[n-1]
		var fresh int64
		if hi > last.hi {
			fresh = hi - last.hi
			last.hi = hi
		}
		return fresh
	}
	// General case: find the first span whose hi >= lo.
	i := sort.Search(n, func(i int) bool { return ss.s[i].hi >= lo })
	j := i
	covered := int64(0)
	newLo, newHi := lo, hi
	for j < n && ss.s[j].lo <= hi {
		a, b := max(ss.s[j].lo, lo), min(ss.s[j].hi, hi)
		if b > a {
			covered += b - a
		}
		newLo = min(newLo, ss.s[j].lo)
		newHi = max(newHi, ss.s[j].hi)
		j++
	}
	fresh := (hi - lo) - covered
	if i == j {
		ss.s = append(ss.s, span{})
		copy(ss.s[i+1:], ss.s[i:])
		ss.s[i] = span{lo, hi}
		return fresh
	}
	ss.s[i] = span{newLo, newHi}
	ss.s = append(ss.s[:i+1], ss.s[j:]...)
	return fresh
}

// covered returns how many bytes of [lo, hi) are in the set.
func (ss *spanSet) covered(lo, hi int64) int64 {
	var c int64
	i := sort.Search(len(ss.s), func(i int) bool { return ss.s[i].hi > lo })
	for ; i < len(ss.s) && ss.s[i].lo < hi; i++ {
		a, b := max(ss.s[i].lo, lo), min(ss.s[i].hi, hi)
		if b > a {
			c += b - a
		}
	}
	return c
}

// total returns the number of bytes in the set.
func (ss *spanSet) total() int64 {
	var t int64
	for _, s := range ss.s {
		t += s.hi - s.lo
	}
	return t
}

// trim drops every byte below lo.
func (ss *spanSet) trim(lo int64) {
	i := 0
	for i < len(ss.s) && ss.s[i].hi <= lo {
		i++
	}
	ss.s = append(ss.s[:0], ss.s[i:]...)
	if len(ss.s) > 0 && ss.s[0].lo < lo {
		ss.s[0].lo = lo
	}
}

// maxHi returns the end of the highest span, or the minimum int64 when empty.
func (ss *spanSet) maxHi() int64 {
	if len(ss.s) == 0 {
		return -1 << 63
	}
	return ss.s[len(ss.s)-1].hi
}
