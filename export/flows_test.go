package export

import (
	"bytes"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestFlowsTableRowsOnly: a FlowsFile whose rows the caller built (a live
// capture) needs no Report; the header counts its rows.
func TestFlowsTableRowsOnly(t *testing.T) {
	ff := FlowsFile{File: "eth0", Format: "live", Frames: 10, Segments: 8,
		Conns: []FlowRow{{Conn: 3, AAddr: "10.0.0.1", APort: 1, BAddr: "10.0.0.2", BPort: 2, BytesAB: 1448}}}
	var b bytes.Buffer
	if err := WriteFlowsTable(&b, []FlowsFile{ff}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "eth0: live, 10 frames, 8 TCP segments, 1 connections") || !strings.Contains(out, "10.0.0.1:1") {
		t.Errorf("table:\n%s", out)
	}
}

// TestFlowsTableRetxSegs: the first copy of bytes 1001..2000 was lost
// before the capture point; their retransmission (frame 8, 200 ms later)
// is the only copy the capture holds. It is a retransmission (tcpviz
// retrans lists it: rto) but no byte of it was seen before, so the table's
// retx B a>b is 0 and its retx segs a>b is 1, the count retrans gives.
func TestFlowsTableRetxSegs(t *testing.T) {
	cli, srv := netip.MustParseAddrPort("192.0.2.1:40000"), netip.MustParseAddrPort("198.51.100.1:5201")
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	c := pcaptest.NewConn(cli, srv, 1000, 9000)
	segs := append(c.Handshake(at(0), 20*time.Millisecond),
		c.DataAt(at(21), pcaptest.C2S, 1, 1000),      // 4
		c.DataAt(at(21.2), pcaptest.C2S, 2001, 1000), // 5: 1001..2000 never captured
		c.Ack(at(41), pcaptest.S2C, 1001, 65535),     // 6
		c.Ack(at(41.2), pcaptest.S2C, 1001, 65535),   // 7
		c.DataAt(at(241), pcaptest.C2S, 1001, 1000),  // 8: the retransmission
		c.Ack(at(261), pcaptest.S2C, 3001, 65535),    // 9
	)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "gap.pcap")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := tcpanalysis.Analyze(r, tcpanalysis.Options{Flows: flows.Options{WScale: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Conns[0].Counts[flows.AtoB][tcpanalysis.RTO]; n != 1 {
		t.Fatalf("%d rto events a>b, want 1 (frame 8)", n)
	}
	var b bytes.Buffer
	if err := WriteFlowsTable(&b, []FlowsFile{NewFlowsFile("gap.pcap", rep, false)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	sep := regexp.MustCompile(`\s{2,}`)
	head, row := sep.Split(strings.TrimSpace(lines[1]), -1), sep.Split(strings.TrimSpace(lines[2]), -1)
	cell := map[string]string{}
	for i, h := range head {
		if i < len(row) {
			cell[h] = row[i]
		}
	}
	if cell["retx B a>b"] != "0" || cell["retx segs a>b"] != "1" || cell["retx segs b>a"] != "0" {
		t.Errorf("retx B a>b %q, retx segs a>b %q, b>a %q; want 0, 1, 0\n%s", cell["retx B a>b"], cell["retx segs a>b"], cell["retx segs b>a"], b.String())
	}
	if foot := lines[len(lines)-2]; !strings.Contains(foot, "retx segs = data segments retransmitted, incl. gap fillers whose first copy the capture never saw") {
		t.Errorf("footer does not explain retx segs: %s", foot)
	}
}
