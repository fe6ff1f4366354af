package campaign

import (
	"errors"
	"testing"
)

// TestMergeRows: a row given again with the same numbers is counted once
// and reported; one flow with different numbers is ErrConflict; rows
// differing in a label, the file or the connection are different rows.
func TestMergeRows(t *testing.T) {
	r := FlowRow{File: "a.pcap", RunKey: "a", Src: "10.0.0.1", SPort: 1, Dst: "10.0.0.2", DPort: 2, Bytes: 1000, IntervalS: 10,
		Labels: map[string]string{"protocol": "aodv", "seed": "1"}}
	other := r
	other.Labels = map[string]string{"protocol": "olsr", "seed": "1"}
	conn1 := r
	conn1.Conn = 1
	src := func(name string, n int) []RowSource {
		var s []RowSource
		for i := range n {
			s = append(s, RowSource{name, i + 2})
		}
		return s
	}
	rows, dups, err := MergeRows([][]FlowRow{{r, other}, {r, conn1}}, [][]RowSource{src("x.csv", 2), src("y.csv", 2)})
	if err != nil || len(rows) != 3 || len(dups) != 1 {
		t.Fatalf("merge: %d rows, %v, %v; want 3 rows, 1 duplicate", len(rows), dups, err)
	}
	if d := dups[0]; d.Kept != (RowSource{"x.csv", 2}) || d.Again != (RowSource{"y.csv", 2}) || d.Again.String() != "y.csv line 2" {
		t.Errorf("duplicate %+v", d)
	}
	changed := r
	changed.Bytes = 2000
	if _, _, err := MergeRows([][]FlowRow{{r}, {changed}}, [][]RowSource{src("x.csv", 1), src("y.csv", 1)}); !errors.Is(err, ErrConflict) {
		t.Errorf("one flow with 1000 and 2000 bytes: %v, want ErrConflict", err)
	}
	if k := Kbps(557480, 21.737111); k != float64(557480)*8/21.737111/1000 || Kbps(5, 0) != 0 {
		t.Errorf("Kbps = %v", k)
	}
}
