package compare

import (
	"math"
	"testing"

	"github.com/tcpviz/tcpviz/query"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
		ok   bool
	}{
		{"pep=runs/a/client.pcap", Spec{"pep", "runs/a/client.pcap", -1}, true},
		{"a=x.pcap#2", Spec{"a", "x.pcap", 2}, true},
		{"a=dir#1/x.pcap", Spec{"a", "dir#1/x.pcap", -1}, false}, // '#1/x.pcap' is not an index
		{"=x.pcap", Spec{}, false},
		{"a=", Spec{}, false},
		{"x.pcap", Spec{}, false},
		{"a=x.pcap#-1", Spec{}, false},
	} {
		got, err := ParseSpec(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseSpec(%q) = %+v, %v; want %+v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

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
	run := Run{Spec: Spec{Label: "a"}, Result: v.Conn, Dir: v.Dir, Ref: v.Ref}
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
	if v := got["acked after 1 s"]; v[0] != 14480 {
		t.Errorf("acked after 1 s = %v, want 14480 bytes (ten 1448-byte segments)", v)
	}
	if v := got["acked after 30 s"]; !math.IsNaN(v[0]) {
		t.Errorf("acked after 30 s = %v; the connection ended 24.6 s after the bulk start: want no value", v)
	}
	if v := got["time to 100000 bytes"]; math.Abs(v[0]-3.043) > 0.0005 {
		t.Errorf("time to 100000 bytes = %v, want 3.043 s", v)
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
