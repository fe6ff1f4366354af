package query

import (
	"errors"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

const synth = "../testdata/synthetic/geo-600ms-loss.pcap"

func TestParseDir(t *testing.T) {
	for in, want := range map[string]Dir{"": Auto, "auto": Auto, "AUTO": Auto, "ab": AB, "a2b": AB, "AB": AB, "A2B": AB, "ba": BA, "b2a": BA, " BA ": BA} {
		got, err := ParseDir(in)
		if err != nil || got != want {
			t.Errorf("ParseDir(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"x", "a→b", "ab2"} {
		if _, err := ParseDir(in); !errors.Is(err, ErrDirection) {
			t.Errorf("ParseDir(%q): error %v, want ErrDirection", in, err)
		}
	}
}

func TestParseRefAndMetric(t *testing.T) {
	for in, want := range map[string]Ref{"syn": RefSYN, "SYN": RefSYN, "Data": RefData, "bulk": RefBulk} {
		if got, err := ParseRef(in); err != nil || got != want {
			t.Errorf("ParseRef(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseRef("first"); !errors.Is(err, ErrRef) {
		t.Errorf("ParseRef(first): %v, want ErrRef", err)
	}
	for _, m := range Metrics() {
		if got, err := ParseMetric(m.String()); err != nil || got != m {
			t.Errorf("ParseMetric(%q) = %v, %v", m, got, err)
		}
		if m.Unit() == "" || m.Label() == "" {
			t.Errorf("metric %v lacks a unit or label", m)
		}
	}
	if m, _ := ParseMetric("tput"); m != MetricGoodput {
		t.Errorf("tput = %v, want goodput", m)
	}
	if _, err := ParseMetric("cwnd"); !errors.Is(err, ErrMetric) {
		t.Errorf("ParseMetric(cwnd): %v", err)
	}
}

func TestNiceInterval(t *testing.T) {
	for _, c := range []struct{ d, want time.Duration }{
		{0, time.Millisecond},
		{50 * time.Millisecond, time.Millisecond},
		{60 * time.Millisecond, 2 * time.Millisecond},
		{10 * time.Second, 200 * time.Millisecond},
		{25185 * time.Millisecond, time.Second}, // the synthetic capture: 25.185 s / 500 ms > 50
		{25 * time.Second, 500 * time.Millisecond},
		{100 * time.Second, 2 * time.Second},
		{3600 * time.Second, 100 * time.Second},
	} {
		if got := NiceInterval(c.d); got != c.want {
			t.Errorf("NiceInterval(%v) = %v, want %v", c.d, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := All()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    Selection
		want error
	}{
		{Selection{Conn: -2}, ErrSelection},
		{Selection{Conn: -1, From: 5 * time.Second, To: 2 * time.Second}, ErrRange},
		{Selection{Conn: -1, From: -time.Second}, ErrRange},
		{Selection{Conn: -1, Dir: 7}, ErrDirection},
	} {
		if err := c.s.Validate(); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.s, err, c.want)
		}
	}
	if _, err := ParseHost("10.0.0"); !errors.Is(err, ErrSelection) {
		t.Errorf("ParseHost(10.0.0): %v", err)
	}
}

// TestAnalyzeSynthetic checks the selection rules on the synthetic
// 600 ms-RTT capture: one connection 10.0.0.1:40000 → 10.0.1.1:5201 of
// 584992 payload bytes, data a → b, first bulk segment 0.600 s after the SYN.
func TestAnalyzeSynthetic(t *testing.T) {
	v, err := Analyze(synth, All(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Conn.Conn.Index != 0 || v.Dir != flows.AtoB || !v.Picked || len(v.Conns) != 1 {
		t.Fatalf("conn %d dir %v picked %v conns %d; want conn 0, ab, picked, 1", v.Conn.Conn.Index, v.Dir, v.Picked, len(v.Conns))
	}
	if PayloadBytes(v.Conn) != 584992 {
		t.Errorf("payload %d, want 584992", PayloadBytes(v.Conn))
	}
	if v.Interval != time.Second {
		t.Errorf("interval %v, want 1s for a 25.185 s connection", v.Interval)
	}
	seq := v.Series(MetricSeq)
	// 584992 payload bytes minus four retransmitted 1448-byte segments.
	if n := len(seq.Points); n == 0 || seq.Points[n-1].V != 579200 {
		t.Errorf("seq series: %d points, last %v; want the highest sequence 579200", n, seq.Points[len(seq.Points)-1])
	}
	// A time range from the bulk start: 1 s holds the first flight only.
	sel := All()
	sel.Ref, sel.To = RefBulk, time.Second
	w, err := Analyze(synth, sel, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Ref.Sub(w.Conn.Conn.First); got != 600*time.Millisecond {
		t.Errorf("bulk starts %v after the SYN, want 600ms", got)
	}
	for _, p := range w.Series(MetricSeq).Points {
		if d := p.Time.Sub(w.Ref); d < 0 || d > time.Second {
			t.Errorf("point %v s after the reference point, outside [0, 1]", d.Seconds())
		}
	}
	rtt := w.Series(MetricRTT)
	if len(rtt.Points) == 0 {
		t.Error("no ACK RTT samples in the first second after the bulk start")
	}
	for _, p := range rtt.Points {
		if p.V != 600 && p.V != 640 {
			t.Errorf("ACK RTT %v ms at frame %d; the path is 600 ms, the receiver delays ACKs by 40 ms at most", p.V, p.Frame)
		}
	}
}

func TestMatchAndPick(t *testing.T) {
	v, err := Analyze(synth, All(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := v.Conn
	host := netip.MustParseAddr("10.0.1.1")
	for _, c := range []struct {
		s    Selection
		want bool
	}{
		{Selection{Conn: 0}, true},
		{Selection{Conn: 1}, false},
		{Selection{Conn: -1, Port: 5201}, true},
		{Selection{Conn: -1, Port: 40000}, true},
		{Selection{Conn: 0, Port: 1}, false}, // every criterion must hold
		{Selection{Conn: -1, Host: host}, true},
		{Selection{Conn: -1, Host: netip.MustParseAddr("::ffff:10.0.1.1").Unmap()}, true},
		{Selection{Conn: -1, Host: netip.MustParseAddr("10.9.9.9")}, false},
	} {
		if got := c.s.Match(r); got != c.want {
			t.Errorf("%+v.Match = %v, want %v", c.s, got, c.want)
		}
	}
	if _, err := (Selection{Conn: 0, Port: 1}).Pick(v.Report); !errors.Is(err, ErrNoMatch) {
		t.Errorf("conn 0 port 1: %v, want ErrNoMatch", err)
	}
	if _, err := (Selection{Conn: 3}).Pick(v.Report); !errors.Is(err, ErrNoConn) {
		t.Errorf("conn 3: %v, want ErrNoConn", err)
	}
	if _, err := Analyze(synth, Selection{Conn: 0, Port: 1}, Options{}); !errors.Is(err, ErrNoMatch) {
		t.Errorf("Analyze conn 0 port 1: %v, want ErrNoMatch", err)
	}
}

// TestTwoPasses: a capture larger than the one-pass limit is read twice
// (summaries, then the chosen connection's series) and gives the same view.
func TestTwoPasses(t *testing.T) {
	one, err := Analyze(synth, All(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	two, err := Analyze(synth, All(), Options{OnePassLimit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if two.Conn.Conn.Index != one.Conn.Conn.Index || two.Dir != one.Dir || two.Ref != one.Ref {
		t.Fatalf("two passes chose conn %d %v, one pass conn %d %v", two.Conn.Conn.Index, two.Dir, one.Conn.Conn.Index, one.Dir)
	}
	for _, m := range Metrics() {
		a, b := one.Series(m), two.Series(m)
		if len(a.Points) != len(b.Points) {
			t.Errorf("%s: %d points in one pass, %d in two", m, len(a.Points), len(b.Points))
		}
	}
	// Stdin is spooled so that both passes can read it.
	f, err := os.Open(synth)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := Analyze("-", All(), Options{Stdin: f, OnePassLimit: 1})
	if err != nil || in.Conn.Conn.Index != 0 || len(in.Series(MetricSeq).Points) != len(one.Series(MetricSeq).Points) {
		t.Errorf("standard input, two passes: %v", err)
	}
}

func TestFromReport(t *testing.T) {
	rep, err := tcpanalysis.AnalyzeFile(synth, tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	sel := All()
	sel.Dir = BA
	v, err := FromReport(rep, sel, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The ACK direction: no data, so no sequence progress, but ACKs.
	if v.Dir != flows.BtoA || len(v.Series(MetricSeq).Points) != 0 || len(v.Series(MetricAck).Points) == 0 {
		t.Errorf("dir %v, %d seq points, %d ack points", v.Dir, len(v.Series(MetricSeq).Points), len(v.Series(MetricAck).Points))
	}
	if _, err := FromReport(rep, Selection{Conn: -1, Port: 80}, Options{}); !errors.Is(err, ErrNoMatch) {
		t.Errorf("port 80: %v", err)
	}
}

// TestCheckInterval: the interval rule without a capture: 0 (the default)
// or ≥ MinInterval, and no more intervals in a bounded window than
// tcpanalysis.MaxBins allows.
func TestCheckInterval(t *testing.T) {
	sel := All()
	for _, c := range []struct {
		from, to, w time.Duration
		ok          bool
	}{
		{0, 0, 0, true},
		{0, 0, time.Microsecond, true},
		{0, 0, time.Nanosecond, false},
		{0, 0, -time.Second, false},
		{0, time.Second, time.Microsecond, true},      // 1e6 intervals
		{0, 2 * time.Second, time.Microsecond, false}, // 2e6
		{10 * time.Second, 11 * time.Second, time.Microsecond, true},
	} {
		sel.From, sel.To = c.from, c.to
		err := sel.CheckInterval(c.w)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrInterval)) {
			t.Errorf("from %v to %v, interval %v: %v; want ok %v (errors wrap ErrInterval)", c.from, c.to, c.w, err, c.ok)
		}
	}
}
