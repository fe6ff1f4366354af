package tcpanalysis

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// retxEvents lists "frame:class:evidence:seq:len:original" of r's
// retransmission events in direction d.
func retxEvents(r *ConnResult, d flows.Direction) string {
	var out []string
	for _, e := range r.Events {
		if e.Dir == d && e.Class.IsRetransmission() {
			out = append(out, fmt.Sprintf("%d:%s:%s:%d:%d:%d", e.Frame, e.Class, e.Evidence, e.Seq, e.Len, e.Original))
		}
	}
	return strings.Join(out, " ")
}

// TestControlRetransmissions: a SYN-ACK, a FIN carried on data and a bare
// FIN, each sent again at the same sequence number, are retransmissions
// classed by the rules data follows (docs/metrics.md#events), one event per
// segment; the bare SYN-ACK and FIN events have len 0 and the SYN's (FIN's)
// sequence number, and their segments are KindRetransmitted. A capture at
// the server, with timestamps (TSval = base + ms).
func TestControlRetransmissions(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
	segs := []pcaptest.Segment{
		c.Syn(vms(0), pcaptest.C2S),                 // 1
		c.Syn(vms(0.1), pcaptest.S2C),               // 2: SYN-ACK
		c.Syn(vms(1000.1), pcaptest.S2C),            // 3: SYN-ACK again: the timer
		c.Ack(vms(1050), pcaptest.C2S, 1, 65535),    // 4
		c.DataAt(vms(1051), pcaptest.C2S, 1, 1000),  // 5
		c.DataAt(vms(1052), pcaptest.C2S, 1001, 10), // 6: the last data, with the FIN (1011)
		c.Ack(vms(1052.1), pcaptest.S2C, 1001, 65535),
		c.DataAt(vms(1400), pcaptest.C2S, 1001, 10), // 8: data + FIN again: rto
		c.Ack(vms(1450), pcaptest.S2C, 1012, 65535), // 9: covers 8 (echoes it)
		c.Fin(vms(1451), pcaptest.S2C),              // 10: server's bare FIN at 1
		c.DataAt(vms(1700), pcaptest.S2C, 1, 0),     // 11: the FIN again
		c.Ack(vms(1701), pcaptest.C2S, 2, 65535),    // 12: echoes frame 10's TSval: 11 was not needed
	}
	segs[5].Flags |= pcaptest.FIN
	segs[7].Flags |= pcaptest.FIN
	segs[10].Flags |= pcaptest.FIN
	segs[11].TSecr = segs[9].TSval
	r := analyzeSegs(t, segs).Conns[0]
	if got, want := retxEvents(r, flows.AtoB), "8:rto:no_signal:1001:10:6"; got != want {
		t.Errorf("a→b retransmissions %q, want %q", got, want)
	}
	if got, want := retxEvents(r, flows.BtoA), "3:rto:no_signal:0:0:2 11:spurious:tsecr:1:0:10"; got != want {
		t.Errorf("b→a retransmissions %q, want %q", got, want)
	}
	a, b := r.Dir[flows.AtoB], r.Dir[flows.BtoA]
	// Data counts hold payload only: the FIN on frame 8 is in fin_retx,
	// the segment once in retx_segs; bare SYN/FIN resends in neither.
	if a.RetxSegs != 1 || a.RetxBytes != 10 || a.FinRetx != 1 || b.RetxSegs != 0 || b.SynRetx != 1 || b.FinRetx != 1 {
		t.Errorf("a retx %d segs %d B, fin_retx %d; b retx %d segs, synack_retx %d, fin_retx %d; want 1 10 1, 0 1 1",
			a.RetxSegs, a.RetxBytes, a.FinRetx, b.RetxSegs, b.SynRetx, b.FinRetx)
	}
	if r.Counts[flows.AtoB][RTO] != 1 || r.Counts[flows.BtoA][RTO] != 1 || r.Counts[flows.BtoA][Spurious] != 1 {
		t.Errorf("counts a rto %d, b rto %d spurious %d; want 1, 1, 1", r.Counts[flows.AtoB][RTO], r.Counts[flows.BtoA][RTO], r.Counts[flows.BtoA][Spurious])
	}
	kinds := map[int64]SegKind{}
	for d := range r.Series.Segs {
		for _, s := range r.Series.Segs[d] {
			kinds[s.Frame] = s.Kind
		}
	}
	for f, want := range map[int64]SegKind{2: KindNew, 3: KindRetransmitted, 6: KindNew, 8: KindRetransmitted, 10: KindNew, 11: KindRetransmitted} {
		if kinds[f] != want {
			t.Errorf("frame %d: segment class %s, want %s", f, kinds[f], want)
		}
	}
}

