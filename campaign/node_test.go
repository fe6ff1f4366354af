package campaign

import (
	"context"
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// air scripts the 802.11 channel of a small ad-hoc network: every
// transmission goes into the transmitter's capture as its own (radiotap
// without antenna signal, as ns-3 writes a node's transmissions) and into
// the captures of the nodes that decode it as received (with a signal).
type air struct {
	t0    time.Time
	nodes []*pcaptest.File
}

// mac is node i's 802.11 address, ip its IPv4 address (10.0.0.i+1).
func mac(i int) pcaptest.MAC { return pcaptest.MAC{2, 0, 0, 0, 0, byte(i + 1)} }
func ip(i int) netip.Addr    { return netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}) }

var broadcast = pcaptest.MAC{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

func newAir(n int) *air {
	a := &air{t0: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for i := 0; i < n; i++ {
		a.nodes = append(a.nodes, pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRadiotap}))
	}
	return a
}

// radiotapTx is an 8-byte radiotap header with no fields: what a node's
// capture holds for a frame its radio sent.
func radiotapTx(dot11 []byte) []byte {
	return append([]byte{0, 0, 8, 0, 0, 0, 0, 0}, dot11...)
}

// send puts IP packet p, sent by node from to 802.11 receiver ra at ms
// milliseconds, into from's capture and into the captures of heard.
func (a *air) send(ms int, from int, ra pcaptest.MAC, p []byte, heard ...int) {
	ts := a.t0.Add(time.Duration(ms) * time.Millisecond)
	f := pcaptest.Dot11{TA: mac(from), RA: ra}.Frame(p)
	a.nodes[from].Add(ts, 0, radiotapTx(f))
	for _, h := range heard {
		a.nodes[h].Add(ts.Add(100*time.Microsecond), 0, pcaptest.Radiotap(f, false))
	}
}

// hello is a routing protocol's broadcast from node i (UDP, TTL 1).
func hello(i int) []byte {
	b := []byte{0x45, 0, 0, 28, 0, 0, 0, 0, 1, 17, 0, 0}
	s, d := ip(i).As4(), [4]byte{255, 255, 255, 255}
	b = append(append(b, s[:]...), d[:]...)
	b = binary.BigEndian.AppendUint16(b, 654)
	b = binary.BigEndian.AppendUint16(b, 654)
	return append(b, 0, 8, 0, 0)
}

// seg returns segment s as an IP packet with TTL ttl.
func seg(s pcaptest.Segment, ttl uint8) []byte {
	s.TTL = ttl
	return s.IP()
}

