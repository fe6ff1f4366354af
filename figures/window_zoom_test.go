package figures

import (
	"bytes"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/internal/imgtest"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// TestWindowZoomHoldsSteps: a zoom window that falls between two window
// points draws, as steps, the values held across it (fresh-eyes trial:
// such a window drew nothing under two legend entries). Three data
// segments 100 ms apart, each ACKed 50 ms later with a 512-byte window
// (scale 0 in the handshake); the window 120–140 ms after the first
// packet holds rwnd from the first ACK (512 B) and in flight from the
// second segment, sent at 110 ms (1 000 B).
func TestWindowZoomHoldsSteps(t *testing.T) {
	p := stepsCapture(t)
	sel := query.All()
	sel.From, sel.To = 120*time.Millisecond, 140*time.Millisecond
	v := view(t, p, sel)
	if held := v.WindowHeld(); !held[0].OK || held[0].V != 512 || !held[1].OK || held[1].V != 1000 {
		t.Fatalf("held %+v, want rwnd 512 and in flight 1000", held)
	}
	fig, err := Window(v, "run")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fig.SaveStyle(&b, "png", plot.DefaultStyle); err != nil {
		t.Fatal(err)
	}
	// Each line crosses the whole panel: hundreds of pixels of its colour
	// beyond the legend's short sample.
	for i, name := range []string{"rwnd", "in flight"} {
		if n := imgtest.ColourPixels(t, b.Bytes(), plot.Colour(i)); n < 300 {
			t.Errorf("%s: %d pixels of its colour, want a line across the window", name, n)
		}
	}
}

// TestCompareZoomHoldsSteps: compare's step lines in a zoom start at its
// left edge with the value in force there, as the window figure's do
// (query.View.HeldOf; fresh-eyes trial: compare --metric inflight drew
// nothing between two points). stepsCapture, 120–140 ms after the first
// packet: rwnd 512 B and in flight 1 000 B as above, the highest sequence
// sent 2 000 (the second segment's last byte), the cumulative ACK 1 001.
func TestCompareZoomHoldsSteps(t *testing.T) {
	p := stepsCapture(t)
	sel := query.All()
	sel.From, sel.To = 120*time.Millisecond, 140*time.Millisecond
	v := view(t, p, sel)
	spec, err := compare.ParseSpec("a=" + p)
	if err != nil {
		t.Fatal(err)
	}
	run, err := compare.NewRun(spec, v.Report, v.Conn, v.Dir, "syn")
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range map[query.Metric]float64{query.MetricWindow: 512, query.MetricInFlight: 1000, query.MetricInFlightSACK: 1000, query.MetricSeq: 2000, query.MetricAck: 1001} {
		ss := compare.FigureSeries([]compare.Run{run}, []*query.View{v}, m, sel)
		if len(ss) != 1 || len(ss[0].X) < 2 || ss[0].X[0] != 0.12 || ss[0].Y[0] != want || ss[0].X[len(ss[0].X)-1] != 0.14 {
			t.Errorf("%s: %+v, want a step from 0.12 s at %g to 0.14 s", m, ss, want)
		}
	}
	// Goodput's intervals and the RTT samples hold nothing.
	if h, _ := v.HeldOf(v.Conn, v.Dir, query.MetricRTT); h.OK {
		t.Errorf("rtt held %+v", h)
	}
}

// stepsCapture writes three data segments 100 ms apart, each ACKed 50 ms
// later with a 512-byte window (scale 0 in the handshake), and returns its
// path.
func stepsCapture(t *testing.T) string {
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	c := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.1:40000"), netip.MustParseAddrPort("198.51.100.1:5201"), 1000, 7000)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{WScale: 0})
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{WScale: 0})
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range c.Handshake(t0, time.Millisecond) {
		f.Add(s.T, 0, s.IP())
	}
	for i := range 3 {
		ts := t0.Add(10*time.Millisecond + time.Duration(i)*100*time.Millisecond)
		s := c.Data(ts, pcaptest.C2S, 1000)
		f.Add(s.T, 0, s.IP())
		a := c.Ack(ts.Add(50*time.Millisecond), pcaptest.S2C, c.Next(pcaptest.C2S), 512)
		f.Add(a.T, 0, a.IP())
	}
	p := filepath.Join(t.TempDir(), "steps.pcap")
	if err := f.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWindowStepsToConnEnd: the window figure's lines hold their last
// value to the connection's last packet or the zoom's end, whichever is
// first, as compare's do (fresh-eyes trial 3: on sat-pair pep-off's client
// a 11.5–12.5 s zoom stopped at the last window point, 11.84 s, 0.6 s
// before the connection's end, the RSTs, while compare held it there).
func TestWindowStepsToConnEnd(t *testing.T) {
	sel := query.All()
	sel.From, sel.To = 11500*time.Millisecond, 12500*time.Millisecond
	v := view(t, "../testdata/sat-pair/pep-off_window-20KB/client.pcap.gz", sel)
	end := v.Conn.Conn.Last.Sub(v.Ref).Seconds()
	xs, ys := windowSteps(v)
	for i := range xs {
		if n := len(xs[i]); n < 2 || xs[i][0] != 11.5 || xs[i][n-1] != end || ys[i][n-1] != ys[i][n-2] {
			t.Errorf("series %d: x from %v to %v, want 11.5 to the connection's end %v", i, xs[i][0], xs[i][n-1], end)
		}
	}
	if end <= 12.4 || end >= 12.5 {
		t.Errorf("the connection ends at %v s, want 12.4–12.5 s", end)
	}
	// Held and end points go into the series' own arrays: the flights
	// still share one x array, and the unzoomed bulk figure no copy of a
	// million-point series (peak RSS 131 MiB, not 199).
	v = view(t, "../testdata/sat-pair/pep-off_window-20KB/client.pcap.gz", query.All())
	xs, _ = windowSteps(v)
	if len(xs[1]) < 100 || &xs[1][0] != &xs[2][0] || &xs[1][len(xs[1])-1] != &xs[2][len(xs[2])-1] {
		t.Errorf("the in-flight series no longer share their x array (%d points)", len(xs[1]))
	}
}
