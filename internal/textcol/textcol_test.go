package textcol

import (
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	rows := [][]string{{"a", "µs", "long cell"}, {"ccc", "d", "e"}}
	for _, tt := range []struct {
		right bool
		want  string
	}{
		{true, "  a  µs  long cell\nccc   d          e\n"},
		{false, "a    µs  long cell\nccc  d   e\n"},
	} {
		var b strings.Builder
		if err := Write(&b, rows, tt.right); err != nil || b.String() != tt.want {
			t.Errorf("right %v: %q, %v; want %q", tt.right, b.String(), err, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 3: "3 files"} {
		if got := Count(n, "file"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
