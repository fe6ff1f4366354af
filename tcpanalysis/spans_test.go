package tcpanalysis

import (
	"math/rand/v2"
	"testing"
)

func TestSpanSet(t *testing.T) {
	var ss spanSet
	steps := []struct {
		lo, hi    int64
		wantFresh int64
		wantTotal int64
	}{
		{1, 101, 100, 100},
		{101, 201, 100, 200},   // in order
		{301, 401, 100, 300},   // gap 201..301
		{150, 250, 49, 349},    // 150..201 seen before, 201..250 fills part of the gap
		{1, 401, 51, 400},      // all but 250..301 seen before
		{1000, 1001, 1, 401},   // far ahead
		{500, 600, 100, 501},   // between
		{401, 1000, 499, 1000}, // 401..500 and 600..1000 are new
	}
	for i, st := range steps {
		if got := ss.add(st.lo, st.hi); got != st.wantFresh {
			t.Errorf("step %d: add(%d,%d) = %d fresh, want %d", i, st.lo, st.hi, got, st.wantFresh)
		}
		if got := ss.total(); got != st.wantTotal {
			t.Errorf("step %d: total = %d, want %d (%v)", i, got, st.wantTotal, ss.spans())
		}
	}
	if ss.n() != 1 {
		t.Errorf("spans = %v, want one merged span", ss.spans())
	}
	if got := ss.covered(0, 2000); got != 1000 {
		t.Errorf("covered(0,2000) = %d, want 1000", got)
	}
}

// TestSpanSetModel checks every method against a bitmap over random
// operations, including dropping the set from outside (s = nil), as
// dirState.release does, and the count under a rising mark (raiseMark,
// coveredToMark) after every one: on 300 bytes with ranges up to 12 bytes
// (a few spans, the sorted slice) and on 3000 bytes with ranges up to 2
// (hundreds of spans, the B-tree).
func TestSpanSetModel(t *testing.T) {
	for _, cfg := range []struct{ size, maxLen int }{{300, 12}, {3000, 3}} {
		spanSetModel(t, cfg.size, cfg.maxLen)
	}
}

func spanSetModel(t *testing.T, size, maxLen int) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ss spanSet
	bits := make([]bool, size)
	tree := false
	count := func(lo, hi int64) (n int64) {
		for i := max(lo, 0); i < min(hi, int64(size)); i++ {
			if bits[i] {
				n++
			}
		}
		return n
	}
	for step := 0; step < 20000; step++ {
		lo := int64(rng.IntN(size))
		hi := min(lo+int64(rng.IntN(maxLen)), int64(size))
		switch rng.IntN(10) {
		case 0:
			if got, want := ss.covered(lo, hi), count(lo, hi); got != want {
				t.Fatalf("step %d: covered(%d,%d) = %d, want %d", step, lo, hi, got, want)
			}
		case 1:
			if rng.IntN(20) == 0 {
				ss.trim(lo)
				for i := int64(0); i < lo; i++ {
					bits[i] = false
				}
			}
		case 2:
			if rng.IntN(50) == 0 {
				if rng.IntN(2) == 0 {
					ss.reset() // the mark stays
				} else {
					ss = spanSet{} // a recycled direction's: mark 0
				}
				clear(bits)
			}
		case 3:
			ss.raiseMark(ss.mark + int64(rng.IntN(3*maxLen)) - 1) // one lower than the mark is ignored
		default:
			want := (hi - lo) - count(lo, hi)
			if got := ss.add(lo, hi); got != want {
				t.Fatalf("step %d: add(%d,%d) = %d, want %d", step, lo, hi, got, want)
			}
			for i := lo; i < hi; i++ {
				bits[i] = true
			}
		}
		tree = tree || ss.tree != nil
		if got, want := ss.total(), count(0, int64(size)); got != want {
			t.Fatalf("step %d: total = %d, want %d", step, got, want)
		}
		if got, want := ss.below, count(0, ss.mark); got != want {
			t.Fatalf("step %d: %d bytes under the mark %d, want %d", step, got, ss.mark, want)
		}
		if at := int64(rng.IntN(size)); ss.coveredToMark(at) != ss.covered(at, ss.mark) {
			t.Fatalf("step %d: coveredToMark(%d) = %d, want covered(%d, %d) = %d", step, at, ss.coveredToMark(at), at, ss.mark, ss.covered(at, ss.mark))
		}
		wantMax := int64(-1 << 63)
		for i := size - 1; i >= 0; i-- {
			if bits[i] {
				wantMax = int64(i + 1)
				break
			}
		}
		if got := ss.maxHi(); got != wantMax {
			t.Fatalf("step %d: maxHi = %d, want %d", step, got, wantMax)
		}
		// Spans are disjoint, sorted and never touch.
		sp := ss.spans()
		for i := 1; i < len(sp); i++ {
			if sp[i].lo <= sp[i-1].hi {
				t.Fatalf("step %d: spans %v and %v touch", step, sp[i-1], sp[i])
			}
		}
	}
	if size > 64*smallSpans && !tree {
		t.Errorf("size %d: the set never became a B-tree", size)
	}
}

// BenchmarkSpanSetDescending inserts one-byte spans with a gap below each,
// in descending order: every insert opens a hole under all the others.
func BenchmarkSpanSetDescending(b *testing.B) {
	for b.Loop() {
		var ss spanSet
		for i := int64(200_000); i > 0; i-- {
			ss.add(2*i, 2*i+1)
		}
	}
}

// BenchmarkSpanSetInOrder is the common case: contiguous in-order segments.
func BenchmarkSpanSetInOrder(b *testing.B) {
	var ss spanSet
	var lo int64
	for b.Loop() {
		ss.add(lo, lo+1448)
		lo += 1448
	}
}

// TestSpanSetCap: past maxSpans disjoint spans the lowest hole is joined,
// the set is marked degraded, and it never holds more than maxSpans.
func TestSpanSetCap(t *testing.T) {
	var ss spanSet
	ss.raiseMark(15) // the joined hole [1, 10) counts under it
	for i := int64(0); i <= maxSpans; i++ {
		ss.add(10*i, 10*i+1)
	}
	if ss.below != 11 {
		t.Errorf("%d bytes under the mark 15, want 11 ([0, 11) once the hole is joined)", ss.below)
	}
	if !ss.degraded || ss.n() != maxSpans {
		t.Fatalf("degraded %v, %d spans; want true, %d", ss.degraded, ss.n(), maxSpans)
	}
	sp := ss.spans()
	if sp[0] != (span{0, 11}) || sp[1] != (span{20, 21}) {
		t.Errorf("lowest spans %v, want [0,11) then [20,21)", sp[:2])
	}
	if got, want := ss.total(), int64(maxSpans+1+9); got != want {
		t.Errorf("total %d, want %d (every byte plus the joined hole)", got, want)
	}
	if got, want := ss.maxHi(), int64(10*maxSpans+1); got != want {
		t.Errorf("maxHi %d, want %d", got, want)
	}
}
