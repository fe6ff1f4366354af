package query

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestWindowXYMatchesXY: the window figure's one scan (WindowXY) gives
// each series exactly as XY does. The captures take both of its paths:
// rwnd at the points of the flights (x shared), and rwnd at other points
// or none (its own x): a generated bulk capture whose connections lose
// and retransmit (so that in flight and SACK-aware in flight differ),
// whole and zoomed; a connection captured without its handshake (window
// scale unknown: no rwnd); and, when ../shared is present, a corpus
// capture where rwnd is known at some of the flights' points only.
func TestWindowXYMatchesXY(t *testing.T) {
	dir := t.TempDir()
	bulk := filepath.Join(dir, "bulk.pcap")
	writeBulk(t, bulk, pcaptest.GenOptions{Packets: 1 << 14, Seed: 3})
	// The verbs' default: a window scale not seen in the handshake is
	// unknown (flows.Options.WScale -1), not 0.
	opts := Options{OneConn: true, Parts: tcpanalysis.PartWindow, Analysis: tcpanalysis.Options{Flows: flows.Options{WScale: -1}}}
	check := func(t *testing.T, name, path string, sel Selection, wantShared, wantRwnd bool) {
		t.Helper()
		v, err := Analyze(path, sel, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		xs, ys := v.WindowXY(v.Ref)
		n := 0
		for i, m := range WindowMetrics {
			x, y := v.XY(m, v.Ref)
			n += len(x)
			if !slices.Equal(xs[i], x) || !slices.Equal(ys[i], y) {
				t.Errorf("%s %v: WindowXY gives %d points, XY %d, or other values", name, m, len(xs[i]), len(x))
			}
		}
		if n == 0 {
			t.Errorf("%s: no points", name)
		}
		if (len(xs[0]) > 0) != wantRwnd {
			t.Errorf("%s: %d rwnd points, want some: %v", name, len(xs[0]), wantRwnd)
		}
		if shared := len(xs[0]) > 0 && &xs[0][0] == &xs[1][0]; shared != wantShared {
			t.Errorf("%s: rwnd shares the flights' x: %v, want %v", name, shared, wantShared)
		}
	}
	for conn := range 3 {
		sel := All()
		sel.Conn = conn
		v, err := Analyze(bulk, sel, opts)
		if err != nil {
			t.Fatal(err)
		}
		if xs, ys := v.WindowXY(v.Ref); conn == 0 && (slices.Equal(ys[1], ys[2]) || len(xs[1]) < 1000) {
			t.Fatal("in flight and SACK-aware in flight are equal, or few points: the capture tests less than it should")
		}
		check(t, "bulk", bulk, sel, true, true)
		sel.From, sel.To = 20*time.Millisecond, 40*time.Millisecond
		check(t, "bulk zoomed", bulk, sel, true, true)
	}

	// No handshake: the window scale, so rwnd, unknown.
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.2:80"), 1000, 5000)
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkEthernet})
	t0 := time.Unix(1_700_000_000, 0)
	for i := range 20 {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		d := c.Data(at, pcaptest.C2S, 1000)
		a := c.Ack(at.Add(500*time.Microsecond), pcaptest.S2C, c.Next(pcaptest.C2S), 512)
		f.Add(d.T, 0, pcaptest.Ethernet(d.IP()))
		f.Add(a.T, 0, pcaptest.Ethernet(a.IP()))
	}
	mid := filepath.Join(dir, "midstream.pcap")
	if err := os.WriteFile(mid, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	check(t, "midstream", mid, All(), false, false)

	t.Run("corpus", func(t *testing.T) {
		d := sharedtest.Dir(t, "corpus")
		check(t, "zeek-tcp-rst-inject-rae", filepath.Join(d, "zeek-tcp-rst-inject-rae.pcap"), All(), false, true)
	})
}

