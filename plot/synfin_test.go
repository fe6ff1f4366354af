package plot

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestTimeSeqMarksFinOnData: ns3-tcp-bulk-send's last data segment (frame
// 282 at 1.754527 s, relative 99673..100000) carries the FIN, at relative
// sequence number 100001. Its bar is drawn as data, and the FIN gets the
// SYN/FIN triangle at 100001, as a bare FIN would; the other triangle is
// the SYN (0 s, 0).
func TestTimeSeqMarksFinOnData(t *testing.T) {
	rep, err := tcpanalysis.AnalyzeFile(filepath.Join(sharedtest.Dir(t, "corpus"), "ns3-tcp-bulk-send-0-0.pcap"), tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	f, err := TimeSeq(rep.Conns[0], TimeSeqOptions{Dir: flows.AtoB})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, e := range f.Legend {
		if e.Name == "SYN / FIN" {
			got = fmt.Sprintf("%.6f", e.Thumbs[0].(*plotter.Scatter).XYs)
		}
	}
	if want := "[{0.000000 0.000000} {1.754527 100001.000000}]"; got != want {
		t.Errorf("SYN / FIN triangles at %s, want %s (s, relative seq)", got, want)
	}
}

// retxMarks returns the retransmission entry's red triangles and rings
// (s, relative seq) of f's legend, and whether the entry is there.
func retxMarks(f Figure) (tri, ring string, ok bool) {
	for _, e := range f.Legend {
		if e.Name != "retransmission" {
			continue
		}
		ok = true
		var walk func(ts []gplot.Thumbnailer)
		walk = func(ts []gplot.Thumbnailer) {
			for _, t := range ts {
				switch t := t.(type) {
				case sideBySide:
					walk(append(t.left, t.right))
				case *plotter.Scatter:
					s := fmt.Sprintf("%.6f", t.XYs)
					switch t.GlyphStyle.Shape.(type) {
					case draw.TriangleGlyph:
						if t.GlyphStyle.Color == ColRetx {
							tri = s
						}
					case draw.RingGlyph:
						ring = s
					}
				}
			}
		}
		walk(e.Thumbs)
	}
	return
}

// TestTimeSeqRetransmittedSynFin: a SYN or FIN sent again is a
// retransmission (docs/metrics.md#control-retransmissions) and is drawn
// as one: a red triangle in the legend's retransmission entry.
// zeek-tcp-option-sack's SYN goes out four times (6.45, 9.29, 12.10 s
// again); tcpdump-ssh's frame 49 (0.555385 s, 5186..5283) resends data
// with the FIN: its FIN triangle (5282) is red and no ring sits on it.
func TestTimeSeqRetransmittedSynFin(t *testing.T) {
	for _, c := range []struct {
		file          string
		tri, ring, sf string
	}{
		{"zeek-tcp-option-sack.pcap", "[{6.447785 0.000000} {9.285364 0.000000} {12.101701 0.000000}]", "", "[{0.000000 0.000000}]"},
		{"tcpdump-ssh.pcap", "[{0.555385 5282.000000}]", "", ""},
	} {
		rep, err := tcpanalysis.AnalyzeFile(filepath.Join(sharedtest.Dir(t, "corpus"), c.file), tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		f, err := TimeSeq(rep.Conns[0], TimeSeqOptions{Dir: flows.AtoB})
		if err != nil {
			t.Fatal(err)
		}
		tri, ring, ok := retxMarks(f)
		if !ok || tri != c.tri || ring != c.ring {
			t.Errorf("%s: retransmission entry %v, red triangles %s, rings %s; want %s, rings %q", c.file, ok, tri, ring, c.tri, c.ring)
		}
		if c.sf == "" {
			continue
		}
		var sf string
		for _, e := range f.Legend {
			if e.Name == "SYN / FIN" {
				sf = fmt.Sprintf("%.6f", e.Thumbs[0].(*plotter.Scatter).XYs)
			}
		}
		if sf != c.sf {
			t.Errorf("%s: orange SYN / FIN triangles %s, want %s", c.file, sf, c.sf)
		}
	}
}

// TestAboveAxis: the receive-window edge named above a zoomed axis prints
// a value that reads above the axis top, rounded down (never above the
// edge's real maximum): trial 15 saw "up to 1.21 GB" over a 1.2080955 GB top.
func TestAboveAxis(t *testing.T) {
	gb, mb, kb, b := scale{1e9, "GB"}, scale{1e6, "MB"}, scale{1e3, "KB"}, scale{1, "B"}
	for _, c := range []struct {
		v, top float64
		sc     scale
		want   string
	}{
		{1210123456, 1208095500, gb, "1.210 GB"},
		{1210123456, 1208095500, mb, "1210 MB"},
		{1208123456, 1208095500, mb, "1208.12 MB"},
		{1743210, 1483950, mb, "1.74 MB"},
		{48812, 5290, kb, "48.8 KB"},
		{999, 998.4, b, "999 B"},
		{999, 998.6, b, "999 B"},
		{1208095999, 1208095500, kb, "1208095.9 KB"},
	} {
		if got := aboveAxis(c.v, c.top, c.sc); got != c.want {
			t.Errorf("aboveAxis(%v, %v, %s) = %q, want %q", c.v, c.top, c.sc.Name, got, c.want)
		}
	}
}

// TestByteAxisWholeTicks: a byte axis ticks at whole bytes, in a unit that
// labels them with at most 3 decimals. zeek-http-no-crlf zoomed to 84.5-85 s
// spans one byte at 1483946 (it ticked 1.4839460 to 1.4839470 MB by 0.2
// bytes); the unanswered SYN's 0-1 B axis ticked every 0.2 B.
func TestByteAxisWholeTicks(t *testing.T) {
	for _, c := range []struct {
		file, dir string
		conn      int
		from, to  time.Duration
		want      string
	}{
		{"corpus/zeek-http-no-crlf.pcap", "ba", 0, 84500 * time.Millisecond, 85 * time.Second, "relative sequence number (KB): 1483.946@1483946 1483.947@1483947"},
		{"cases/unanswered_fin_syn_retries.pcap", "ab", 1, 0, 0, "relative sequence number (B): 0@0 1@1"},
	} {
		dir, file := filepath.Split(c.file)
		rep, err := tcpanalysis.AnalyzeFile(filepath.Join(sharedtest.Dir(t, filepath.Clean(dir)), file), tcpanalysis.Options{Keep: func(int) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		d := flows.AtoB
		if c.dir == "ba" {
			d = flows.BtoA
		}
		f, err := TimeSeq(rep.Conns[c.conn], TimeSeqOptions{Dir: d, From: c.from, To: c.to})
		if err != nil {
			t.Fatal(err)
		}
		y := &f.Panels[0].Y
		got := y.Label.Text + ":"
		for _, tk := range y.Tick.Marker.Ticks(y.Min, y.Max) {
			if tk.Label != "" {
				got += fmt.Sprintf(" %s@%.0f", tk.Label, tk.Value)
				if tk.Value != math.Round(tk.Value) {
					t.Errorf("%s: tick %s at %v bytes", c.file, tk.Label, tk.Value)
				}
			}
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.file, got, c.want)
		}
	}
}

// TestTimeSeqOneAckHolds: ns3-ipv4-nat-csma's data direction is
// acknowledged once (the SYN-ACK, at 0.004 s, ACK 1, window 65 535 B);
// its data is sent again at 1, 3 and 7 s and never acknowledged. The ACK
// and window lines hold that one value to the connection's last packet
// (8.0 s): a line of one point had no length and was not drawn, though
// the legend listed it.
func TestTimeSeqOneAckHolds(t *testing.T) {
	rep, err := tcpanalysis.AnalyzeFile(filepath.Join(sharedtest.Dir(t, "corpus"), "ns3-ipv4-nat-csma-2-0.pcap"), tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Conns[0]
	if n := len(r.Series.Acks[flows.AtoB]); n != 1 {
		t.Fatalf("%d ACKs of the data direction, want 1", n)
	}
	f, err := TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, e := range f.Legend {
		if e.Name != "cumulative ACK" && e.Name != "receive window (ACK + rwnd)" {
			continue
		}
		found++
		l, ok := e.Thumbs[0].(*plotter.Line)
		if !ok {
			t.Fatalf("%s: thumb %T", e.Name, e.Thumbs[0])
		}
		xy := l.XYs
		last := r.Conn.Last.Sub(r.Conn.First).Seconds()
		if len(xy) != 2 || xy[1].X != last || xy[1].Y != xy[0].Y || xy[1].X-xy[0].X < 7.9 {
			t.Errorf("%s: points %v, want its one value held to %.6f s", e.Name, xy, last)
		}
	}
	if found != 2 {
		t.Errorf("%d of the ACK and window lines in the legend, want 2", found)
	}
}
