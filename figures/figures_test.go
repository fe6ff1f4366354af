package figures

import (
	"errors"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// synth is the shipped synthetic transfer: conn 0, 10.0.0.1:40000 →
// 10.0.1.1:5201, 600 ms RTT, one RTO, two fast retransmits, one spurious
// retransmission and 48 duplicate ACKs in direction ab.
const synth = "../testdata/synthetic/geo-600ms-loss.pcap"

// view analyses path as the CLI does by default: no window scale assumed
// for a connection whose handshake was not captured.
func view(t *testing.T, path string, sel query.Selection) *query.View {
	t.Helper()
	o := query.Options{}
	o.Analysis.Flows.WScale = -1
	v, err := query.Analyze(path, sel, o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func legend(f plot.Figure) []string {
	var names []string
	for _, e := range f.Legend {
		names = append(names, e.Name)
	}
	return names
}

// TestRTT: one panel per direction, data direction first, both named by
// their endpoints; the legend lists the three methods once. With --dir set
// only that direction's panel is drawn, and without the ts method its
// legend entry is gone.
func TestRTT(t *testing.T) {
	v := view(t, synth, query.All())
	all, err := query.RTTMethods("both")
	if err != nil {
		t.Fatal(err)
	}
	f, err := RTT(v, "run", all)
	if err != nil {
		t.Fatal(err)
	}
	if f.Title != "run — conn 0: RTT at the capture point" || len(f.Panels) != 2 {
		t.Fatalf("title %q, %d panels; want 2", f.Title, len(f.Panels))
	}
	if got := f.Panels[0].Title.Text; got != "data 10.0.0.1:40000 → 10.0.1.1:5201" {
		t.Errorf("panel 0 %q", got)
	}
	if got := f.Panels[1].Title.Text; !strings.HasPrefix(got, "reverse direction 10.0.1.1:5201 → 10.0.0.1:40000") {
		t.Errorf("panel 1 %q", got)
	}
	if got, want := legend(f), []string{"ACK-based (Karn)", "TSval/TSecr", "handshake"}; !slices.Equal(got[:3], want) {
		t.Errorf("legend %q, want %q first", got, want)
	}
	sel := query.All()
	sel.Dir = query.AB
	ack, _ := query.RTTMethods("ack")
	f, err = RTT(view(t, synth, sel), "run", ack)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 1 || !slices.Equal(legend(f), []string{"ACK-based (Karn)", "handshake"}) {
		t.Errorf("--dir ab --method ack: %d panels, legend %q", len(f.Panels), legend(f))
	}
}

// TestEvents: the classes of direction ab's events, in tcpanalysis.Classes
// order, each a legend entry.
func TestEvents(t *testing.T) {
	f, err := Events(view(t, synth, query.All()), "run")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"rto", "fast", "spurious", "dup_ack"}; !slices.Equal(legend(f), want) {
		t.Errorf("legend %q, want %q", legend(f), want)
	}
	if f.Title != "run — conn 0: events, data 10.0.0.1:40000 → 10.0.1.1:5201" {
		t.Errorf("title %q", f.Title)
	}
}

// TestWindowScaleUnknown: a connection whose handshake was not captured
// has no window scale, so rwnd is not drawn and the title says why; the
// figure drops the window points from the view.
func TestWindowScaleUnknown(t *testing.T) {
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	c := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.1:40000"), netip.MustParseAddrPort("198.51.100.1:5201"), 1000, 7000)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for i := range 4 {
		ts := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		s := c.Data(ts, pcaptest.C2S, 1000)
		f.Add(s.T, 0, s.IP())
		a := c.Ack(ts.Add(50*time.Millisecond), pcaptest.S2C, c.Next(pcaptest.C2S)-1000, 512)
		f.Add(a.T, 0, a.IP())
	}
	p := filepath.Join(t.TempDir(), "nosyn.pcap")
	if err := f.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	v := view(t, p, query.All())
	fig, err := Window(v, "run")
	if err != nil {
		t.Fatal(err)
	}
	want := "run — conn 0: window, data 192.0.2.1:40000 → 198.51.100.1:5201\nwindow scale unknown: rwnd not drawn"
	if fig.Title != want {
		t.Errorf("title %q, want %q", fig.Title, want)
	}
	if l := legend(fig); len(l) != 1 || !strings.HasPrefix(l[0], "in flight (tshark)") {
		t.Errorf("legend %q", legend(fig))
	}
	if v.Conn.Series.Window[v.Dir] != nil {
		t.Errorf("the window points are still held")
	}

	// --wscale 7: rwnd drawn, and the title says the scale was assumed.
	o := query.Options{}
	o.Analysis.Flows.WScale = 7
	v, err = query.Analyze(p, query.All(), o)
	if err != nil {
		t.Fatal(err)
	}
	if fig, err = Window(v, "run"); err != nil {
		t.Fatal(err)
	}
	want = "run — conn 0: window, data 192.0.2.1:40000 → 198.51.100.1:5201\nrwnd with window scale 7 assumed (--wscale): the handshake was not captured"
	if fig.Title != want {
		t.Errorf("--wscale 7: title %q, want %q", fig.Title, want)
	}
	if l := legend(fig); len(l) != 2 || l[0] != "receive window (rwnd)" {
		t.Errorf("--wscale 7: legend %q", l)
	}
}

// TestRate: the title names the interval (1 s on the synthetic transfer's
// 1-2-5 default) and the legend both lines.
func TestRate(t *testing.T) {
	v := view(t, synth, query.Selection{Conn: -1, Ref: query.RefBulk})
	f, err := Rate(v, "run")
	if err != nil {
		t.Fatal(err)
	}
	if want := "run — conn 0: data 10.0.0.1:40000 → 10.0.1.1:5201, 1 s intervals"; f.Title != want {
		t.Errorf("title %q, want %q", f.Title, want)
	}
	if got := legend(f); len(got) != 2 || got[0] != "throughput (sent, incl. retransmissions)" {
		t.Errorf("legend %q", got)
	}
}

// TestSeqOptions: the window is measured from the reference point but
// drawn from the connection's first packet; the synthetic transfer's
// first bulk segment is 0.6 s after it.
func TestSeqOptions(t *testing.T) {
	sel := query.Selection{Conn: -1, Ref: query.RefBulk, From: time.Second, To: 3 * time.Second}
	o := SeqOptions(view(t, synth, sel), "run")
	if o.From != 1600*time.Millisecond || o.To != 3600*time.Millisecond || o.Run != "run" || o.AckName != "" {
		t.Errorf("options %+v", o)
	}
}

func TestIntervalLabel(t *testing.T) {
	for w, want := range map[time.Duration]string{100 * time.Millisecond: "100 ms", time.Second: "1 s", 2500 * time.Millisecond: "2.5 s", 250 * time.Microsecond: "250 µs"} {
		if got := IntervalLabel(w); got != want {
			t.Errorf("IntervalLabel(%v) = %q, want %q", w, got, want)
		}
	}
}

func TestAxesAndWindow(t *testing.T) {
	if a := AxisOf(query.MetricRTT); a.Unit != plot.UnitMillis {
		t.Errorf("AxisOf(rtt) = %+v", a)
	}
	if a := AxisOf(query.MetricGoodput); a.Unit != plot.UnitKbps {
		t.Errorf("AxisOf(goodput) = %+v", a)
	}
	s := InWindow(plot.XYSpec{}, query.Selection{From: time.Second, To: 5 * time.Second})
	if s.XFrom != 1 || s.XTo != 5 {
		t.Errorf("InWindow 1-5 s: %g-%g", s.XFrom, s.XTo)
	}
	if s := InWindow(plot.XYSpec{}, query.Selection{From: time.Second}); s.XFrom != 1 || s.XTo != 2 {
		t.Errorf("InWindow without --to and without data: %g-%g, want 1-2", s.XFrom, s.XTo)
	}
}

func TestParseLayout(t *testing.T) {
	if l, err := ParseLayout("grid"); err != nil || l != Grid || l.String() != "grid" {
		t.Errorf("grid: %v, %v", l, err)
	}
	_, err := ParseLayout("tiles")
	if !errors.Is(err, ErrLayout) || err.Error() != `"tiles": want overlay or grid` {
		t.Errorf("tiles: %v", err)
	}
}

// TestRateNoData: a connection that sent no data (a handshake only) gets
// no rate line and no legend entry: the legend lists only what is drawn,
// and the verb warns that the figure draws nothing.
func TestRateNoData(t *testing.T) {
	v := view(t, filepath.Join(sharedtest.Dir(t, "corpus"), "tcpdump-tcp-handshake-nano.pcap"), query.Selection{Conn: -1, Ref: query.RefBulk})
	f, err := Rate(v, "run")
	if err != nil {
		t.Fatal(err)
	}
	if got := legend(f); len(got) != 0 {
		t.Errorf("legend %q, want none", got)
	}
}

// TestSeqLegendEmptyZoom: a zoomed time-sequence graph lists only what
// it draws. Past the connection's end (it lasts 25.2 s) nothing is drawn
// and nothing listed (the ACK and window lines were listed, held from the
// last ACK as a single point at the view's left edge); inside a gap the
// ACK line holds across the view and is listed, the window edge above
// the axis is named as such.
func TestSeqLegendEmptyZoom(t *testing.T) {
	for _, c := range []struct {
		from, to time.Duration
		want     []string
	}{
		{100 * time.Second, 200 * time.Second, nil},
		{10300 * time.Millisecond, 10310 * time.Millisecond, []string{"receive window (ACK + rwnd), above the axis (up to 518 KB)", "cumulative ACK"}},
	} {
		v := view(t, synth, query.Selection{Conn: -1, From: c.from, To: c.to})
		f, err := Seq(v, SeqOptions(v, "run"))
		if err != nil {
			t.Fatal(err)
		}
		if got := legend(f); !slices.Equal(got, c.want) {
			t.Errorf("--from %v --to %v: legend %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

// TestRTTNoSample: a connection with no RTT sample (unanswered SYNs,
// cases/unanswered_fin_syn_retries conn 1) keeps the data direction's
// panel and its axes, as empty seq and tput figures do; it lists nothing
// (the verb warns). It was a blank page under the title.
func TestRTTNoSample(t *testing.T) {
	sel := query.All()
	sel.Conn = 1
	v := view(t, filepath.Join(sharedtest.Dir(t, "cases"), "unanswered_fin_syn_retries.pcap"), sel)
	all, err := query.RTTMethods("both")
	if err != nil {
		t.Fatal(err)
	}
	f, err := RTT(v, "run", all)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 1 || len(f.Legend) != 0 || f.Panels[0].Y.Label.Text != "RTT (ms)" || !strings.HasPrefix(f.Panels[0].Title.Text, "data 192.0.2.10:40026 → ") {
		t.Errorf("%d panels, legend %q; want one, the data direction's, with its RTT axis, and no legend", len(f.Panels), legend(f))
	}
}

// TestRateHiddenLineMerged: on cases/zero_window_probe the throughput
// line differs from goodput only by the two one-byte probes (0.4 kbit/s
// on a 1.2 Mbit/s axis), so it lay entirely under it yet had its own
// legend entry; like window's identical lines it is now one entry, named
// "≈" (not "=": the values are not equal).
func TestRateHiddenLineMerged(t *testing.T) {
	v := view(t, filepath.Join(sharedtest.Dir(t, "cases"), "zero_window_probe.pcap"), query.All())
	f, err := Rate(v, "run")
	if err != nil {
		t.Fatal(err)
	}
	if got := legend(f); len(got) != 1 || !strings.HasPrefix(got[0], "throughput (sent, incl. retransmissions) ≈ ") {
		t.Errorf("legend %q; want one entry, throughput ≈ goodput", got)
	}
	// Lines apart by more than the tolerance stay two entries.
	f, err = Rate(view(t, synth, query.All()), "run")
	if err != nil {
		t.Fatal(err)
	}
	if got := legend(f); len(got) != 2 {
		t.Errorf("geo-600ms-loss legend %q; want throughput and goodput apart", got)
	}
}

// TestInWindowPastEnd: --from past every point, without --to, draws the
// axis from there (a second long), not the data's range before it
// (trial s10: --from 500 on a 110 s connection drew 0–450 s).
func TestInWindowPastEnd(t *testing.T) {
	spec := plot.XYSpec{Series: []plot.Named{{X: []float64{0, 50, 110}, Y: []float64{1, 2, 3}}}}
	got := InWindow(spec, query.Selection{From: 500 * time.Second})
	if got.XFrom != 500 || got.XTo != 501 {
		t.Errorf("x range %g–%g, want 500–501", got.XFrom, got.XTo)
	}
	got = InWindow(spec, query.Selection{From: 50 * time.Second})
	if got.XFrom != 50 || got.XTo != 110 {
		t.Errorf("x range %g–%g, want 50–110", got.XFrom, got.XTo)
	}
}

// TestRateEmptyAxisSpansWindow: a tput figure with no line (a direction
// that carries no data) spans the connection on its x axis, as its title's
// intervals do, not gonum's 0–1 s (fresh-eyes trial, session 16: ns-3
// aodv r1 node 5, --dir ba of an 87 s connection).
func TestRateEmptyAxisSpansWindow(t *testing.T) {
	v := view(t, filepath.Join(sharedtest.Dir(t, "ns3"), "tcp-aodv-r1-5-0.pcap.gz"), query.Selection{Conn: 0, Dir: query.BA})
	f, err := Rate(v, "run")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Legend) != 0 || len(f.Panels) != 1 {
		t.Fatalf("legend %q, %d panels; want no line, one panel", legend(f), len(f.Panels))
	}
	if x := f.Panels[0].X; x.Min != 0 || x.Max < 85 || x.Max > 90 {
		t.Errorf("x axis %g–%g s, want 0 to the connection's 86.7 s", x.Min, x.Max)
	}
}