// write writes node i's capture as DIR/run-i-0.pcap (ns-3's PREFIX-NODE-DEV
// naming, so that the captures form one run) unless skip holds i.
func (a *air) write(t *testing.T, dir string, skip ...int) []string {
	t.Helper()
	var out []string
	for i, f := range a.nodes {
		if containsInt(skip, i) {
			continue
		}
		p := filepath.Join(dir, "run-"+string(rune('0'+i))+"-0.pcap")
		if err := f.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Nodes of the chain: S sends to N through relay R; O hears R and N.
const (
	nodeS = iota
	nodeR
	nodeN
	nodeO
)

// chain scripts flow S:40000 → N:5001 over the chain S — R — N with O
// overhearing R and N: handshake, three 1000-byte segments of which N
// decodes the first two (O decodes all three), N's ACK of 2000 bytes
// relayed back to S; N hears R forward its own ACK (TTL 63). Every node
// sends a routing hello.
func chain() *air {
	a := newAir(4)
	c := pcaptest.NewConn(netip.AddrPortFrom(ip(nodeS), 40000), netip.AddrPortFrom(ip(nodeN), 5001), 1000, 7000)
	toN := func(ms int, s pcaptest.Segment, nHears bool) {
		a.send(ms, nodeS, mac(nodeR), seg(s, 64), nodeR)
		heard := []int{nodeO, nodeS}
		if nHears {
			heard = append(heard, nodeN)
		}
		a.send(ms+1, nodeR, mac(nodeN), seg(s, 63), heard...)
	}
	toS := func(ms int, s pcaptest.Segment) {
		a.send(ms, nodeN, mac(nodeR), seg(s, 64), nodeR, nodeO)
		a.send(ms+1, nodeR, mac(nodeS), seg(s, 63), nodeS, nodeO, nodeN)
	}
	for i := range a.nodes {
		a.send(i, i, broadcast, hello(i), (i+1)%4, (i+3)%4)
	}
	toN(10, c.Syn(a.t0, pcaptest.C2S), true)
	toS(20, c.Syn(a.t0, pcaptest.S2C))
	toN(30, c.Ack(a.t0, pcaptest.C2S, 1, 65535), true)
	toN(40, c.Data(a.t0, pcaptest.C2S, 1000), true)
	toN(50, c.Data(a.t0, pcaptest.C2S, 1000), true)
	toN(60, c.Data(a.t0, pcaptest.C2S, 1000), false) // N misses it, O decodes it
	toS(70, c.Ack(a.t0, pcaptest.S2C, 2001, 65535))
	return a
}

// TestVantageByNodeIdentity: each capture of the chain is classified by
// its node's identity — S's as sender, R's as relay, O's as overheard,
// N's as receiver — and the flow is read from N's capture: 2000 bytes,
// not O's 3000 (O decoded a segment addressed to N that N never got).
func TestVantageByNodeIdentity(t *testing.T) {
	dir := t.TempDir()
	files := chain().write(t, dir)
	// O decoded 3000 bytes in frames addressed to N (the air view counts
	// them as delivered on 802.11), S "delivered" 3000 to its next hop:
	// off the receiver's node only the 2000 acknowledged bytes count.
	if rep, err := tcpanalysis.AnalyzeFile(files[nodeO], tcpanalysis.Options{AirView: true}); err != nil || len(rep.Conns) != 1 || rep.Conns[0].Dir[0].DeliveredBytes != 3000 {
		t.Fatalf("O's capture, air view: %v; want one connection with 3000 bytes delivered to N's MAC", err)
	}
	// O's own view (docs/metrics.md#own-frames): every one of its 9
	// frames of the connection (R's five forwards to N, N's two segments
	// to R, R's two forwards to S) was addressed to another node; only
	// the overheard ACK of 2000 bytes still counts, as N's statement.
	if rep, err := tcpanalysis.AnalyzeFile(files[nodeO], tcpanalysis.Options{}); err != nil || len(rep.Conns) != 1 || rep.Conns[0].Dir[0].DeliveredBytes != 2000 ||
		rep.Overheard != 9 || rep.OnlyOverheard != 1 || rep.Conns[0].Dir[0].Pkts+rep.Conns[0].Dir[1].Pkts != 0 {
		t.Fatalf("O's capture, node view: %v; want one connection of 9 overheard frames, 2000 bytes acknowledged", err)
	}
	want := map[string]Vantage{"run-0-0.pcap": AtSender, "run-1-0.pcap": Relay, "run-2-0.pcap": AtReceiver, "run-3-0.pcap": Overheard}
	for _, f := range files {
		rows, fi, err := fileRows(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := filepath.Base(f)
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows, want 1", b, len(rows))
		}
		r := rows[0]
		if r.Src != "10.0.0.1" || r.Dst != "10.0.0.3" || r.Vantage != want[b] || r.Bytes != 2000 {
			t.Errorf("%s: %s → %s, vantage %s, %d bytes; want 10.0.0.1 → 10.0.0.3, %s, 2000", b, r.Src, r.Dst, r.Vantage, r.Bytes, want[b])
		}
		node := int(b[4] - '0')
		if !fi.identity || len(fi.own) != 1 || fi.own[0] != ip(node) {
			t.Errorf("%s: identity %v, own addresses %v; want [%s]", b, fi.identity, fi.own, ip(node))
		}
	}
	res, err := Goodput(context.Background(), files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(res.Rows))
	}
	r := res.Rows[0]
	if filepath.Base(r.File) != "run-2-0.pcap" || r.Vantage != AtReceiver || r.Bytes != 2000 || r.Captures != 4 {
		t.Errorf("row from %s, %s, %d bytes, %d captures; want run-2-0.pcap, receiver, 2000, 4", filepath.Base(r.File), r.Vantage, r.Bytes, r.Captures)
	}
	if len(res.VantageWarnings) != 0 {
		t.Errorf("warnings %q, want none", res.VantageWarnings)
	}
}

// noRoute scripts flow S:40000 → N:5001 whose SYNs (at 10 ms and 3 s)
// reach the relay R, which finds no route and forwards nothing: N's
// capture holds only N's hello.
func noRoute() *air {
	a := newAir(4)
	c := pcaptest.NewConn(netip.AddrPortFrom(ip(nodeS), 40000), netip.AddrPortFrom(ip(nodeN), 5001), 1000, 7000)
	for i := range a.nodes {
		a.send(i, i, broadcast, hello(i), (i+1)%4, (i+3)%4)
	}
	syn := c.Syn(a.t0, pcaptest.C2S)
	a.send(10, nodeS, mac(nodeR), seg(syn, 64), nodeR)
	a.send(3010, nodeS, mac(nodeR), seg(syn, 64), nodeR)
	return a
}

// sinkLost is chain with N's capture holding only its hello and R's: a
// capture that lost the flow (written elsewhere, cut before it).
func sinkLost() *air {
	a := chain()
	a.nodes[nodeN] = pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRadiotap})
	a.send(0, nodeN, broadcast, hello(nodeN))
	a.nodes[nodeN].Add(a.t0.Add(2*time.Millisecond), 0, pcaptest.Radiotap(pcaptest.Dot11{TA: mac(nodeR), RA: broadcast}.Frame(hello(nodeR)), false))
	return a
}