// TestFinRetransmissionInCorpus: zeek-http-no-crlf frame 1516 repeats the
// server's FIN (frame 1514, relative seq 1483946) 168 ms after the client's
// ACK of it (frame 1515, ack 1483947) was captured: a retransmission, which
// tshark flags too; spurious by the acked rule (the capture point saw the
// FIN acknowledged before the copy).
func TestFinRetransmissionInCorpus(t *testing.T) {
	path := filepath.Join(sharedDir(t), "corpus", "zeek-http-no-crlf.pcap")
	rep, err := AnalyzeFile(path, Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Conns[0]
	if got, want := retxEvents(r, flows.BtoA), "1516:spurious:acked:1483946:0:1514"; got != want {
		t.Errorf("b→a retransmissions %q, want %q", got, want)
	}
	if r.Dir[flows.BtoA].FinRetx != 1 || r.Dir[flows.BtoA].RetxSegs != 0 {
		t.Errorf("fin_retx %d, retx_segs %d; want 1, 0", r.Dir[flows.BtoA].FinRetx, r.Dir[flows.BtoA].RetxSegs)
	}
}

// TestSynRetransmittedStaysSynOnly: a SYN sent three times (one ISN) and
// never answered is two rto events (frames 2 and 3, original frame 1),
// and the connection is still bare SYNs only (no direction state), so a
// flood of such retries is ended under table pressure like single SYNs
// (docs/robustness.md).
func TestSynRetransmittedStaysSynOnly(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, ms := range []float64{0, 1000, 3000} {
		s := c.Syn(vms(ms), pcaptest.C2S)
		f.Add(s.T, 0, s.IP())
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "syns.pcap")
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{KeepEvents: true})
	var s capture.Segment
	for r.Next(&s) == nil {
		a.Add(&s)
	}
	if len(a.live) != 1 || !a.live[0].synOnly() {
		t.Fatalf("%d live connections, synOnly %v; want 1, true", len(a.live), len(a.live) == 1 && a.live[0].synOnly())
	}
	cr := &a.live[0].ConnResult
	if got, want := retxEvents(cr, flows.AtoB), "2:rto:no_signal:0:0:1 3:rto:no_signal:0:0:1"; got != want || cr.Dir[flows.AtoB].SynRetx != 2 {
		t.Errorf("events %q (syn_retx %d), want %q (2)", got, cr.Dir[flows.AtoB].SynRetx, want)
	}
}

// TestControlRetransmissionOriginal: a control retransmission names its
// first copy whenever the capture saw it, acknowledged or not
// (docs/schema.md#retrans). The SYN-ACK sent again after the client's ACK
// (frame 4 repeats frame 2; ns-3 tcp-aodv-r1-2-0 frame 1367 repeats 1220)
// is spurious by the acked rule with original_frame 2, as a FIN repeated
// after its ACK is (zeek-http-no-crlf 1516 → 1514); before, the
// handshake's state was freed by the ACK and the SYN-ACK's original was
// empty. CtlRetx counts the bare SYN-ACK and FIN resends, RetxSegs neither.
func TestControlRetransmissionOriginal(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := []pcaptest.Segment{
		c.Syn(vms(0), pcaptest.C2S),              // 1
		c.Syn(vms(10), pcaptest.S2C),             // 2: SYN-ACK
		c.Ack(vms(20), pcaptest.C2S, 1, 65535),   // 3: acknowledges it
		c.Syn(vms(1010), pcaptest.S2C),           // 4: SYN-ACK again after its ACK
		c.Fin(vms(1100), pcaptest.S2C),           // 5: server's FIN at 1
		c.Ack(vms(1110), pcaptest.C2S, 2, 65535), // 6: acknowledges it
		c.DataAt(vms(1300), pcaptest.S2C, 1, 0),  // 7: the FIN again
	}
	segs[6].Flags |= pcaptest.FIN
	r := analyzeSegs(t, segs).Conns[0]
	if got, want := retxEvents(r, flows.BtoA), "4:spurious:acked:0:0:2 7:spurious:acked:1:0:5"; got != want {
		t.Errorf("b→a retransmissions %q, want %q", got, want)
	}
	if b := r.Dir[flows.BtoA]; b.CtlRetx != 2 || b.SynRetx != 1 || b.FinRetx != 1 || b.RetxSegs != 0 {
		t.Errorf("b ctl_retx %d, synack_retx %d, fin_retx %d, retx_segs %d; want 2 1 1 0", b.CtlRetx, b.SynRetx, b.FinRetx, b.RetxSegs)
	}
}
