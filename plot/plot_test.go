package plot

import (
	"bytes"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/cmpimg"
	"gonum.org/v1/plot/vg"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.png from current output")

func TestNiceRange(t *testing.T) {
	tests := []struct {
		lo, hi     float64
		zero       bool
		a, b, step float64
	}{
		{0, 840, true, 0, 1000, 200},       // 840/6 = 140 → 200
		{11.2, 57.3, true, 0, 60, 10},      // 0 included
		{-74.9, 95.2, true, -100, 100, 50}, // crosses 0; 170/6 = 28 → 50
		{600, 640, false, 600, 640, 10},    // no 0 asked
		{0, 0, true, 0, 1, 0.25},           // empty
		{0, 1.66, true, 0, 2, 0.5},         // MB
	}
	for _, tt := range tests {
		a, b, step := niceRange(tt.lo, tt.hi, tt.zero, 6)
		if math.Abs(a-tt.a) > 1e-9 || math.Abs(b-tt.b) > 1e-9 || math.Abs(step-tt.step) > 1e-9 {
			t.Errorf("niceRange(%g, %g, %v) = %g, %g, %g; want %g, %g, %g", tt.lo, tt.hi, tt.zero, a, b, step, tt.a, tt.b, tt.step)
		}
	}
}

func TestScaleFor(t *testing.T) {
	tests := []struct {
		u    Unit
		m    float64
		want string
	}{
		{UnitBytes, 900, "B"}, {UnitBytes, 1500, "KB"}, {UnitBytes, 1.5e9, "GB"}, {UnitBytes, 2.6e6, "MB"},
		{UnitSeconds, 0.25, "ms"}, {UnitSeconds, 25, "s"},
		{UnitMillis, 57, "ms"}, {UnitMillis, 1900, "s"},
		{UnitKbps, 840, "kbit/s"}, {UnitKbps, 3574, "Mbit/s"},
		{UnitNone, 1e9, ""},
	}
	for _, tt := range tests {
		if got := scaleFor(tt.u, tt.m).Name; got != tt.want {
			t.Errorf("scaleFor(%d, %g) = %q, want %q", tt.u, tt.m, got, tt.want)
		}
	}
}

// TestAxisTicks: 1.5e9 bytes read as GB on the axis, ticks from 0 with a
// typographic minus for negative values.
func TestAxisTicks(t *testing.T) {
	var a gplot.Axis
	setAxis(&a, "bytes", UnitBytes, 0, 1.5e9, true, true)
	if a.Label.Text != "bytes (GB)" {
		t.Errorf("label = %q, want %q", a.Label.Text, "bytes (GB)")
	}
	var labels []string
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		labels = append(labels, tk.Label)
	}
	if want := []string{"0", "0.25", "0.50", "0.75", "1.00", "1.25", "1.50"}; !slices.Equal(labels, want) {
		t.Errorf("ticks = %q, want %q", labels, want)
	}
	setAxis(&a, "difference", UnitKbps, -74.9, 95.2, true, true)
	labels = nil
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		labels = append(labels, tk.Label)
	}
	if want := []string{"−100", "−50", "0", "50", "100"}; !slices.Equal(labels, want) {
		t.Errorf("ticks = %q, want %q", labels, want)
	}
	// A zoom 1 µs wide at 3 s: every tick has the decimals it needs.
	setAxis(&a, "time", UnitSeconds, 3, 3.000001, false, false)
	labels = nil
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		labels = append(labels, tk.Label)
	}
	if len(labels) < 3 || labels[0] != "3.0000000" || labels[1] != "3.0000002" {
		t.Errorf("ticks of [3, 3.000001] s = %q, want 3.0000000, 3.0000002, …", labels)
	}
}

func TestParseSize(t *testing.T) {
	w, h, err := ParseSize("8.5x6cm")
	if err != nil || math.Abs(float64(w-8.5*vg.Centimeter)) > 1e-9 || math.Abs(float64(h-6*vg.Centimeter)) > 1e-9 {
		t.Errorf("ParseSize(8.5x6cm) = %v, %v, %v", w, h, err)
	}
	if w, _, err := ParseSize("3.5x2.5in"); err != nil || w != 3.5*vg.Inch {
		t.Errorf("ParseSize(3.5x2.5in) = %v, %v", w, err)
	}
	for _, bad := range []string{"8.5", "axb", "1x1cm", "200x10cm", ""} {
		if _, _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q): no error", bad)
		}
	}
}