// TestVantageSinkMissing: without N's capture the chain's flow is read
// from S's (the sender ranks above the relay and the overhearing O), and a
// warning says no capture was taken on N, also for a flow that delivered
// nothing (no route); with N's capture holding none of the flow while S
// saw 2000 bytes acknowledged, the warning names N's capture. When N's
// capture holds none of a flow that delivered nothing, the 0-byte row is
// consistent and only noted; R's capture, whose
// radio received the SYNs addressed to it, is a relay's.
func TestVantageSinkMissing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		air   *air
		skip  []int
		bytes int64
		caps  int
		why   string
	}{
		{"absent", chain(), []int{nodeN}, 2000, 3, "no capture of the run was taken on the receiver's node"},
		{"absent, no route", noRoute(), []int{nodeN}, 0, 2, "no capture of the run was taken on the receiver's node"},
		{"holds none", sinkLost(), nil, 2000, 3, "the capture of the receiver's node, run-2-0.pcap, holds none of it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := tc.air.write(t, t.TempDir(), tc.skip...)
			res, err := Goodput(context.Background(), files, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != 1 {
				t.Fatalf("%d rows, want 1", len(res.Rows))
			}
			r := res.Rows[0]
			if filepath.Base(r.File) != "run-0-0.pcap" || r.Vantage != AtSender || r.Bytes != tc.bytes || r.Captures != tc.caps {
				t.Errorf("row from %s, %s, %d bytes, %d captures; want run-0-0.pcap, sender, %d, %d", filepath.Base(r.File), r.Vantage, r.Bytes, r.Captures, tc.bytes, tc.caps)
			}
			if len(res.VantageWarnings) != 2 || !strings.Contains(res.VantageWarnings[0].String(), "10.0.0.1:40000 → 10.0.0.3:5001 is read from run-0-0.pcap (vantage sender)") ||
				!strings.Contains(res.VantageWarnings[0].String(), tc.why) || !strings.HasPrefix(res.VantageWarnings[1].Text.String(), "1 flows in 1 runs") || res.VantageWarnings[1].Kind != WarnVantage {
				t.Errorf("warnings %q; want the flow named with %q, then the summary", res.VantageWarnings, tc.why)
			}
		})
	}
	// N's capture holds none of the flow: with nothing delivered the row
	// is consistent and only counted in a note.
	files := noRoute().write(t, t.TempDir())
	res, err := Goodput(context.Background(), files, Options{})
	if err != nil || len(res.Rows) != 1 || res.Rows[0].Vantage != AtSender || len(res.VantageWarnings) != 0 ||
		len(res.VantageNotes) != 1 || res.VantageNotes[0].Severity != Note || !strings.HasPrefix(res.VantageNotes[0].Text.String(), "1 flow reached no receiver: their receiver's capture holds none of them") {
		t.Errorf("no route: %v, %d rows, warnings %q, notes %q; want one sender row, no warning, one note", err, len(res.Rows), res.VantageWarnings, res.VantageNotes)
	}
	rows, _, err := fileRows(files[nodeR], Options{})
	if err != nil || len(rows) != 1 || rows[0].Vantage != Relay {
		t.Errorf("no route, R's capture: %v, rows %+v; want one row, vantage relay", err, rows)
	}
}

