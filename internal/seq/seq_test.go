package seq

import "testing"

func TestLessAcrossWrap(t *testing.T) {
	tests := []struct {
		a, b Num
		want bool
	}{
		{1, 2, true},
		{2, 1, false},
		{0xffffffff, 0, true},
		{0, 0xffffffff, false},
		{0xfffffc18, 1000, true},
		{5, 5, false},
	}
	for _, tt := range tests {
		if got := tt.a.Less(tt.b); got != tt.want {
			t.Errorf("Num(%d).Less(%d) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestUnwrapSeqWrapCase(t *testing.T) {
	// Client ISN 2^32-1000, as in shared/cases/seq_wrap: data frames at
	// absolute 4294966297, 1, 1001, 2001, 3001 are relative 1..4001.
	u := NewUnwrapper(4294966296)
	for i, tt := range []struct {
		abs  Num
		want int64
	}{{4294966297, 1}, {1, 1001}, {1001, 2001}, {2001, 3001}, {3001, 4001}, {4001, 5001}} {
		if got := u.Unwrap(tt.abs); got != tt.want {
			t.Errorf("step %d: Unwrap(%d) = %d, want %d", i, tt.abs, got, tt.want)
		}
	}
	// Going back before the newest point stays consistent.
	if got := u.Peek(1); got != 1001 {
		t.Errorf("Peek(1) = %d, want 1001", got)
	}
}

func TestUnwrapManyWraps(t *testing.T) {
	u := NewUnwrapper(0)
	var n Num
	var want int64
	for i := 0; i < 5*4; i++ { // five full wraps in steps of 2^30
		n += 1 << 30
		want += 1 << 30
		if got := u.Unwrap(n); got != want {
			t.Fatalf("after %d steps: Unwrap = %d, want %d", i+1, got, want)
		}
	}
}
