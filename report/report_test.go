package report

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// writeReport analyses files keeping every series and writes their report
// to path.
func writeReport(t testing.TB, path string, files []string, o Options) {
	t.Helper()
	var caps []Capture
	for _, f := range files {
		rep, err := tcpanalysis.AnalyzeFile(f, tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		caps = append(caps, Capture{Report: rep})
	}
	var buf bytes.Buffer
	if err := Write(&buf, caps, o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestColumnRoundTrip(t *testing.T) {
	var b blob
	in := []int64{5, 5, 3, 1 << 40, -7, 0}
	c := b.add(in)
	if got := decodeCol(b.buf.Bytes(), *c); !reflect.DeepEqual(got, in) {
		t.Errorf("decodeCol(add(%v)) = %v", in, got)
	}
	// 5, then deltas 0, -2: zig-zag 10, 0, 3.
	if got := b.buf.Bytes()[:3]; !bytes.Equal(got, []byte{10, 0, 3}) {
		t.Errorf("first bytes = %v, want [10 0 3]", got)
	}
	if again := b.add(append([]int64(nil), in...)); *again != *c {
		t.Errorf("the same column added twice is stored at %v and %v, want once", *c, *again)
	}
	if b.add(nil) != nil {
		t.Error("add(nil) = non-nil, want nil for an empty column")
	}
}

func TestThin(t *testing.T) {
	// 20 bars, bar i covers [100i, 100i+50) at time 10i; buckets of 8.
	var l level
	for i := range int64(20) {
		l.X, l.Y2, l.Y, l.F = append(l.X, 10*i), append(l.Y2, 100*i), append(l.Y, 100*i+50), append(l.F, i+1)
	}
	bars := thin(l, shapeBars, 8)
	want := level{X: []int64{0, 80, 160}, Y: []int64{750, 1550, 1950}, Y2: []int64{0, 800, 1600}, F: []int64{1, 9, 17}, N: []int64{8, 8, 4}}
	if !reflect.DeepEqual(bars, want) {
		t.Errorf("thin(bars) = %+v, want %+v", bars, want)
	}
	// A line: min and max of each bucket, in time order.
	line := level{X: []int64{0, 1, 2, 3, 4, 5}, Y: []int64{5, 9, 1, 4, 4, 4}, F: []int64{1, 2, 3, 4, 5, 6}}
	got := thin(line, shapeLine, 3)
	wantL := level{X: []int64{1, 2, 3}, Y: []int64{9, 1, 4}, F: []int64{2, 3, 4}, N: []int64{3, 3, 3}}
	if !reflect.DeepEqual(got, wantL) {
		t.Errorf("thin(line) = %+v, want %+v", got, wantL)
	}
}

func TestPyramid(t *testing.T) {
	var l level
	for i := range int64(100_000) {
		l.X, l.Y2, l.Y, l.F = append(l.X, i), append(l.Y2, i*1448), append(l.Y, (i+1)*1448), append(l.F, i+1)
	}
	lv := pyramid(l, shapeBars, false)
	var sizes []int
	for _, x := range lv {
		sizes = append(sizes, x.len())
	}
	// 100000, /8 = 12500, 1563, 196.
	if want := []int{100000, 12500, 1563, 196}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("level sizes = %v, want %v", sizes, want)
	}
	if top := lv[3]; top.Y2[0] != 0 || top.Y[len(top.Y)-1] != 100_000*1448 {
		t.Errorf("coarsest level spans %d–%d, want 0–%d", top.Y2[0], top.Y[len(top.Y)-1], 100_000*1448)
	}
	if n := len(pyramid(l, shapeBars, true)); n != 1 {
		t.Errorf("pyramid(keepAll) has %d levels, want 1", n)
	}
}

// TestSeries checks the series extracted from the 600 ms-RTT capture
// against the numbers of 'tcpviz retrans' (README).
func TestSeries(t *testing.T) {
	rep, err := tcpanalysis.AnalyzeFile("../testdata/synthetic/geo-600ms-loss.pcap", tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	ss := extractOf(rep, rep.Conns[0], 0)
	by := map[string]series{}
	for _, s := range ss {
		by[s.ID] = s
	}
	retx := by["retx"].L0
	if want := []int64{108, 138, 368, 381}; !reflect.DeepEqual(retx.F, want) {
		t.Errorf("retransmission frames = %v, want %v", retx.F, want)
	}
	if retx.Y2[0] != 65161 || retx.Y[0] != 65161+1448 || retx.X[0] != 3_003_000 {
		t.Errorf("first retransmission: t %d µs, seq %d–%d, want 3003000, 65161–66609", retx.X[0], retx.Y2[0], retx.Y[0])
	}
	for _, id := range []string{"seg", "synfin", "ack", "edge", "rtt_ack", "rtt_ts", "rtt_hs", "tput", "goodput", "rwnd", "flight", "ev_fast", "ev_rto", "ev_dup_ack"} {
		if s := by[id]; len(s.L0.X) == 0 {
			t.Errorf("series %s missing or empty", id)
		}
	}
	if _, ok := by["ooo"]; ok {
		t.Error("an empty out-of-order series was kept: the legend would list a mark that is never drawn")
	}
	if n := len(by["rtt_ack"].L0.X); n != 203 {
		t.Errorf("ACK RTT samples = %d, want 203 (tcpviz rtt)", n)
	}
}

func TestNiceBin(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{{0, 1000}, {1000, 1000}, {1001, 2000}, {3000, 5000}, {6000, 10000}, {150000, 200000}} {
		if got := int64(niceBin(time_us(c.in))) / 1000; got != c.want {
			t.Errorf("niceBin(%d µs) = %d µs, want %d", c.in, got, c.want)
		}
	}
}

func time_us(v int64) time.Duration { return time.Duration(v) * time.Microsecond }

func TestWriteErrors(t *testing.T) {
	rep, err := tcpanalysis.AnalyzeFile("../testdata/synthetic/geo-600ms-loss.pcap", tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(io.Discard, []Capture{{Report: rep}}, Options{}); !errors.Is(err, ErrNoSeries) {
		t.Errorf("Write without kept series: %v, want ErrNoSeries", err)
	}
	kept, err := tcpanalysis.AnalyzeFile("../testdata/synthetic/geo-600ms-loss.pcap", tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	err = Write(io.Discard, []Capture{{Report: kept}}, Options{Open: &Pick{Conn: 3}})
	if err == nil || !strings.Contains(err.Error(), "conn 3") {
		t.Errorf("Write with Open naming conn 3 of a 1-connection capture: %v, want an error naming conn 3", err)
	}
	self := 0
	err = Write(io.Discard, []Capture{{Report: kept}}, Options{Compare: []Pick{{Conn: 0, HalfOf: &self}, {Conn: 0}}})
	if err == nil || !strings.Contains(err.Error(), "HalfOf 0 names no earlier run") {
		t.Errorf("Write with a compare run the half of itself: %v, want an error", err)
	}
}

func TestCaptureLabels(t *testing.T) {
	mk := func(f string) Capture { return Capture{Report: &tcpanalysis.Report{File: f}} }
	got := captureLabels([]Capture{mk("runs/pep-off/client.pcap"), mk("runs/pep-on/client.pcap"), {Label: "x", Report: &tcpanalysis.Report{File: "y"}}})
	if want := []string{"pep-off/client.pcap", "pep-on/client.pcap", "x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("captureLabels = %v, want %v", got, want)
	}
	if got := captureLabels([]Capture{mk("/a/b.pcap")}); got[0] != "b.pcap" {
		t.Errorf("captureLabels of one file = %v, want [b.pcap]", got)
	}
}

// TestPEPAcceptedNotGoodput: where package pep's one-capture verdict says
// a PEP acknowledges the data (the satellite testbed with the PEP on),
// the bytes newly acknowledged are named as the CLI names them, in the
// series legend and the picker row; without the PEP they are goodput.
func TestPEPAcceptedNotGoodput(t *testing.T) {
	for _, c := range []struct {
		file string
		pep  bool
	}{{"../testdata/sat/pep-on_window-20KB/client.pcap", true}, {"../testdata/sat/pep-off_window-20KB/client.pcap", false}} {
		rep, err := tcpanalysis.AnalyzeFile(c.file, tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		var r *tcpanalysis.ConnResult
		for _, x := range rep.Conns {
			if r == nil || x.Dir[0].Bytes > r.Dir[0].Bytes {
				r = x
			}
		}
		var name string
		for _, s := range extractOf(rep, r, 0) {
			if s.ID == "goodput" {
				name = s.Name
			}
		}
		want := "goodput (newly acknowledged)"
		if c.pep {
			want = PEPAcceptedName
		}
		if name != want {
			t.Errorf("%s: goodput series named %q, want %q", c.file, name, want)
		}
		if got := summarize(0, rep, r, 0).PEPAcked[0]; got != c.pep {
			t.Errorf("%s: picker row pep_acked a→b = %v, want %v", c.file, got, c.pep)
		}
	}
}

// moreMetrics lists the metrics of package query that the report's own
// panels do not draw (drawnMetrics): they go to the "more" panel.
func moreMetrics() []query.Metric {
	var out []query.Metric
	for _, m := range query.Metrics() {
		if !drawnMetrics[m] {
			out = append(out, m)
		}
	}
	return out
}

// TestMoreSeries: every metric of package query that the report's own
// panels do not draw appears in the "more" panel, as View.SeriesOf gives
// it (the ones with points on this capture). With the receive window taken
// off the drawn list, its values come out of View.SeriesOf at 1/1000 of a
// byte: the rwnd line of the window panel.
func TestMoreSeries(t *testing.T) {
	rep, err := tcpanalysis.AnalyzeFile("../testdata/synthetic/geo-600ms-loss.pcap", tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Conns[0]
	want := map[string]bool{}
	for _, m := range moreMetrics() {
		want["m_"+m.String()] = true
	}
	for _, s := range extractOf(rep, r, 0) {
		if s.Panel == "more" && !want[s.ID] {
			t.Errorf("series %s in the more panel, but the report draws that metric natively", s.ID)
		}
	}
	delete(drawnMetrics, query.MetricWindow)
	defer func() { drawnMetrics[query.MetricWindow] = true }()
	var more, rwnd level
	for _, s := range extractOf(rep, r, 0) {
		switch s.ID {
		case "m_window":
			more = s.L0
			if s.Name != "receive window (bytes)" || s.Unit != query.Bytes || s.YScale != 1e-3 {
				t.Errorf("more series %q unit %q scale %v", s.Name, s.Unit, s.YScale)
			}
		case "rwnd":
			rwnd = s.L0
		}
	}
	if more.len() == 0 || more.len() != rwnd.len() {
		t.Fatalf("more window series: %d points, rwnd line %d", more.len(), rwnd.len())
	}
	for i := range more.Y {
		if more.Y[i] != rwnd.Y[i]*1000 || more.X[i] != rwnd.X[i] || more.F[i] != rwnd.F[i] {
			t.Fatalf("point %d: more (%d µs, %d, frame %d), rwnd (%d µs, %d, frame %d)", i, more.X[i], more.Y[i], more.F[i], rwnd.X[i], rwnd.Y[i], rwnd.F[i])
		}
	}
}

// extractOf is what Write stores of direction d of r, a connection of rep.
func extractOf(rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, d flows.Direction) []series {
	return extract(query.ConnView(rep, r, d, niceBin(r.Conn.Duration()/16384)))
}
