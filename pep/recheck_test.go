package pep

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// stallCapture writes a capture of connections taken next to the sender
// (SYN → SYN-ACK 200 ms, SYN-ACK → ACK 0.1 ms: receiver-hops supports a
// PEP) whose receiver shuts its window at 401 ms; reopen[i] says whether
// connection i's window opens again 1 ms later. The sender's last packet
// is at 1.501 s, so a stall left open lasts 1.1 s (> 4 × the 200 ms toward
// the receiver: zero-window-stall supports too).
func stallCapture(t *testing.T, reopen ...bool) string {
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkRaw})
	srv := netip.MustParseAddrPort("10.9.0.1:80")
	ms := time.Millisecond
	for i, re := range reopen {
		t0 := pcaptest.GenStart.Add(time.Duration(i) * time.Second)
		c := pcaptest.NewConn(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(1 + i)}), 40000), srv, 100, 900)
		segs := []pcaptest.Segment{c.Syn(t0, pcaptest.C2S), c.Syn(t0.Add(200*ms), pcaptest.S2C), c.Ack(t0.Add(200*ms+100*time.Microsecond), pcaptest.C2S, 1, 65535),
			c.Data(t0.Add(201*ms), pcaptest.C2S, 1000), c.Ack(t0.Add(401*ms), pcaptest.S2C, 1001, 0)}
		if re {
			segs = append(segs, c.Ack(t0.Add(402*ms), pcaptest.S2C, 1001, 65535))
		}
		segs = append(segs, c.Ack(t0.Add(1501*ms), pcaptest.C2S, 1, 65535))
		for _, s := range segs {
			f.Add(s.T, 0, s.IP())
		}
	}
	path := filepath.Join(t.TempDir(), "stall.pcap")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRecheck: Add records the verdicts NeedsDetail names (at most
// MaxRecheck) and those the link layer may decide (LinkMatters: an
// on-link acknowledger, here conn 2's, Likely through its stall alone);
// Run analyses again only the first kind, with their detail and RTT
// quantiles, reads the link layer (none in this raw-IP capture) and gives
// every recorded connection's final verdict in index order; it reads no
// standard input again and returns the analysis's error, giving the first
// pass's verdicts then.
func TestRecheck(t *testing.T) {
	path := stallCapture(t, true, true, false)
	rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rc Recheck
	for _, r := range rep.Conns[:2] {
		v := Detect(r, flows.AtoB)
		if v.Likely || !NeedsDetail(r, flows.AtoB, v) || !rc.Add(r, v) {
			t.Fatalf("conn %d: Likely %v, not recorded for the second look (%v)", r.Conn.Index, v.Likely, v.Supporting())
		}
	}
	stalled := rep.Conns[2]
	if v := Detect(stalled, flows.AtoB); !v.Likely || !v.LinkMatters() || !rc.Add(stalled, v) {
		t.Fatalf("conn 2 (stall open): Likely %v (%v), LinkMatters %v, or not recorded", v.Likely, v.Supporting(), v.LinkMatters())
	}
	if rc.Len() != 3 {
		t.Fatalf("Len = %d, want 3", rc.Len())
	}
	// The real second pass: a 1 ms stall is no stall, and the on-link
	// acknowledger stays undecided (no link layer): Possible; conn 2 stays
	// Likely.
	want := map[int]string{0: "possible", 1: "possible", 2: "likely"}
	state := func(v Verdict) string {
		switch {
		case v.Likely:
			return "likely"
		case v.Possible:
			return "possible"
		}
		return "none"
	}
	var order []int
	if err := rc.Run(path, tcpanalysis.Options{}, nil, func(c int, v Verdict) {
		order = append(order, c)
		if state(v) != want[c] {
			t.Errorf("conn %d: %s (%v), want %s", c, state(v), v.Supporting(), want[c])
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(order) != 3 || order[0] != 0 || order[2] != 2 {
		t.Errorf("verdicts given for %v, want [0 1 2]", order)
	}
	// A second pass whose results differ: conn 1 now looks like conn 2.
	got := map[int]string{}
	err = rc.Run(path, tcpanalysis.Options{}, func(p string, o tcpanalysis.Options) (*tcpanalysis.Report, error) {
		if p != path || !o.Keep(0) || !o.Keep(1) || o.Keep(2) || !o.RTTQuantiles {
			t.Errorf("second pass of %s: Keep 0 %v, 1 %v, 2 %v, RTTQuantiles %v", p, o.Keep(0), o.Keep(1), o.Keep(2), o.RTTQuantiles)
		}
		r1 := *stalled
		r1.Conn = &flows.Conn{Index: 1, Half: stalled.Conn.Half, Last: stalled.Conn.Last}
		o.OnDone(&r1, capture.Timestamp(0))
		o.OnDone(rep.Conns[0], capture.Timestamp(0))
		return &tcpanalysis.Report{}, nil
	}, func(c int, v Verdict) {
		if v.Dir != flows.AtoB {
			t.Errorf("conn %d: verdict %+v", c, v)
		}
		got[c] = state(v)
	})
	if err != nil || got[0] != "possible" || got[1] != "likely" || got[2] != "likely" {
		t.Errorf("with detail: %v (%v), want conn 1 likely", got, err)
	}

	first := map[int]string{}
	if err := rc.Run("-", tcpanalysis.Options{}, func(string, tcpanalysis.Options) (*tcpanalysis.Report, error) {
		t.Error("standard input read again")
		return nil, nil
	}, func(c int, v Verdict) { first[c] = state(v) }); err != nil || len(first) != 3 || first[2] != "likely" {
		t.Errorf("Run(-) = %v, verdicts %v", err, first)
	}
	boom := errors.New("boom")
	if err := rc.Run(path, tcpanalysis.Options{}, func(string, tcpanalysis.Options) (*tcpanalysis.Report, error) { return nil, boom }, func(int, Verdict) {}); !errors.Is(err, boom) {
		t.Errorf("Run with a failing analysis = %v", err)
	}

	// At most MaxRecheck connections wait for their detail; one more is
	// held for the link layer only.
	var full Recheck
	r := rep.Conns[0]
	v := Detect(r, flows.AtoB)
	for i := range MaxRecheck + 1 {
		rr := *r
		rr.Conn = &flows.Conn{Index: i, Half: r.Conn.Half}
		if !full.Add(&rr, v) {
			t.Errorf("Add #%d = false", i)
		}
	}
	if len(full.detail) != MaxRecheck || len(full.link) != 1 {
		t.Errorf("detail %d, link %d; want %d, 1", len(full.detail), len(full.link), MaxRecheck)
	}
}