// TestEmptyRangeSeesWindowACKs: window --ref bulk keeps the data segments
// (for the bulk start) beside the window points; a range holding only an
// ACK is not empty, and no warning says so (fresh-eyes trial: the warning
// "no data segment or ACK between 0.01 and 0.2 s" sat above the row of
// the ACK at 0.01 s).
func TestEmptyRangeSeesWindowACKs(t *testing.T) {
	c := scaledConn()
	t0 := time.Unix(1_700_000_000, 0)
	segs := c.Handshake(t0, 10*time.Millisecond)
	segs = append(segs, c.Data(t0.Add(30*time.Millisecond), pcaptest.C2S, 1000))
	segs = append(segs, c.Ack(t0.Add(40*time.Millisecond), pcaptest.S2C, c.Next(pcaptest.C2S), 0))
	segs = append(segs, c.Ack(t0.Add(500*time.Millisecond), pcaptest.S2C, c.Next(pcaptest.C2S), 65535))
	segs = append(segs, c.Data(t0.Add(600*time.Millisecond), pcaptest.C2S, 1000))
	segs = append(segs, c.Ack(t0.Add(700*time.Millisecond), pcaptest.S2C, c.Next(pcaptest.C2S), 65535))
	path := writeSegs(t, "zw.pcap", segs)
	sel := All()
	sel.Ref, sel.From, sel.To = RefData, 10*time.Millisecond, 200*time.Millisecond
	for _, ref := range []Ref{RefData, RefBulk} {
		sel.Ref = ref
		v := windowView(t, path, sel)
		n := 0
		for range v.WindowPoints(v.Conn, v.Dir) {
			n++
		}
		if n != 1 {
			t.Errorf("ref %v: %d window points in the range, want 1 (the ACK at 40 ms)", ref, n)
		}
		for _, w := range v.Warnings {
			if w.Kind == WarnEmptyRange {
				t.Errorf("ref %v: %s", ref, w)
			}
		}
	}
}

// TestWindowHeldByTime: the value in force at a window's start is that of
// the latest point stamped before it, not of the last one captured before
// it: an ACK captured last but stamped 5 ms after the first packet (the
// capture's timestamps go backwards) does not stand for 50 ms (fresh-eyes
// trial: a window held a 1 GB rwnd from such a point).
func TestWindowHeldByTime(t *testing.T) {
	c := scaledConn()
	t0 := time.Unix(1_700_000_000, 0)
	ms := time.Millisecond
	segs := c.Handshake(t0, 10*ms)
	segs = append(segs, c.Data(t0.Add(30*ms), pcaptest.C2S, 1000), c.Ack(t0.Add(40*ms), pcaptest.S2C, c.Next(pcaptest.C2S), 100))
	segs = append(segs, c.Data(t0.Add(60*ms), pcaptest.C2S, 1000), c.Ack(t0.Add(70*ms), pcaptest.S2C, c.Next(pcaptest.C2S), 200))
	segs = append(segs, c.Ack(t0.Add(5*ms), pcaptest.S2C, c.Next(pcaptest.C2S), 300))
	sel := All()
	sel.From, sel.To = 50*ms, 55*ms
	v := windowView(t, writeSegs(t, "backwards.pcap", segs), sel)
	if held := v.WindowHeld(); !held[0].OK || held[0].V != 100 {
		t.Errorf("rwnd held %+v, want 100 from the ACK at 40 ms", held[0])
	}
}

// scaledConn is a connection whose handshake negotiates window scale 0.
func scaledConn() *pcaptest.Conn {
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.2:80"), 1000, 5000)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{WScale: 0})
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{WScale: 0})
	return c
}

// writeSegs writes segs as an Ethernet pcap named name in a temporary
// directory and returns its path.
func writeSegs(t *testing.T, name string, segs []pcaptest.Segment) string {
	t.Helper()
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkEthernet})
	for _, s := range segs {
		f.Add(s.T, 0, pcaptest.Ethernet(s.IP()))
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// windowView is window's view of path (PlanWindow, no window scale
// assumed) in the range sel.
func windowView(t *testing.T, path string, sel Selection) *View {
	t.Helper()
	o := PlanWindow(sel, Want{})
	o.Analysis.Flows.WScale = -1
	v, err := Analyze(path, sel, o)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestNoteSaysScaleAssumed: the "using conn" note says when --wscale set
// the receiver's window scale because the handshake was not captured,
// and only then.
func TestNoteSaysScaleAssumed(t *testing.T) {
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.2:80"), 1000, 5000)
	t0 := time.Unix(1_700_000_000, 0)
	var segs []pcaptest.Segment
	for i := range 3 {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		segs = append(segs, c.Data(at, pcaptest.C2S, 1000), c.Ack(at.Add(500*time.Microsecond), pcaptest.S2C, c.Next(pcaptest.C2S), 512))
	}
	path := writeSegs(t, "nosyn.pcap", segs)
	for _, ws := range []int{-1, 7} {
		o := PlanWindow(All(), Want{})
		o.Analysis.Flows.WScale = ws
		v, err := Analyze(path, All(), o)
		if err != nil {
			t.Fatal(err)
		}
		note := v.NoteAs("--conn")
		if got := strings.Contains(note, "rwnd with window scale 7 assumed (--wscale)"); got != (ws == 7) {
			t.Errorf("--wscale %d: note %q", ws, note)
		}
	}
}
