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

// TestRecheck: Add records the verdicts NeedsDetail names, at most
// MaxRecheck; Run analyses again only those, with their detail and RTT
// quantiles, reports those that turn Likely in index order, reads no
// standard input again and returns the analysis's error.
func TestRecheck(t *testing.T) {
	path := stallCapture(t, true, true, false)
	rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rc Recheck
	for _, r := range rep.Conns[:2] {
		v := Detect(r, flows.AtoB)
		if v.Likely || !rc.Add(r, v) {
			t.Fatalf("conn %d: Likely %v, not recorded for the second look (%v)", r.Conn.Index, v.Likely, v.Supporting())
		}
	}
	stalled := rep.Conns[2]
	if v := Detect(stalled, flows.AtoB); !v.Likely || rc.Add(stalled, v) {
		t.Fatalf("conn 2 (stall open): Likely %v (%v), or recorded", v.Likely, v.Supporting())
	}
	if rc.Len() != 2 {
		t.Fatalf("Len = %d, want 2", rc.Len())
	}
	// The real second pass: a 1 ms stall stays no PEP.
	if err := rc.Run(path, tcpanalysis.Options{}, nil, func(c int, v Verdict) { t.Errorf("conn %d turned Likely", c) }); err != nil {
		t.Fatal(err)
	}
	// A second pass whose results differ: conn 1 now looks like conn 2.
	var got []int
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
		if v.Dir != flows.AtoB || !v.Likely {
			t.Errorf("conn %d: verdict %+v", c, v)
		}
		got = append(got, c)
	})
	if err != nil || len(got) != 1 || got[0] != 1 {
		t.Errorf("Likely with detail: conns %v (%v), want [1]", got, err)
	}

	if err := rc.Run("-", tcpanalysis.Options{}, func(string, tcpanalysis.Options) (*tcpanalysis.Report, error) {
		t.Error("standard input read again")
		return nil, nil
	}, nil); err != nil {
		t.Errorf("Run(-) = %v", err)
	}
	boom := errors.New("boom")
	if err := rc.Run(path, tcpanalysis.Options{}, func(string, tcpanalysis.Options) (*tcpanalysis.Report, error) { return nil, boom }, nil); !errors.Is(err, boom) {
		t.Errorf("Run with a failing analysis = %v", err)
	}

	// At most MaxRecheck connections wait.
	var full Recheck
	r := rep.Conns[0]
	v := Detect(r, flows.AtoB)
	for i := range MaxRecheck + 1 {
		rr := *r
		rr.Conn = &flows.Conn{Index: i, Half: r.Conn.Half}
		if added := full.Add(&rr, v); added != (i < MaxRecheck) {
			t.Errorf("Add #%d = %v", i, added)
		}
	}
}
