package tcpanalysis

import (
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// chainCapture writes the capture of node N, the receiver of flow
// S:40000 → N:5001 over the chain S — R — N, as ns-3 writes a node's
// radiotap pcap: N's transmissions without an antenna signal, what its
// radio decodes with one. N is within range of S, so it overhears every
// frame S sends to R and every ACK R forwards to S (802.11 receiver
// address another node's). Frame by frame (ms after t0):
//
//	 1 10.0    S→R SYN               overheard    2 11.1  R→N SYN          addressed
//	 3 20.0    N→R SYN-ACK           sent         4 21.1  R→S SYN-ACK      overheard
//	 5 30.1    S→R ACK               overheard    6 31.1  R→N ACK          addressed
//	 7 40.1    S→R 1:1001            overheard    8 41.1  R→N 1:1001       addressed
//	 9 45.0    N→R ACK 1001          sent        10 46.1  R→S ACK 1001     overheard
//	11 50.1    S→R 1001:2001         overheard   (R's forward to N is lost)
//	12 60.1    S→R 2001:3001         overheard   13 61.1  R→N 2001:3001    addressed
//	14 65.0    N→R ACK 1001 SACK 2001-3001 sent  15 66.1  R→S the same     overheard
//	16 1060.1  S→R 1001:2001 again   overheard   17 1061.1 R→N 1001:2001   addressed
//	18 1070.0  N→R ACK 3001          sent        19 1071.1 R→S ACK 3001    overheard
func chainCapture(t *testing.T) string {
	t.Helper()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	macS, macR, macN := pcaptest.MAC{2, 0, 0, 0, 0, 1}, pcaptest.MAC{2, 0, 0, 0, 0, 2}, pcaptest.MAC{2, 0, 0, 0, 0, 3}
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRadiotap})
	at := func(us int) time.Time { return t0.Add(time.Duration(us) * time.Microsecond) }
	sent := func(us int, ra pcaptest.MAC, s pcaptest.Segment, ttl uint8) {
		s.TTL = ttl
		// An 8-byte radiotap header with no field: a frame N's radio sent.
		f.Add(at(us), 0, append([]byte{0, 0, 8, 0, 0, 0, 0, 0}, pcaptest.Dot11{TA: macN, RA: ra}.Frame(s.IP())...))
	}
	heard := func(us int, ta, ra pcaptest.MAC, s pcaptest.Segment, ttl uint8) {
		s.TTL = ttl
		f.Add(at(us), 0, pcaptest.Radiotap(pcaptest.Dot11{TA: ta, RA: ra}.Frame(s.IP()), false))
	}
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.3:5001"), 1000, 7000)
	// toN: S sends s to R (N overhears it); R forwards it to N unless lost.
	toN := func(ms int, s pcaptest.Segment, lost bool) {
		heard(ms*1000+100, macS, macR, s, 64)
		if !lost {
			heard(ms*1000+1100, macR, macN, s, 63)
		}
	}
	// toS: N sends s to R; R forwards it to S (N overhears it).
	toS := func(ms int, s pcaptest.Segment) {
		sent(ms*1000, macR, s, 64)
		heard(ms*1000+1100, macR, macS, s, 63)
	}
	toN(10, c.Syn(t0, pcaptest.C2S), false)
	toS(20, c.Syn(t0, pcaptest.S2C))
	toN(30, c.Ack(t0, pcaptest.C2S, 1, 65535), false)
	toN(40, c.Data(t0, pcaptest.C2S, 1000), false)
	toS(45, c.Ack(t0, pcaptest.S2C, 1001, 65535))
	toN(50, c.Data(t0, pcaptest.C2S, 1000), true)
	toN(60, c.Data(t0, pcaptest.C2S, 1000), false)
	toS(65, c.Ack(t0, pcaptest.S2C, 1001, 65535, [2]uint32{2001, 3001}))
	toN(1060, c.DataAt(t0, pcaptest.C2S, 1001, 1000), false)
	toS(1070, c.Ack(t0, pcaptest.S2C, 3001, 65535))
	p := filepath.Join(t.TempDir(), "n.pcap")
	if err := f.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReceiverOwnFrames: at the receiver's node, frames addressed to
