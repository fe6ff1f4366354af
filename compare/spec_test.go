package compare

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/query"
)

func TestRatioFormat(t *testing.T) {
	if r := Ratio(30, 10); r != 3 {
		t.Errorf("Ratio(30, 10) = %v", r)
	}
	if !math.IsNaN(Ratio(1, 0)) || !math.IsNaN(Ratio(math.NaN(), 1)) {
		t.Error("Ratio with a zero or NaN first value must be NaN")
	}
	for _, c := range []struct {
		v    float64
		unit query.Unit
		want string
	}{{1234.56, query.Bytes, "1235"}, {1.23456, query.Seconds, "1.235"}, {600.04, query.Milliseconds, "600.0"}, {math.NaN(), query.Seconds, "–"}} {
		if got := Format(c.v, c.unit); got != c.want {
			t.Errorf("Format(%v, %s) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

// TestSummarySynthetic compares the synthetic 600 ms-RTT capture with
// itself: every ratio is 1, the ACK RTT median is the path's 600 ms, and
// the "acked after" rows stop where the 25.185 s connection ends.
func TestSummarySynthetic(t *testing.T) {
	sel := query.All()
	sel.Ref = query.RefBulk
	v, err := query.Analyze("../testdata/synthetic/geo-600ms-loss.pcap", sel, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := NewRun(Spec{Label: "a", File: "../testdata/synthetic/geo-600ms-loss.pcap", Conn: -1}, v.Report, v.Conn, v.Dir, "bulk")
	if err != nil {
		t.Fatal(err)
	}
	b := run
	b.Label = "b"
	rows := Summary([]Run{run, b}, []float64{30}, 100000)
	got := map[string][]float64{}
	for _, r := range rows {
		got[r.Metric] = r.Values
	}
	if v := got["RTT ack p50"]; len(v) != 2 || v[0] != 600 || v[1] != 600 {
		t.Errorf("RTT ack p50 = %v, want 600 ms", v)
	}
	if v := got["acked to sender after 1 s"]; v[0] != 14480 {
		t.Errorf("acked to sender after 1 s = %v, want 14480 bytes (ten 1448-byte segments)", v)
	}
	if v, ok := got["acked to sender after 30 s"]; ok {
		t.Errorf("acked after 30 s = %v; the connection ended 24.6 s after the bulk start: want no row", v)
	}
	if v := got["time to 100000 bytes delivered"]; math.Abs(v[0]-3.043) > 0.0005 {
		t.Errorf("time to 100000 bytes delivered = %v, want 3.043 s", v)
	}
	// Two losses: the first repaired by a fast retransmission whose timer
	// fired needlessly (spurious by Eifel), the second by fast, then RTO.
	if v := got["rto"]; v[0] != 1 || v[1] != 1 {
		t.Errorf("rto = %v, want 1", v)
	}
	if v := got["spurious"]; v[0] != 1 {
		t.Errorf("spurious = %v, want 1 (frame 138)", v)
	}
}

// TestSummaryTable: the header names every run and its ratio column; a
// value is printed with its ratio to the first run's, "–" without one.
func TestSummaryTable(t *testing.T) {
	runs := []Run{{Spec: Spec{Label: "nopep"}}, {Spec: Spec{Label: "pep"}}}
	rows := []Row{{Metric: "acked after 1 s", Unit: query.Bytes, Values: []float64{1000, 2500}}, {Metric: "slow start end", Unit: query.Seconds, Values: []float64{math.NaN(), 1.5}}}
	got := SummaryTable(runs, rows)
	want := [][]string{
		{"metric", "unit", "nopep", "pep", "× nopep"},
		{"acked after 1 s", string(query.Bytes), Format(1000, query.Bytes), Format(2500, query.Bytes), "2.50×"},
		{"slow start end", string(query.Seconds), Format(math.NaN(), query.Seconds), Format(1.5, query.Seconds), "–"},
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// TestParseSpecsDuplicates: a label given twice, or one run under two
// labels, is refused before anything is read (trial13 B5); different
// connections of one capture are two runs.
func TestParseSpecsDuplicates(t *testing.T) {
	for _, args := range [][]string{
		{"a=x.pcap", "a=x.pcap"},
		{"a=x.pcap", "a=y.pcap"},
		{"a=x.pcap", "b=./x.pcap"},
		{"a=x.pcap#2", "b=x.pcap#2"},
		{"a=c.pcap+s.pcap", "b=c.pcap+./s.pcap"},
	} {
		if _, err := ParseSpecs(args); !errors.Is(err, ErrDuplicate) {
			t.Errorf("ParseSpecs(%q): err %v, want ErrDuplicate", args, err)
		}
	}
	sp, err := ParseSpecs([]string{"a=x.pcap#1", "b=x.pcap#2", "c=x.pcap", "d=c.pcap+s.pcap", "e=c.pcap"})
	if err != nil || len(sp) != 5 || sp[1].Conn != 2 || sp[3].ServerFile != "s.pcap" {
		t.Errorf("ParseSpecs of five distinct runs = %+v, %v", sp, err)
	}
}
