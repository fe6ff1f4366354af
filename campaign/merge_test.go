package campaign

import (
	"errors"
	"math"
	"testing"
)

// TestMergeRows: a row given again with the same numbers is counted once
// and reported; one flow with different numbers is ErrConflict; rows
// differing in a label, the file or the connection are different rows.
// The merged table's rates are the hand-checked ones: a repeated shard
// does not double a run's sum.
func TestMergeRows(t *testing.T) {
	// 125 000 B over 10 s = 1 000 000 bit / 10 s = 100 kbit/s.
	r := FlowRow{File: "a.pcap", RunKey: "a", Src: "10.0.0.1", SPort: 1, Dst: "10.0.0.2", DPort: 2, Bytes: 125000, IntervalS: 10,
		Kbps: Kbps(125000, 10), Vantage: AtReceiver, Labels: map[string]string{"protocol": "aodv", "seed": "1"}}
	other := r // run b: 62 500 B over 20 s = 25 kbit/s
	other.RunKey, other.Bytes, other.IntervalS, other.Kbps = "b", 62500, 20, Kbps(62500, 20)
	other.Labels = map[string]string{"protocol": "olsr", "seed": "1"}
	conn1 := r // run a's second flow: 30 000 B over 8 s = 30 kbit/s
	conn1.Conn, conn1.SPort, conn1.Bytes, conn1.IntervalS, conn1.Kbps = 1, 3, 30000, 8, Kbps(30000, 8)
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
	for i, want := range []float64{100, 25, 30} {
		if rows[i].Kbps != want {
			t.Errorf("merged row %d: %v kbit/s, want %v", i, rows[i].Kbps, want)
		}
	}
	// Per run: a = 100 + 30 = 130 kbit/s (not 230 with the repeat), b = 25.
	per, err := PerRun(rows, "sum")
	if err != nil || len(per) != 2 || per[0].RunKey != "a" || per[0].Kbps != 130 || per[0].Flows != 2 || per[1].Kbps != 25 {
		t.Errorf("per-run sums %+v, %v; want a = 130 kbit/s of 2 flows, b = 25", per, err)
	}
	if per, _ := PerRun(rows, "mean"); len(per) != 2 || per[0].Kbps != 65 {
		t.Errorf("per-run means %+v; want a = 65 kbit/s", per)
	}
	changed := r
	changed.Bytes = 2000
	if _, _, err := MergeRows([][]FlowRow{{r}, {changed}}, [][]RowSource{src("x.csv", 1), src("y.csv", 1)}); !errors.Is(err, ErrConflict) {
		t.Errorf("one flow with 125000 and 2000 bytes: %v, want ErrConflict", err)
	}
	elsewhere := r
	elsewhere.Vantage = AtSender
	if _, _, err := MergeRows([][]FlowRow{{r}, {elsewhere}}, [][]RowSource{src("x.csv", 1), src("y.csv", 1)}); !errors.Is(err, ErrConflict) {
		t.Errorf("one flow read at the receiver and at the sender: %v, want ErrConflict", err)
	}
	// 557 480 B over 21.737111 s (a flow of ../shared/ns3) = 205.1717 kbit/s.
	if k := Kbps(557480, 21.737111); math.Abs(k-205.17169921982733) > 1e-9 || Kbps(5, 0) != 0 || Kbps(1000, 10) != 0.8 {
		t.Errorf("Kbps = %v, want 205.171699…", k)
	}
}

// TestVantageText: every vantage's text is its per-flow table name and
// reads back; an unknown name is ErrVantage.
func TestVantageText(t *testing.T) {
	names := map[Vantage]string{NoVantage: "", AtReceiver: "receiver", AtSender: "sender", Elsewhere: "other", Relay: "relay",
		Overheard: "overheard", Nowhere: "none", AtProxy: "pep"}
	for v, n := range names {
		b, err := v.MarshalText()
		if err != nil || string(b) != n || v.String() != n {
			t.Errorf("%d: %q %v, want %q", v, b, err, n)
		}
		var back Vantage
		if err := back.UnmarshalText([]byte(n)); err != nil || back != v {
			t.Errorf("%q reads back as %v, %v", n, back, err)
		}
	}
	if _, err := ParseVantage("sink"); !errors.Is(err, ErrVantage) {
		t.Errorf("ParseVantage(sink): %v, want ErrVantage", err)
	}
	if _, err := Vantage(99).MarshalText(); !errors.Is(err, ErrVantage) {
		t.Errorf("Vantage(99).MarshalText: %v", err)
	}
}