// other nodes are overheard, not received (docs/metrics.md#own-frames).
// N's own view holds the 5 data-direction frames R sent it and N's 4
// ACKs: the segment 1001:2001 reached N only once, 1 s late, filling the
// hole that 2001:3001 opened (a lost_segment there, a gap-filling fast
// retransmission at frame 17, no byte received twice). The air view
// takes S's frames to R, which N only overheard, for receptions: 6
// segments, 1000 bytes "received twice" (frame 16), no hole.
func TestReceiverOwnFrames(t *testing.T) {
	path := chainCapture(t)
	type want struct {
		pkts, bytes, unique, retxB, retxSegs, ooo, folded, overheard, delivered [2]int64
		events                                                                  []Event
	}
	for _, tc := range []struct {
		name string
		air  bool
		want want
	}{
		{"node view", false, want{
			pkts: [2]int64{5, 4}, bytes: [2]int64{3000, 0}, unique: [2]int64{3000, 0}, retxB: [2]int64{0, 0}, retxSegs: [2]int64{1, 0},
			folded: [2]int64{0, 0}, overheard: [2]int64{10, 10}, delivered: [2]int64{3000, 0},
			events: []Event{
				{Frame: 13, Class: LostSegment, Seq: 2001, Len: 1000},
				{Frame: 14, Class: DupAck, Seq: 1001},
				{Frame: 17, Class: Fast, Seq: 1001, Len: 1000, Evidence: EvSACK},
			},
		}},
		{"air view", true, want{
			pkts: [2]int64{6, 4}, bytes: [2]int64{4000, 0}, unique: [2]int64{3000, 0}, retxB: [2]int64{1000, 0}, retxSegs: [2]int64{1, 0},
			folded: [2]int64{9, 9}, overheard: [2]int64{0, 0}, delivered: [2]int64{3000, 0},
			events: []Event{
				{Frame: 14, Class: DupAck, Seq: 1001},
				{Frame: 16, Class: Fast, Seq: 1001, Len: 1000, Original: 11, Evidence: EvSACK},
			},
		}},
	} {
		rep, err := AnalyzeFile(path, Options{Detail: true, AirView: tc.air})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Node.Known || len(rep.Node.MACs) != 1 || rep.Node.MACs[0] != [6]byte{2, 0, 0, 0, 0, 3} || rep.Node.Sent != 4 || rep.Node.Received != 15 {
			t.Fatalf("%s: node %+v, want N's MAC 02:00:00:00:00:03 from 4 frames sent of 19", tc.name, rep.Node)
		}
		if len(rep.Conns) != 1 {
			t.Fatalf("%s: %d connections, want 1", tc.name, len(rep.Conns))
		}
		r := rep.Conns[0]
		if rep.Overheard != tc.want.overheard[0] || r.Conn.Overheard != tc.want.overheard[1] {
			t.Errorf("%s: overheard %d (conn %d), want %d", tc.name, rep.Overheard, r.Conn.Overheard, tc.want.overheard[0])
		}
		if r.Conn.Folded != tc.want.folded[0] {
			t.Errorf("%s: folded %d, want %d", tc.name, r.Conn.Folded, tc.want.folded[0])
		}
		for d := range 2 {
			st := r.Dir[d]
			got := [...]int64{st.Pkts, st.Bytes, st.Unique, st.RetxBytes, st.RetxSegs, st.OOOSegs, st.DeliveredBytes}
			w := [...]int64{tc.want.pkts[d], tc.want.bytes[d], tc.want.unique[d], tc.want.retxB[d], tc.want.retxSegs[d], tc.want.ooo[d], tc.want.delivered[d]}
			if got != w {
				t.Errorf("%s: dir %s pkts, bytes, unique, retx B, retx segs, ooo, delivered = %v, want %v", tc.name, flows.Direction(d), got, w)
			}
		}
		var evs []Event
		for _, e := range r.Events {
			evs = append(evs, Event{Frame: e.Frame, Class: e.Class, Seq: e.Seq, Len: e.Len, Original: e.Original, Evidence: e.Evidence})
		}
		if len(evs) != len(tc.want.events) {
			t.Fatalf("%s: events %+v, want %+v", tc.name, evs, tc.want.events)
		}
		for i := range evs {
			if evs[i] != tc.want.events[i] {
				t.Errorf("%s: event %d = %+v, want %+v", tc.name, i, evs[i], tc.want.events[i])
			}
		}
	}
}