func names(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

// TestLegendListsWhatWasDrawn: a series exactly under another is named
// with it, an empty one is not listed, and retransmissions drawn with
// rings list the ring too.
func TestLegendListsWhatWasDrawn(t *testing.T) {
	x, y := []float64{0, 1, 2}, []float64{10, 20, 10}
	f, err := XY(XYSpec{Title: "t", Series: []Named{
		{Name: "rwnd", X: x, Y: []float64{30, 30, 30}}, {Name: "in flight (tshark)", X: x, Y: y},
		{Name: "in flight (SACK-aware)", X: x, Y: y}, {Name: "never", X: nil, Y: nil}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(f.Legend), []string{"rwnd", "in flight (tshark) = in flight (SACK-aware)"}; !slices.Equal(got, want) {
		t.Errorf("legend = %q, want %q", got, want)
	}
	r := geo(t)
	ts, err := TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB, Run: "geo-600ms-loss.pcap"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"receive window (ACK + rwnd)", "cumulative ACK", "data segment", "retransmission", "SACK block", "SYN / FIN"}
	if got := names(ts.Legend); !slices.Equal(got, want) {
		t.Errorf("time-sequence legend = %q, want %q", got, want)
	}
	for _, e := range ts.Legend {
		if e.Name == "retransmission" && len(e.Thumbs) != 2 {
			t.Errorf("retransmission entry has %d marks, want 2 (bar and ring, as drawn)", len(e.Thumbs))
		}
	}
	if ts.Title != "geo-600ms-loss.pcap — conn 0: 10.0.0.1:40000 → 10.0.1.1:5201, time-sequence" {
		t.Errorf("title = %q", ts.Title)
	}
	if p := ts.Panels[0]; p.Y.Min != 0 || p.X.Min != 0 || p.Y.Label.Text != "relative sequence number (KB)" {
		t.Errorf("axes: x from %g, y from %g, y label %q; want 0, 0, KB", p.X.Min, p.Y.Min, p.Y.Label.Text)
	}
}

// TestRobustY: 2 s outliers do not squash 11 ms samples; they are counted.
func TestRobustY(t *testing.T) {
	var s Named
	s.Name, s.Scatter = "ts", true
	for i := range 100 {
		s.X, s.Y = append(s.X, float64(i)), append(s.Y, 11+float64(i%5))
	}
	s.X, s.Y = append(s.X, 100, 101), append(s.Y, 2000, 2100)
	f, err := XY(XYSpec{Series: []Named{s}, Robust: true, Y: Axis{Label: "RTT", Unit: UnitMillis}})
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Panels[0]; p.Y.Max > 30 || p.Y.Label.Text != "RTT (ms)" {
		t.Errorf("y axis to %g %q, want ≤ 30 ms", p.Y.Max, p.Y.Label.Text)
	}
	if got := names(f.Legend); !slices.Equal(got, []string{"ts", "2 above the axis (up to 2.1 s)"}) {
		t.Errorf("legend = %q", got)
	}
}

func geo(t *testing.T) *tcpanalysis.ConnResult {
	t.Helper()
	rep, err := tcpanalysis.AnalyzeFile(filepath.Join("..", "testdata", "synthetic", "geo-600ms-loss.pcap"), tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Conns[0]
}

// study is the MANET arm's shape: four groups, 20 seeds each (values made
// up around the published means).
func study() ([]Group, []Diff) {
	means := []float64{1346.0, 1335.8, 1147.5, 1026.7}
	labels := []string{"anthocnet", "olsr", "dsdv", "aodv"}
	var gs []Group
	for i, m := range means {
		g := Group{Label: labels[i], Mean: m, Lo: m - 45 - 10*float64(i), Hi: m + 45 + 10*float64(i)}
		for k := range 20 {
			g.Points = append(g.Points, m+float64((k*37+i*11)%90)-45)
		}
		gs = append(gs, g)
	}
	ds := []Diff{
		{Label: "anthocnet − aodv", Mean: 319.2, Lo: 256.4, Hi: 382.1, Note: "Wilcoxon p = 1.9 × 10⁻⁶, 20/20 > 0"},
		{Label: "anthocnet − olsr", Mean: 10.1, Lo: -74.9, Hi: 95.2, Note: "Wilcoxon p = 0.43, 6/20 > 0"},
	}
	for i := range ds {
		for k := range 20 {
			ds[i].Points = append(ds[i].Points, ds[i].Mean+float64((k*53)%160)-80)
		}
	}
	return gs, ds
}

// TestGoldenImages renders the figures and compares them with
// testdata/*.golden.png pixel by pixel with a small colour tolerance
// (gonum's cmpimg); 'go test ./plot -update' rewrites them.
func TestGoldenImages(t *testing.T) {
	gs, ds := study()
	so := StudyOptions{Title: "MANET TCP arm: goodput per run by protocol", Group: "protocol", Metric: "goodput per run", Unit: UnitKbps, Level: 0.95, Key: "seed"}
	small := Style{W: 8.5 * vg.Centimeter, H: 6 * vg.Centimeter, FontSize: vg.Points(8), DPI: 200}
	tests := []struct {
		name string
		st   Style
		fig  func() (Figure, error)
	}{
		{"timeseq-geo", DefaultStyle, func() (Figure, error) {
			return TimeSeq(geo(t), TimeSeqOptions{Dir: flows.AtoB, Run: "geo-600ms-loss.pcap"})
		}},
		{"timeseq-geo-small", small, func() (Figure, error) {
			return TimeSeq(geo(t), TimeSeqOptions{Dir: flows.AtoB, Run: "geo-600ms-loss.pcap"})
		}},
		{"goodput-groups", small, func() (Figure, error) { return GroupMeans(so, gs) }},
		{"rtt-stack", small, rttStack},
		{"goodput-pairs", DefaultStyle, func() (Figure, error) { return PairedDiffs(so, ds) }},
		{"goodput-groups-cut", small, func() (Figure, error) { return GroupMeans(so, cutGroups) }},
		{"timeseq-geo-zoom", small, func() (Figure, error) {
			return TimeSeq(geo(t), TimeSeqOptions{Dir: flows.AtoB, Run: "geo-600ms-loss.pcap", From: 2900 * time.Millisecond, To: 3100 * time.Millisecond})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tt.fig()
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := f.SaveStyle(&got, "png", tt.st); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tt.name+".golden.png")
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			ok, err := cmpimg.EqualApprox("png", got.Bytes(), want, 0.05)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				out := filepath.Join(t.TempDir(), tt.name+".png")
				os.WriteFile(out, got.Bytes(), 0o644)
				t.Errorf("%s differs from %s (written to %s); look at both, then 'go test ./plot -update'", tt.name, golden, out)
			}
		})
	}
}

// TestFormats: every format renders, PDF and SVG at the asked size.
func TestFormats(t *testing.T) {
	gs, _ := study()
	f, err := GroupMeans(StudyOptions{Metric: "goodput", Unit: UnitKbps, Level: 0.95}, gs)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range Formats {
		var b bytes.Buffer
		if err := f.SaveStyle(&b, format, Style{W: 8.5 * vg.Centimeter, H: 6 * vg.Centimeter}); err != nil || b.Len() < 1000 {
			t.Errorf("%s: %d bytes, %v", format, b.Len(), err)
		}
		if format == "svg" && !bytes.Contains(b.Bytes(), []byte(`width="240.94pt"`)) {
			t.Errorf("svg is not 8.5 cm (240.94 pt) wide: %.200s", b.Bytes())
		}
	}
	if err := f.SaveStyle(&bytes.Buffer{}, "gif", DefaultStyle); err == nil {
		t.Error("gif: no error")
	}
}

// TestPDFText: gonum's PDF backend writes text bytes as code page 1252, so
// text is rewritten and encoded (0x97 is the em dash there).
func TestPDFText(t *testing.T) {
	if got, want := toCP1252("a — b → c −1.5 × 10 ✓"), "a \x97 b -> c -1.5 \xd7 10 ?"; got != want {
		t.Errorf("toCP1252 = %q, want %q", got, want)
	}
}

// TestEdgeCasesRender: empty, one-point, all-gap and huge series and
// undefined intervals render without error.
func TestEdgeCasesRender(t *testing.T) {
	nan := math.NaN()
	figs := map[string]func() (Figure, error){
		"no series": func() (Figure, error) { return XY(XYSpec{Title: "empty"}) },
		"one point": func() (Figure, error) {
			return XY(XYSpec{Series: []Named{{Name: "a", X: []float64{1}, Y: []float64{5}}}})
		},
		"all gaps": func() (Figure, error) {
			return XY(XYSpec{Series: []Named{{Name: "a", X: []float64{1, 2}, Y: []float64{nan, nan}}}})
		},
		"huge": func() (Figure, error) {
			return XY(XYSpec{Y: Axis{Unit: UnitBytes}, Series: []Named{{Name: "a", X: []float64{0, 1}, Y: []float64{0, 1.5e12}}}})
		},
		"negative": func() (Figure, error) {
			return XY(XYSpec{Series: []Named{{Name: "a", X: []float64{-3, 1}, Y: []float64{-7, -2}}}})
		},
		"grid": func() (Figure, error) {
			return Grid(XYSpec{Series: []Named{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2}}, {Name: "b"}}}, 2)
		},
		"stack none": func() (Figure, error) { return Stack("t", nil) },
		"groups n=1": func() (Figure, error) {
			return GroupMeans(StudyOptions{Unit: UnitKbps}, []Group{{Label: "a", Mean: 5, Lo: nan, Hi: nan, Points: []float64{5}}})
		},
		"diff n=1": func() (Figure, error) {
			return PairedDiffs(StudyOptions{Unit: UnitKbps}, []Diff{{Label: "a − b", Mean: -2, Lo: nan, Hi: nan, Points: []float64{-2}}})
		},
	}
	for name, fig := range figs {
		f, err := fig()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := f.SaveStyle(io.Discard, "png", Style{W: 8.5 * vg.Centimeter, H: 6 * vg.Centimeter, FontSize: 8}); err != nil {
			t.Errorf("%s: render: %v", name, err)
		}
	}
	if _, err := XY(XYSpec{Series: []Named{{X: []float64{1}, Y: nil}}}); err == nil {
		t.Error("X and Y of different lengths: no error")
	}
	if _, err := GroupMeans(StudyOptions{}, nil); err == nil {
		t.Error("no groups: no error")
	}
}