// TestOneFlowAcrossCaptures: a connection that never carried data is one
// flow in every capture that holds it: S's capture (its SYNs at 0 and 3 s)
// and N's (the SYN a relay delivered 2 s after S's last one, N's RST) are
// 2 s apart, and O, which heard only N's RST, guesses the direction the
// other way round; the batch gives one row, S → N from N's capture, out of
// three.
func TestOneFlowAcrossCaptures(t *testing.T) {
	a := newAir(4)
	c := pcaptest.NewConn(netip.AddrPortFrom(ip(nodeS), 40000), netip.AddrPortFrom(ip(nodeN), 5001), 1000, 0)
	for i := range a.nodes {
		a.send(i, i, broadcast, hello(i), (i+1)%4, (i+3)%4)
	}
	syn := c.Syn(a.t0, pcaptest.C2S)
	a.send(10, nodeS, mac(nodeR), seg(syn, 64), nodeR)
	a.send(3010, nodeS, mac(nodeR), seg(syn, 64), nodeR)
	a.send(5010, nodeR, mac(nodeN), seg(syn, 63), nodeN)
	a.send(5020, nodeN, mac(nodeR), seg(c.Rst(a.t0, pcaptest.S2C), 64), nodeR, nodeO)
	files := a.write(t, t.TempDir(), nodeR)
	res, err := Goodput(context.Background(), files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 {
		for _, r := range res.Rows {
			t.Logf("%s: %s:%d → %s:%d %s", filepath.Base(r.File), r.Src, r.SPort, r.Dst, r.DPort, r.Vantage)
		}
		t.Fatalf("%d rows, want 1", len(res.Rows))
	}
	r := res.Rows[0]
	if r.Src != "10.0.0.1" || r.SPort != 40000 || filepath.Base(r.File) != "run-2-0.pcap" || r.Vantage != AtReceiver || r.Captures != 3 {
		t.Errorf("row %s:%d → %s:%d from %s (%s), %d captures; want 10.0.0.1:40000 → 10.0.0.3:5001 from run-2-0.pcap (receiver), 3",
			r.Src, r.SPort, r.Dst, r.DPort, filepath.Base(r.File), r.Vantage, r.Captures)
	}
	// O's capture alone guesses N → S; the declared flow turns it.
	starts := filepath.Join(t.TempDir(), "starts.csv")
	if err := os.WriteFile(starts, []byte("src,sport,dst,dport,start_s\n10.0.0.1,40000,10.0.0.3,5001,1767323045\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := ReadStarts(starts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err = Goodput(context.Background(), []string{files[2]}, Options{Starts: st})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Src != "10.0.0.1" || res.Rows[0].Vantage != Overheard || res.Rows[0].Source != FromStarts {
		for _, r := range res.Rows {
			t.Logf("%s: %s:%d → %s:%d %s %s", filepath.Base(r.File), r.Src, r.SPort, r.Dst, r.DPort, r.Vantage, r.Source)
		}
		t.Errorf("O's capture with the flow declared: %d rows; want one, 10.0.0.1 → 10.0.0.3, overheard, interval from the starts", len(res.Rows))
	}
}

// TestNodeIDNotOneNode: a capture whose "own" frames (no antenna signal)
// come from five transmitters is not one node's view: no identity, so the
// TCP-level evidence decides.
func TestNodeIDNotOneNode(t *testing.T) {
	a := newAir(6)
	for i := 0; i < 5; i++ {
		f := pcaptest.Dot11{TA: mac(i), RA: broadcast}.Frame(hello(i))
		a.nodes[5].Add(a.t0.Add(time.Duration(i)*time.Millisecond), 0, radiotapTx(f))
	}
	a.send(10, 0, broadcast, hello(0), 5)
	id := &nodeID{}
	if _, err := analyzeWithID(a.write(t, t.TempDir(), 0, 1, 2, 3, 4)[0], id, false); err != nil {
		t.Fatal(err)
	}
	if id.known() || len(id.ownAddrs()) != 0 {
		t.Errorf("known %v, own %v; want no identity", id.known(), id.ownAddrs())
	}
}

// TestNodeIDOnNS3: every TCP capture of shared/ns3 (ns-3 node n has
// address 10.1.0.n+1; its capture is PREFIX-n-0.pcap.gz) owns exactly its
// own node's address.
func TestNodeIDOnNS3(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedNS3(t), "tcp-*.pcap.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	for _, f := range files {
		m := ns3Suffix.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			t.Fatalf("%s: not PREFIX-NODE-DEV", f)
		}
		node, _ := strconv.Atoi(m[2])
		id := &nodeID{}
		if _, err := analyzeWithID(f, id, false); err != nil {
			t.Fatal(err)
		}
		if own := id.ownAddrs(); !id.known() || len(own) != 1 || own[0] != netip.AddrFrom4([4]byte{10, 1, 0, byte(node + 1)}) {
			t.Errorf("%s: identity %v, own addresses %v; want [10.1.0.%d]", filepath.Base(f), id.known(), own, node+1)
		}
	}
}