// TestSenderOverheardAck: at the sender S of the chain S — R — N, N's ACK
// of 1001 to R is overheard (frame 9) before S's retransmission timer
// resends 1:1001 (frame 10) and before R forwards the ACK to S (frame
// 11). S had not received the ACK, but N had sent it: the retransmission
// was spurious, by evidence acked_overheard; the air view calls it
// spurious by acked, as if S had received the ACK
// (docs/metrics.md#own-frames). Frames (ms): 1 S→R SYN (sent), 2 R→N SYN,
// 3 N→R SYN-ACK, 4 R→S SYN-ACK (addressed), 5 S→R ACK (sent), 6 R→N ACK,
// 7 S→R 1:1001 (sent), 8 R→N 1:1001, 9 N→R ACK 1001, 10 S→R 1:1001 again
// (sent), 11 R→S ACK 1001 (addressed).
func TestSenderOverheardAck(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	macS, macR, macN := pcaptest.MAC{2, 0, 0, 0, 0, 1}, pcaptest.MAC{2, 0, 0, 0, 0, 2}, pcaptest.MAC{2, 0, 0, 0, 0, 3}
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRadiotap})
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	sent := func(ms int, s pcaptest.Segment) {
		f.Add(at(ms), 0, append([]byte{0, 0, 8, 0, 0, 0, 0, 0}, pcaptest.Dot11{TA: macS, RA: macR}.Frame(s.IP())...))
	}
	heard := func(ms int, ta, ra pcaptest.MAC, s pcaptest.Segment, ttl uint8) {
		s.TTL = ttl
		f.Add(at(ms), 0, pcaptest.Radiotap(pcaptest.Dot11{TA: ta, RA: ra}.Frame(s.IP()), false))
	}
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.3:5001"), 1000, 7000)
	syn := c.Syn(t0, pcaptest.C2S)
	sent(10, syn)
	heard(11, macR, macN, syn, 63)
	synack := c.Syn(t0, pcaptest.S2C)
	heard(20, macN, macR, synack, 64)
	heard(21, macR, macS, synack, 63)
	ack := c.Ack(t0, pcaptest.C2S, 1, 65535)
	sent(30, ack)
	heard(31, macR, macN, ack, 63)
	d := c.Data(t0, pcaptest.C2S, 1000)
	sent(40, d)
	heard(41, macR, macN, d, 63)
	a := c.Ack(t0, pcaptest.S2C, 1001, 65535)
	heard(60, macN, macR, a, 64)
	sent(300, c.DataAt(t0, pcaptest.C2S, 1, 1000))
	heard(310, macR, macS, a, 63)
	path := filepath.Join(t.TempDir(), "s.pcap")
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		air       bool
		pkts      [2]int64
		overheard int64
		ev        Evidence
		original  int64 // 0 when the bytes were acknowledged: no longer outstanding
	}{
		{"node view", false, [2]int64{4, 2}, 5, EvAckedOverheard, 7},
		{"air view", true, [2]int64{4, 2}, 0, EvAcked, 0},
	} {
		rep, err := AnalyzeFile(path, Options{Detail: true, AirView: tc.air})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Conns) != 1 {
			t.Fatalf("%s: %d connections, want 1", tc.name, len(rep.Conns))
		}
		r := rep.Conns[0]
		if got := [2]int64{r.Dir[0].Pkts, r.Dir[1].Pkts}; got != tc.pkts || rep.Overheard != tc.overheard || r.Dir[0].DeliveredBytes != 1000 {
			t.Errorf("%s: pkts %v, overheard %d, delivered %d; want %v, %d, 1000", tc.name, got, rep.Overheard, r.Dir[0].DeliveredBytes, tc.pkts, tc.overheard)
		}
		want := Event{Frame: 10, Class: Spurious, Seq: 1, Len: 1000, Original: tc.original, Evidence: tc.ev}
		if len(r.Events) != 1 {
			t.Fatalf("%s: events %+v, want only %+v", tc.name, r.Events, want)
		}
		e := r.Events[0]
		if got := (Event{Frame: e.Frame, Class: e.Class, Seq: e.Seq, Len: e.Len, Original: e.Original, Evidence: e.Evidence}); got != want {
			t.Errorf("%s: event %+v, want %+v", tc.name, got, want)
		}
	}
}