// rttStack is the RTT figure of a connection through a PEP: ~11 ms samples
// timing the data (a few up to 60 ms, one of 432 ms above the axis) and
// reverse-direction TSval echoes of up to 2 s.
func rttStack() (Figure, error) {
	x := Axis{Label: "time since connection start", Unit: UnitSeconds}
	y := Axis{Label: "RTT", Unit: UnitMillis}
	ack := Named{Name: "ACK-based (Karn)", Scatter: true, Color: Colour(0)}
	ts := Named{Name: "TSval/TSecr", Scatter: true, Color: Colour(1), Mark: MarkRing}
	rev := Named{Name: "TSval/TSecr", Scatter: true, Color: Colour(1), Mark: MarkRing}
	for i := range 60 {
		t := 1.2 + float64(i)*0.01
		ack.X, ack.Y = append(ack.X, t), append(ack.Y, 11+float64(i%6))
		ts.X, ts.Y = append(ts.X, t+0.005), append(ts.Y, 10.5+float64(i%7))
		rev.X, rev.Y = append(rev.X, t), append(rev.Y, 0.1*float64(i%3))
	}
	ack.X, ack.Y = append(ack.X, 1.9, 7.2), append(ack.Y, 55, 432)
	rev.X, rev.Y = append(rev.X, 2.2, 3.6, 5.5), append(rev.Y, 240, 950, 1900)
	return Stack("pep-on/client.pcap — conn 1: RTT at the capture point", []XYSpec{
		{Title: "data 10.0.0.1:40000 → 10.0.1.1:5201", X: x, Y: y, Series: []Named{ack, ts}, Robust: true},
		{Title: "reverse direction", X: x, Y: y, Series: []Named{rev}, Robust: true},
	})
}

