package tcpanalysis

import "testing"

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
			t.Errorf("step %d: total = %d, want %d (%v)", i, got, st.wantTotal, ss.s)
		}
	}
	if len(ss.s) != 1 {
		t.Errorf("spans = %v, want one merged span", ss.s)
	}
	if got := ss.covered(0, 2000); got != 1000 {
		t.Errorf("covered(0,2000) = %d, want 1000", got)
	}
}