func TestDurationLabel(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{363886 * time.Microsecond, "364 ms"}, {1500 * time.Millisecond, "1.50 s"}, {2 * time.Millisecond, "2.00 ms"},
		{250 * time.Microsecond, "250 µs"}, {99960 * time.Microsecond, "100 ms"}, {20 * time.Second, "20.0 s"}} {
		if got := DurationLabel(c.d); got != c.want {
			t.Errorf("DurationLabel(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// cutGroups are two runs per group: the t-interval of olsr reaches below 0.
var cutGroups = []Group{
	{Label: "olsr", Mean: 1287.5, Lo: -999.8, Hi: 3574.9, Points: []float64{1107.5, 1467.5}},
	{Label: "dsdv", Mean: 1326.4, Lo: 25.3, Hi: 2627.6, Points: []float64{1224, 1428.8}},
}

// TestStudyCutAndUnit: a goodput CI below 0 is drawn cut at 0 (the axis
// starts at 0) and listed; values stay in the tables' kbps.
func TestStudyCutAndUnit(t *testing.T) {
	f, err := GroupMeans(StudyOptions{Metric: "goodput per run", Unit: UnitKbps, Level: 0.95, Key: "seed"}, cutGroups)
	if err != nil {
		t.Fatal(err)
	}
	p := f.Panels[0]
	if p.Y.Min != 0 || p.Y.Label.Text != "goodput per run (kbps)" {
		t.Errorf("y axis from %g, label %q; want 0 and kbps", p.Y.Min, p.Y.Label.Text)
	}
	if got := names(f.Legend); !slices.Contains(got, "CI below 0, cut at 0 (bound in the table)") {
		t.Errorf("legend = %q, want the cut whisker listed", got)
	}
}

// TestStackSharesX: stacked panels share the x range of all their data.
func TestStackSharesX(t *testing.T) {
	f, err := Stack("t", []XYSpec{
		{Title: "a", Series: []Named{{Name: "s", X: []float64{0, 2}, Y: []float64{1, 2}}}},
		{Title: "b", Series: []Named{{Name: "s", X: []float64{1, 7.3}, Y: []float64{1, 2}}}}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := f.Panels[0].X, f.Panels[1].X
	if a.Min != b.Min || a.Max != b.Max || a.Max < 7.3 {
		t.Errorf("x ranges [%g, %g] and [%g, %g], want one range to 7.3", a.Min, a.Max, b.Min, b.Max)
	}
}

// TestFitTitle: a panel title too wide for its panel wraps; long IPv6
// addresses are shortened where that saves a line.
func TestFitTitle(t *testing.T) {
	ts := textStyle(vg.Points(8))
	s := "data [2001:470:4867:99::21]:21 → [2001:470:1f11:81f:c999:d94:aa7c:2e3e]:49185"
	got := fitTitle(ts, s, 7.5*vg.Centimeter)
	if got != "data [2001:470:…:21]:21 → [2001:470:…:2e3e]:49185" {
		t.Errorf("fitTitle = %q", got)
	}
	for _, line := range strings.Split(wrap(ts, s, 2*vg.Centimeter), "\n") {
		if w := ts.Width(line); w > 2*vg.Centimeter {
			t.Errorf("line %q is %v wide, more than 2 cm", line, w)
		}
	}
}

// TestZoomLegend: zoomed into the loss at 3 s, the legend lists what
// shows (the ACK line holding across the view, the retransmission, SACK
// blocks) and names the window edge far above (ACK 65 KB + 262144 B
// window = 327 KB: more than 4× the view's y span), and y fits the view
// with room for the retransmission's ring (docs/metrics.md#seq-zoom).
func TestZoomLegend(t *testing.T) {
	f, err := TimeSeq(geo(t), TimeSeqOptions{Dir: flows.AtoB, From: 3002500 * time.Microsecond, To: 3003500 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(f.Legend), []string{"receive window (ACK + rwnd), above the axis (up to 327 KB)", "cumulative ACK", "retransmission", "SACK block"}; !slices.Equal(got, want) {
		t.Errorf("legend = %q, want %q", got, want)
	}
	if y := f.Panels[0].Y; y.Min > 65161 || y.Max-y.Min > 10e3 {
		t.Errorf("y axis [%g, %g], want it fitted around 65-71 KB", y.Min, y.Max)
	}
}

// TestZoomKeepsWindow: zoomed to 10-14 s (data and ACKs 245-335 KB, the
// window edge 507-592 KB: the axis grows less than 4×) the receive-window
// line stays within the axes and in the legend (trial14 C10).
func TestZoomKeepsWindow(t *testing.T) {
	f, err := TimeSeq(geo(t), TimeSeqOptions{Dir: flows.AtoB, From: 10 * time.Second, To: 14 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(f.Legend); len(got) == 0 || got[0] != "receive window (ACK + rwnd)" {
		t.Errorf("legend = %q, want the receive-window line first", got)
	}
	if y := f.Panels[0].Y; y.Min > 245e3 || y.Max < 590e3 || y.Max > 640e3 {
		t.Errorf("y axis [%g, %g], want it to hold 245-590 KB", y.Min, y.Max)
	}
}

// TestDashedKinds: two kinds of one run share its colour and differ by
// line style, in the legend as drawn.
func TestDashedKinds(t *testing.T) {
	x := []float64{0, 1}
	f, err := XY(XYSpec{Series: []Named{{Name: "pep", X: x, Y: x, Color: Colour(0)}, {Name: "pep delivered", X: x, Y: []float64{0, 0.5}, Color: Colour(0), Dashed: true}}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := f.Legend[0].Thumbs[0].(*xyLine).style, f.Legend[1].Thumbs[0].(*xyLine).style
	if a.Color != b.Color || len(a.Dashes) != 0 || len(b.Dashes) == 0 {
		t.Errorf("sent %v %v, delivered %v %v: want one colour, solid and dashed", a.Color, a.Dashes, b.Color, b.Dashes)
	}
}

// TestXYZoom: zoomed, y fits the points in view and a series with none
// there is not listed.
func TestXYZoom(t *testing.T) {
	f, err := XY(XYSpec{XFrom: 10, XTo: 20, Series: []Named{
		{Name: "in", X: []float64{0, 12, 15}, Y: []float64{1000, 4, 6}, Scatter: true},
		{Name: "out", X: []float64{1, 2}, Y: []float64{5, 5}, Scatter: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(f.Legend); !slices.Equal(got, []string{"in"}) {
		t.Errorf("legend = %q, want [in]", got)
	}
	if y := f.Panels[0].Y; y.Max > 10 {
		t.Errorf("y axis to %g, want it fitted to the points in view (≤ 6, on a tick)", y.Max)
	}
}

// TestStyleCheck: a NaN, zero or huge size, font size or resolution is an
// error, never a panic of image.NewRGBA (trial13 B1).
func TestStyleCheck(t *testing.T) {
	for _, s := range []string{"NaNxNaNcm", "NaNx6cm", "8.5xInfcm", "0x6cm", "-3x6cm", "101x6cm"} {
		if _, _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q): no error", s)
		}
	}
	if w, h, err := ParseSize("8.5x6cm"); err != nil || w != 8.5*vg.Centimeter || h != 6*vg.Centimeter {
		t.Errorf("ParseSize(8.5x6cm) = %v, %v, %v", w, h, err)
	}
	nan := vg.Length(math.NaN())
	for _, st := range []Style{{W: nan, H: nan}, {W: 1e6, H: 1e6}, {FontSize: nan}, {FontSize: 100}, {DPI: 5}} {
		var buf bytes.Buffer
		err := Figure{Title: "t"}.SaveStyle(&buf, "png", st)
		if err == nil {
			t.Errorf("SaveStyle(%+v): no error", st)
		}
	}
}

// TestLegendNearLineMerged: a step line within hideTol (half a line's
// width) of an earlier one is not drawn and shares its entry ("≈"):
// bulk's tput throughput, 0.13 % of the axis off goodput, was listed
// but hidden (fresh-eyes trial, session 16); one a line's width off
// (0.4 %) stays a line of its own.
func TestLegendNearLineMerged(t *testing.T) {
	x := []float64{0, 1, 2, 3}
	for _, c := range []struct {
		off  float64 // of the axis' span, 0–125
		want []string
	}{
		{0.0013, []string{"throughput ≈ goodput"}},
		{0.004, []string{"throughput", "goodput"}},
	} {
		d := c.off * 125
		f, err := XY(XYSpec{Series: []Named{
			{Name: "throughput", Step: true, X: x, Y: []float64{121, 120 + d, 119, 125}},
			{Name: "goodput", Step: true, X: x, Y: []float64{121, 120, 119, 125 - d}}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(f.Legend); !slices.Equal(got, c.want) {
			t.Errorf("%.2f %% apart: legend %q, want %q", 100*c.off, got, c.want)
		}
	}
}
