package flows

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/seq"
)

// Endpoints used throughout: cli is the usual SYN sender, srv the listener.
var (
	cli  = netip.MustParseAddrPort("10.0.0.1:40000")
	srv  = netip.MustParseAddrPort("10.0.0.2:80")
	cli2 = netip.MustParseAddrPort("10.0.0.3:40001")
	srv2 = netip.MustParseAddrPort("10.0.0.4:443")
	cli6 = netip.MustParseAddrPort("[2001:db8::1]:40000")
	srv6 = netip.MustParseAddrPort("[2001:db8::2]:443")
)

// Flag combinations, named as tcpdump prints them.
const (
	fS  = capture.SYN
	fSA = capture.SYN | capture.ACK
	fA  = capture.ACK
	fPA = capture.PSH | capture.ACK
	fFA = capture.FIN | capture.ACK
	fRA = capture.RST | capture.ACK
)

// epoch is an arbitrary capture time (2023-11-14) so that no test relies on
// times near 0.
const epoch = capture.Timestamp(1_700_000_000 * int64(time.Second))

// at returns the capture time d after epoch.
func at(d time.Duration) capture.Timestamp { return epoch + capture.Timestamp(d) }

// seg returns an IPv4 (or IPv6, by address) segment from src to dst carrying
// no TCP options (WScale -1 = absent), window 1000, TTL 64, IP ID 0.
func seg(src, dst netip.AddrPort, f capture.Flags, sq, ack uint32, n int) capture.Segment {
	return capture.Segment{
		Src: src, Dst: dst, IPv6: src.Addr().Is6(),
		Seq: seq.Num(sq), Ack: seq.Num(ack), Flags: f, PayloadLen: n,
		Window: 1000, TTL: 64,
		Opts: capture.Options{WScale: -1},
	}
}

// withWS returns s with a window-scale option of shift ws.
func withWS(s capture.Segment, ws int16) capture.Segment {
	s.Opts.WScale = ws
	return s
}

// script numbers segments like a capture: frame i+1 at epoch + i ms, and, for
// IPv4 segments with IP ID 0, IP ID i+1, so that no two segments look like
// copies of one packet. Explicit times and IDs are kept.
func script(segs ...capture.Segment) []capture.Segment {
	out := make([]capture.Segment, len(segs))
	for i, s := range segs {
		s.Frame = int64(i + 1)
		if s.Time == 0 {
			s.Time = at(time.Duration(i) * time.Millisecond)
		}
		if !s.IPv6 && s.IPID == 0 {
			s.IPID = uint16(i + 1)
		}
		out[i] = s
	}
	return out
}

// feed adds segs to tr in order and returns what Add returned for each.
func feed(tr *Tracker, segs []capture.Segment) []Packet {
	out := make([]Packet, len(segs))
	for i := range segs {
		s := segs[i] // Add must not keep the pointer
		out[i] = tr.Add(&s)
	}
	return out
}

// handshake returns SYN (cli, ISN a), SYN-ACK (srv, ISN b) and the final ACK.
func handshake(a, b uint32) []capture.Segment {
	return []capture.Segment{
		seg(cli, srv, fS, a, 0, 0),
		seg(srv, cli, fSA, b, a+1, 0),
		seg(cli, srv, fA, a+1, b+1, 0),
	}
}

func cat(parts ...[]capture.Segment) []capture.Segment {
	var out []capture.Segment
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestKeyOfSymmetric(t *testing.T) {
	pairs := [][2]netip.AddrPort{
		{cli, srv},
		{srv, cli},
		{netip.MustParseAddrPort("10.0.0.1:80"), netip.MustParseAddrPort("10.0.0.1:81")}, // same address, ports decide
		{cli6, srv6},
		{cli, cli}, // degenerate: both ends equal
	}
	for _, p := range pairs {
		k1, k2 := KeyOf(p[0], p[1]), KeyOf(p[1], p[0])
		if k1 != k2 {
			t.Errorf("KeyOf(%v, %v) = %v, KeyOf(%v, %v) = %v, want equal", p[0], p[1], k1, p[1], p[0], k2)
		}
		if k1.Lo.Compare(k1.Hi) > 0 {
			t.Errorf("KeyOf(%v, %v) = %v, want Lo <= Hi", p[0], p[1], k1)
		}
	}
}

func TestDirection(t *testing.T) {
	if AtoB.Reverse() != BtoA || BtoA.Reverse() != AtoB {
		t.Errorf("Reverse = %v, %v, want ba, ab", AtoB.Reverse(), BtoA.Reverse())
	}
	if AtoB.String() != "ab" || BtoA.String() != "ba" {
		t.Errorf("String = %q, %q, want \"ab\", \"ba\"", AtoB.String(), BtoA.String())
	}
}

// TestConnIndexInterleaved: three connections whose packets interleave are
// numbered in order of their first packet, every packet joins its own
// connection, and side A is chosen per connection.
func TestConnIndexInterleaved(t *testing.T) {
	segs := script(
		seg(cli2, srv2, fPA, 7000, 8000, 10), // 1: conn 0, midstream, A = cli2
		seg(cli, srv, fS, 1000, 0, 0),        // 2: conn 1, A = cli
		seg(srv6, cli6, fSA, 5000, 1001, 0),  // 3: conn 2, SYN-ACK first: A = cli6
		seg(srv, cli, fSA, 3000, 1001, 0),    // 4: conn 1
		seg(srv2, cli2, fA, 8000, 7010, 0),   // 5: conn 0
		seg(cli6, srv6, fS, 1000, 0, 0),      // 6: conn 2, its SYN: joins
		seg(cli, srv, fA, 1001, 3001, 0),     // 7: conn 1
		seg(cli6, srv6, fA, 1001, 5001, 0),   // 8: conn 2
	)
	wantConn := []int{0, 1, 2, 1, 0, 2, 1, 2}
	wantNew := []bool{true, true, true, false, false, false, false, false}
	wantDir := []Direction{AtoB, AtoB, BtoA, BtoA, BtoA, AtoB, AtoB, AtoB}

	tr := NewTracker(Options{WScale: -1})
	got := feed(tr, segs)
	conns := tr.Conns()
	if len(conns) != 3 {
		t.Fatalf("len(Conns()) = %d, want 3", len(conns))
	}
	for i, p := range got {
		if p.Conn.Index != wantConn[i] || p.Conn != conns[wantConn[i]] {
			t.Errorf("frame %d: Conn.Index = %d, want %d", i+1, p.Conn.Index, wantConn[i])
		}
		if p.New != wantNew[i] {
			t.Errorf("frame %d: New = %v, want %v", i+1, p.New, wantNew[i])
		}
		if p.Dir != wantDir[i] {
			t.Errorf("frame %d: Dir = %v, want %v", i+1, p.Dir, wantDir[i])
		}
	}
	want := []struct {
		a, b       netip.AddrPort
		firstFrame int64
		first      capture.Timestamp
		last       capture.Timestamp
	}{
		{cli2, srv2, 1, at(0), at(4 * time.Millisecond)},
		{cli, srv, 2, at(1 * time.Millisecond), at(6 * time.Millisecond)},
		{cli6, srv6, 3, at(2 * time.Millisecond), at(7 * time.Millisecond)},
	}
	for i, w := range want {
		c := conns[i]
		if c.Index != i {
			t.Errorf("Conns()[%d].Index = %d, want %d", i, c.Index, i)
		}
		if c.Half[AtoB].Addr != w.a || c.Half[BtoA].Addr != w.b {
			t.Errorf("conn %d: sides a, b = %v, %v, want %v, %v", i, c.Half[AtoB].Addr, c.Half[BtoA].Addr, w.a, w.b)
		}
		if k := KeyOf(w.b, w.a); c.Key != k {
			t.Errorf("conn %d: Key = %v, want %v", i, c.Key, k)
		}
		if c.DirOf(w.a) != AtoB || c.DirOf(w.b) != BtoA {
			t.Errorf("conn %d: DirOf(a), DirOf(b) = %v, %v, want ab, ba", i, c.DirOf(w.a), c.DirOf(w.b))
		}
		if c.FirstFrame != w.firstFrame {
			t.Errorf("conn %d: FirstFrame = %d, want %d", i, c.FirstFrame, w.firstFrame)
		}
		if c.First != w.first || c.Last != w.last {
			t.Errorf("conn %d: First, Last = %d, %d, want %d, %d", i, c.First, c.Last, w.first, w.last)
		}
		if d := c.Duration(); d != w.last.Sub(w.first) {
			t.Errorf("conn %d: Duration() = %v, want %v", i, d, w.last.Sub(w.first))
		}
		if c.Reused {
			t.Errorf("conn %d: Reused = true, want false", i)
		}
	}
}

// TestSideA: side A is the SYN sender, the receiver of a SYN-ACK captured
// before (or without) its SYN, or else the first packet's sender.
func TestSideA(t *testing.T) {
	tests := []struct {
		name  string
		segs  []capture.Segment
		wantA netip.AddrPort
		// wantConns is how many connections the segments make.
		wantConns int
	}{
		{"syn first", handshake(1000, 5000), cli, 1},
		{"syn-ack before its syn", script(
			seg(srv, cli, fSA, 5000, 1001, 0),
			seg(cli, srv, fS, 1000, 0, 0), // seq = SYN-ACK.ack − 1: the same connection
			seg(cli, srv, fA, 1001, 5001, 0),
		), cli, 1},
		{"syn-ack without syn", script(
			seg(srv, cli, fSA, 5000, 1001, 0),
			seg(cli, srv, fA, 1001, 5001, 0),
		), cli, 1},
		{"no syn, client speaks first", script(
			seg(cli, srv, fPA, 1001, 5001, 10),
			seg(srv, cli, fA, 5001, 1011, 0),
		), cli, 1},
		{"no syn, server speaks first", script(
			seg(srv, cli, fPA, 5001, 1001, 10),
			seg(cli, srv, fA, 1001, 5011, 0),
		), srv, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Options{WScale: -1})
			feed(tr, script(tt.segs...))
			if n := len(tr.Conns()); n != tt.wantConns {
				t.Fatalf("len(Conns()) = %d, want %d", n, tt.wantConns)
			}
			if a := tr.Conns()[0].Half[AtoB].Addr; a != tt.wantA {
				t.Errorf("Half[AtoB].Addr = %v, want %v", a, tt.wantA)
			}
		})
	}
}

// TestPortReuse: a SYN with a new ISN on a used 4-tuple starts a new
// connection; everything else joins the newest one.
func TestPortReuse(t *testing.T) {
	const isnA, isnB = 1000, 5000
	data := seg(cli, srv, fPA, isnA+1, isnB+1, 100) // bytes 1..100 of A
	tests := []struct {
		name       string
		segs       []capture.Segment
		wantConn   []int // connection index of each segment
		wantReused []bool
		wantA      []netip.AddrPort // side A of each connection
	}{
		{
			name: "fin exchange then new syn",
			segs: cat(handshake(isnA, isnB), []capture.Segment{
				data,
				seg(cli, srv, fFA, isnA+101, isnB+1, 0),
				seg(srv, cli, fFA, isnB+1, isnA+102, 0),
				seg(cli, srv, fA, isnA+102, isnB+2, 0), // the last ACK: no phantom connection
				seg(cli, srv, fS, 90000, 0, 0),
				seg(srv, cli, fSA, 70000, 90001, 0),
				seg(cli, srv, fA, 90001, 70001, 0),
			}),
			wantConn:   []int{0, 0, 0, 0, 0, 0, 0, 1, 1, 1},
			wantReused: []bool{false, true},
			wantA:      []netip.AddrPort{cli, cli},
		},
		{
			name: "rst then new syn",
			segs: cat(handshake(isnA, isnB), []capture.Segment{
				data,
				seg(srv, cli, fRA, isnB+1, isnA+101, 0),
				seg(cli, srv, fS, 90000, 0, 0),
				seg(srv, cli, fSA, 70000, 90001, 0),
			}),
			wantConn:   []int{0, 0, 0, 0, 0, 1, 1},
			wantReused: []bool{false, true},
			wantA:      []netip.AddrPort{cli, cli},
		},
		{
			name: "syn retransmitted during the handshake",
			segs: []capture.Segment{
				seg(cli, srv, fS, isnA, 0, 0),
				seg(cli, srv, fS, isnA, 0, 0), // same ISN, new IP ID (script)
				seg(srv, cli, fSA, isnB, isnA+1, 0),
				seg(cli, srv, fS, isnA, 0, 0), // the SYN-ACK was lost on the way back
				seg(srv, cli, fSA, isnB, isnA+1, 0),
				seg(cli, srv, fA, isnA+1, isnB+1, 0),
			},
			wantConn:   []int{0, 0, 0, 0, 0, 0},
			wantReused: []bool{false},
			wantA:      []netip.AddrPort{cli},
		},
		{
			name: "syn with a new isn mid-connection",
			segs: cat(handshake(isnA, isnB), []capture.Segment{
				data,
				seg(cli, srv, fS, 90000, 0, 0),
				seg(cli, srv, fPA, isnA+101, isnB+1, 100), // joins the newest connection
			}),
			wantConn:   []int{0, 0, 0, 0, 1, 1},
			wantReused: []bool{false, true},
			wantA:      []netip.AddrPort{cli, cli},
		},
		{
			name: "new syn from the other side",
			segs: cat(handshake(isnA, isnB), []capture.Segment{
				seg(cli, srv, fFA, isnA+1, isnB+1, 0),
				seg(srv, cli, fFA, isnB+1, isnA+2, 0),
				seg(cli, srv, fA, isnA+2, isnB+2, 0),
				seg(srv, cli, fS, 70000, 0, 0),
			}),
			wantConn:   []int{0, 0, 0, 0, 0, 0, 1},
			wantReused: []bool{false, true},
			wantA:      []netip.AddrPort{cli, srv},
		},
		{
			name: "syn-ack before its syn",
			segs: []capture.Segment{
				seg(srv, cli, fSA, isnB, isnA+1, 0),
				seg(cli, srv, fS, isnA, 0, 0), // seq = SYN-ACK.ack − 1
				seg(cli, srv, fA, isnA+1, isnB+1, 0),
			},
			wantConn:   []int{0, 0, 0},
			wantReused: []bool{false},
			wantA:      []netip.AddrPort{cli},
		},
		{
			name: "syn-ack then a syn it does not acknowledge",
			segs: []capture.Segment{
				seg(srv, cli, fSA, isnB, isnA+1, 0),
				seg(cli, srv, fS, 90000, 0, 0),
			},
			wantConn:   []int{0, 1},
			wantReused: []bool{false, true},
			wantA:      []netip.AddrPort{cli, cli},
		},
		{
			name: "midstream then syn",
			segs: []capture.Segment{
				data,
				seg(srv, cli, fA, isnB+1, isnA+101, 0),
				seg(cli, srv, fS, 90000, 0, 0),
			},
			wantConn:   []int{0, 0, 1},
			wantReused: []bool{false, true},
			wantA:      []netip.AddrPort{cli, cli},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Options{WScale: -1})
			got := feed(tr, script(tt.segs...))
			for i, p := range got {
				if p.Conn.Index != tt.wantConn[i] {
					t.Errorf("frame %d: Conn.Index = %d, want %d", i+1, p.Conn.Index, tt.wantConn[i])
				}
				wantNew := i == 0 || tt.wantConn[i] != tt.wantConn[i-1]
				if p.New != wantNew {
					t.Errorf("frame %d: New = %v, want %v", i+1, p.New, wantNew)
				}
			}
			conns := tr.Conns()
			if len(conns) != len(tt.wantReused) {
				t.Fatalf("len(Conns()) = %d, want %d", len(conns), len(tt.wantReused))
			}
			for i, c := range conns {
				if c.Reused != tt.wantReused[i] {
					t.Errorf("conn %d: Reused = %v, want %v", i, c.Reused, tt.wantReused[i])
				}
				if c.Half[AtoB].Addr != tt.wantA[i] {
					t.Errorf("conn %d: Half[AtoB].Addr = %v, want %v", i, c.Half[AtoB].Addr, tt.wantA[i])
				}
				if c.Folded != 0 {
					t.Errorf("conn %d: Folded = %d, want 0", i, c.Folded)
				}
			}
		})
	}
}

// TestHandshakeFacts: ISNs, SynSeen, the SYN options and HandshakeSeen.
func TestHandshakeFacts(t *testing.T) {
	syn := seg(cli, srv, fS, 1000, 0, 0)
	syn.Opts = capture.Options{MSS: 1460, WScale: 7, SACKPerm: true, TS: true, TSval: 100}
	synack := seg(srv, cli, fSA, 5000, 1001, 0)
	synack.Opts = capture.Options{MSS: 1400, WScale: -1, TS: true, TSval: 900, TSecr: 100}
	ack := seg(cli, srv, fA, 1001, 5001, 0)

	type side struct {
		synSeen  bool
		isn      seq.Num
		isnKnown bool
		opts     capture.Options // valid iff synSeen
	}
	tests := []struct {
		name  string
		segs  []capture.Segment
		a, b  side
		hsHas bool // HandshakeSeen
	}{
		{"syn only", []capture.Segment{syn},
			side{true, 1000, true, syn.Opts}, side{}, false},
		{"syn and syn-ack", []capture.Segment{syn, synack, ack},
			side{true, 1000, true, syn.Opts}, side{true, 5000, true, synack.Opts}, true},
		{"syn-ack before syn", []capture.Segment{synack, syn, ack},
			side{true, 1000, true, syn.Opts}, side{true, 5000, true, synack.Opts}, true},
		// The SYN-ACK's ack − 1 is A's ISN even without A's SYN.
		{"syn-ack only", []capture.Segment{synack, ack},
			side{false, 1000, true, capture.Options{}}, side{true, 5000, true, synack.Opts}, false},
		{"no handshake", []capture.Segment{ack, seg(srv, cli, fA, 5001, 1001, 0)},
			side{}, side{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Options{WScale: -1})
			feed(tr, script(tt.segs...))
			c := tr.Conns()[0]
			if c.HandshakeSeen != tt.hsHas {
				t.Errorf("HandshakeSeen = %v, want %v", c.HandshakeSeen, tt.hsHas)
			}
			for d, w := range [2]side{tt.a, tt.b} {
				h := &c.Half[d]
				if h.SynSeen != w.synSeen {
					t.Errorf("Half[%v].SynSeen = %v, want %v", Direction(d), h.SynSeen, w.synSeen)
				}
				if h.ISNKnown != w.isnKnown || (w.isnKnown && h.ISN != w.isn) {
					t.Errorf("Half[%v].ISN, ISNKnown = %d, %v, want %d, %v", Direction(d), h.ISN, h.ISNKnown, w.isn, w.isnKnown)
				}
				if w.synSeen && h.Syn != synOptionsOf(&w.opts) {
					t.Errorf("Half[%v].Syn = %+v, want %+v", Direction(d), h.Syn, w.opts)
				}
			}
		})
	}
}

// TestWindowScale: RFC 7323 §1.3 and §2.3 as docs/metrics.md#window-scale
// states them, with and without the --wscale override.
func TestWindowScale(t *testing.T) {
	syn := func(ws int16) capture.Segment { return withWS(seg(cli, srv, fS, 1000, 0, 0), ws) }
	synack := func(ws int16) capture.Segment { return withWS(seg(srv, cli, fSA, 5000, 1001, 0), ws) }
	ack := seg(cli, srv, fA, 1001, 5001, 0)
	data := seg(cli, srv, fPA, 1001, 5001, 100)
	back := seg(srv, cli, fA, 5001, 1101, 0)
	const none = -1 // no window-scale option

	tests := []struct {
		name     string
		override int
		segs     []capture.Segment
		wantWS   [2]int
		wantFrom [2]string
	}{
		{"both syns 7/8", -1, []capture.Segment{syn(7), synack(8), ack}, [2]int{7, 8}, [2]string{"handshake", "handshake"}},
		{"both syns 0/0", -1, []capture.Segment{syn(0), synack(0), ack}, [2]int{0, 0}, [2]string{"handshake", "handshake"}},
		{"only syn has ws", -1, []capture.Segment{syn(7), synack(none), ack}, [2]int{0, 0}, [2]string{"handshake", "handshake"}},
		{"only syn-ack has ws", -1, []capture.Segment{syn(none), synack(8), ack}, [2]int{0, 0}, [2]string{"handshake", "handshake"}},
		{"shift 255 clamped to 14", -1, []capture.Segment{syn(255), synack(2), ack}, [2]int{14, 2}, [2]string{"handshake", "handshake"}},
		{"shift 15 clamped to 14", -1, []capture.Segment{syn(3), synack(15), ack}, [2]int{3, 14}, [2]string{"handshake", "handshake"}},
		{"syn-ack before syn", -1, []capture.Segment{synack(8), syn(7), ack}, [2]int{7, 8}, [2]string{"handshake", "handshake"}},
		{"syn without ws alone", -1, []capture.Segment{syn(none), data}, [2]int{0, 0}, [2]string{"syn", "syn"}},
		{"syn with ws alone", -1, []capture.Segment{syn(7), data}, [2]int{-1, -1}, [2]string{"unknown", "unknown"}},
		{"syn-ack without ws alone", -1, []capture.Segment{synack(none), ack, data}, [2]int{0, 0}, [2]string{"syn-ack", "syn-ack"}},
		{"syn-ack with ws alone", -1, []capture.Segment{synack(8), ack, data}, [2]int{-1, 8}, [2]string{"unknown", "syn-ack"}},
		{"syn-ack with ws 255 alone", -1, []capture.Segment{synack(255), ack}, [2]int{-1, 14}, [2]string{"unknown", "syn-ack"}},
		{"no handshake", -1, []capture.Segment{data, back}, [2]int{-1, -1}, [2]string{"unknown", "unknown"}},
		{"override, no handshake", 7, []capture.Segment{data, back}, [2]int{7, 7}, [2]string{"override", "override"}},
		{"override 0, no handshake", 0, []capture.Segment{data, back}, [2]int{0, 0}, [2]string{"override", "override"}},
		{"override 20 clamped to 14", 20, []capture.Segment{data, back}, [2]int{14, 14}, [2]string{"override", "override"}},
		{"override, syn-ack with ws alone", 7, []capture.Segment{synack(8), ack, data}, [2]int{7, 8}, [2]string{"override", "syn-ack"}},
		{"override, syn with ws alone", 7, []capture.Segment{syn(3), data}, [2]int{7, 7}, [2]string{"override", "override"}},
		{"override, handshake 2/3", 7, []capture.Segment{syn(2), synack(3), ack}, [2]int{2, 3}, [2]string{"handshake", "handshake"}},
		{"override, handshake without ws", 7, []capture.Segment{syn(none), synack(none), ack}, [2]int{0, 0}, [2]string{"handshake", "handshake"}},
		{"override, syn-ack without ws alone", 7, []capture.Segment{synack(none), ack}, [2]int{0, 0}, [2]string{"syn-ack", "syn-ack"}},
		{"override, syn without ws alone", 7, []capture.Segment{syn(none)}, [2]int{0, 0}, [2]string{"syn", "syn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Options{WScale: tt.override})
			feed(tr, script(tt.segs...))
			if n := len(tr.Conns()); n != 1 {
				t.Fatalf("len(Conns()) = %d, want 1", n)
			}
			c := tr.Conns()[0]
			for d := range c.Half {
				h := &c.Half[d]
				if h.WScale != tt.wantWS[d] || h.WScaleFrom.String() != tt.wantFrom[d] {
					t.Errorf("Half[%v].WScale, WScaleFrom = %d, %q, want %d, %q", Direction(d), h.WScale, h.WScaleFrom, tt.wantWS[d], tt.wantFrom[d])
				}
			}
		})
	}
}

func TestScaledWindow(t *testing.T) {
	c := &Conn{}
	c.Half[AtoB].WScale = 7
	c.Half[BtoA].WScale = -1
	c2 := &Conn{} // scaling off: shift 0 both ways
	tests := []struct {
		c         *Conn
		d         Direction
		raw       uint16
		syn       bool
		want      int64
		wantKnown bool
	}{
		{c, AtoB, 100, false, 12800, true},
		{c, AtoB, 65535, false, 65535 << 7, true},
		{c, AtoB, 100, true, 100, true}, // SYN windows are never scaled (RFC 7323 §2.2)
		{c, BtoA, 100, false, 100, false},
		{c, BtoA, 100, true, 100, true},
		{c2, AtoB, 100, false, 100, true},
		{c2, BtoA, 0, false, 0, true},
	}
	for _, tt := range tests {
		got, known := tt.c.ScaledWindow(tt.d, tt.raw, tt.syn)
		if got != tt.want || known != tt.wantKnown {
			t.Errorf("ScaledWindow(%v, %d, %v) with shift %d = %d, %v, want %d, %v",
				tt.d, tt.raw, tt.syn, tt.c.Half[tt.d].WScale, got, known, tt.want, tt.wantKnown)
		}
	}
}

// rel is the expected outcome of one Add: relative offsets as tshark shows
// them.
type rel struct {
	dir      Direction
	seq, end int64
	ack      int64 // meaningful iff ackValid
	ackValid bool
}

func checkRel(t *testing.T, got []Packet, want []rel) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d packets, want %d", len(got), len(want))
	}
	for i, w := range want {
		p := got[i]
		g := rel{p.Dir, p.Seq, p.End, p.Ack, p.AckValid}
		if !p.AckValid {
			g.ack = 0
		}
		if g != w {
			t.Errorf("frame %d: dir, Seq, End, Ack, AckValid = %v %d %d %d %v, want %v %d %d %d %v",
				i+1, g.dir, g.seq, g.end, g.ack, g.ackValid, w.dir, w.seq, w.end, w.ack, w.ackValid)
		}
	}
}

// TestUnwrapAcrossWrap: both ISNs lie just below 2^32, so data in both
// directions crosses the wrap; offsets keep increasing.
func TestUnwrapAcrossWrap(t *testing.T) {
	const isnA = 1<<32 - 1000 // 4294966296
	const isnB = 1<<32 - 500  // 4294966796
	segs := script(
		seg(cli, srv, fS, isnA, 0, 0),
		seg(srv, cli, fSA, isnB, isnA+1, 0),
		seg(cli, srv, fA, isnA+1, isnB+1, 0),
		seg(cli, srv, fPA, isnA+1, isnB+1, 1000), // bytes 1..1000: ends at 2^32+1
		seg(cli, srv, fPA, 1, isnB+1, 1000),      // after the wrap
		seg(srv, cli, fA, isnB+1, 1, 0),          // acks A's 1000 bytes: ack wrapped to 1
		seg(srv, cli, fA, isnB+1, 1001, 0),
		seg(srv, cli, fPA, isnB+1, 1001, 1000), // B's bytes 1..1000 end at 2^32+501
		seg(srv, cli, fPA, 501, 1001, 1000),
		seg(cli, srv, fA, 1001, 501, 0),
		seg(cli, srv, fA, 1001, 1501, 0),
		seg(cli, srv, fFA, 1001, 1501, 0),
	)
	want := []rel{
		{AtoB, 0, 1, 0, false},
		{BtoA, 0, 1, 1, true},
		{AtoB, 1, 1, 1, true},
		{AtoB, 1, 1001, 1, true},
		{AtoB, 1001, 2001, 1, true},
		{BtoA, 1, 1, 1001, true},
		{BtoA, 1, 1, 2001, true},
		{BtoA, 1, 1001, 2001, true},
		{BtoA, 1001, 2001, 2001, true},
		{AtoB, 2001, 2001, 1001, true},
		{AtoB, 2001, 2001, 2001, true},
		{AtoB, 2001, 2002, 2001, true},
	}
	tr := NewTracker(Options{WScale: -1})
	checkRel(t, feed(tr, segs), want)
	c := tr.Conns()[0]
	if h := &c.Half[AtoB]; !h.FinSeen || h.FinRel != 2001 {
		t.Errorf("Half[ab].FinSeen, FinRel = %v, %d, want true, 2001", h.FinSeen, h.FinRel)
	}
	if h := &c.Half[BtoA]; h.FinSeen {
		t.Errorf("Half[ba].FinSeen = true, want false")
	}
	for d, isn := range [2]seq.Num{isnA, isnB} {
		if h := &c.Half[d]; h.Base != isn || !h.BaseKnown {
			t.Errorf("Half[%v].Base, BaseKnown = %d, %v, want %d, true", Direction(d), h.Base, h.BaseKnown, isn)
		}
	}
}

// TestUnwrapMidstream: without a handshake the first byte seen from a side
// has offset 1, and a peer's ACK seen first sets the base instead.
func TestUnwrapMidstream(t *testing.T) {
	tests := []struct {
		name     string
		segs     []capture.Segment
		want     []rel
		wantBase [2]seq.Num
	}{
		{
			name: "ack sets the peer's base",
			segs: []capture.Segment{
				seg(cli, srv, fPA, 5000, 9001, 100), // B has sent nothing yet: 9001 is B's offset 1
				seg(srv, cli, fPA, 9001, 5100, 50),
				seg(cli, srv, fPA, 5100, 9051, 100),
				seg(srv, cli, fA, 9051, 5200, 0),
			},
			want: []rel{
				{AtoB, 1, 101, 1, true},
				{BtoA, 1, 51, 101, true},
				{AtoB, 101, 201, 51, true},
				{BtoA, 51, 51, 201, true},
			},
			wantBase: [2]seq.Num{4999, 9000},
		},
		{
			name: "data before any ack",
			segs: []capture.Segment{
				seg(cli, srv, capture.PSH, 5000, 0, 100), // no ACK flag: B's base stays unknown
				seg(srv, cli, fPA, 9001, 5100, 50),
				seg(cli, srv, fPA, 5100, 9051, 100),
			},
			want: []rel{
				{AtoB, 1, 101, 0, false},
				{BtoA, 1, 51, 101, true},
				{AtoB, 101, 201, 51, true},
			},
			wantBase: [2]seq.Num{4999, 9000},
		},
		{
			name: "midstream across the wrap",
			segs: []capture.Segment{
				seg(cli, srv, fPA, 1<<32-50, 9001, 100), // offsets 1..100, wraps after 50
				seg(cli, srv, fPA, 50, 9001, 100),
				seg(srv, cli, fA, 9001, 150, 0),
			},
			want: []rel{
				{AtoB, 1, 101, 1, true},
				{AtoB, 101, 201, 1, true},
				{BtoA, 1, 1, 201, true},
			},
			wantBase: [2]seq.Num{1<<32 - 51, 9000},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Options{WScale: -1})
			checkRel(t, feed(tr, script(tt.segs...)), tt.want)
			c := tr.Conns()[0]
			for d := range c.Half {
				h := &c.Half[d]
				if h.Base != tt.wantBase[d] || !h.BaseKnown {
					t.Errorf("Half[%v].Base, BaseKnown = %d, %v, want %d, true", Direction(d), h.Base, h.BaseKnown, tt.wantBase[d])
				}
				if h.ISNKnown {
					t.Errorf("Half[%v].ISNKnown = true, want false without a handshake", Direction(d))
				}
			}
		})
	}
}

func TestFinRst(t *testing.T) {
	segs := script(cat(handshake(1000, 5000), []capture.Segment{
		seg(cli, srv, fPA, 1001, 5001, 10),
		seg(cli, srv, fFA, 1011, 5001, 0),
		seg(cli, srv, fFA, 1011, 5001, 0), // FIN retransmitted: FinRel stays
		seg(srv, cli, fRA, 5001, 1012, 0),
	})...)
	tr := NewTracker(Options{WScale: -1})
	feed(tr, segs)
	c := tr.Conns()[0]
	a, b := &c.Half[AtoB], &c.Half[BtoA]
	if !a.FinSeen || a.FinRel != 11 || a.RstSeen {
		t.Errorf("Half[ab] FinSeen, FinRel, RstSeen = %v, %d, %v, want true, 11, false", a.FinSeen, a.FinRel, a.RstSeen)
	}
	if b.FinSeen || !b.RstSeen {
		t.Errorf("Half[ba] FinSeen, RstSeen = %v, %v, want false, true", b.FinSeen, b.RstSeen)
	}
}

// TestTrackerFromPcap runs a pcaptest dialogue through a real capture file
// and capture.Reader: handshake options, wrapped client ISN, a FIN exchange,
// then the 4-tuple reused by a second connection.
func TestTrackerFromPcap(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	ms := time.Millisecond
	c := pcaptest.NewConn(cli, srv, 1<<32-1000, 7000)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{MSS: 1460, WS: true, WScale: 7, SACKPerm: true, TS: true})
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{MSS: 1400, WS: true, WScale: 8, TS: true})
	segs := c.Handshake(t0, 10*ms)
	segs = append(segs,
		c.Data(t0.Add(11*ms), pcaptest.C2S, 1000), // crosses the client's wrap
		c.Data(t0.Add(12*ms), pcaptest.C2S, 1000),
		c.Ack(t0.Add(21*ms), pcaptest.S2C, 2001, 100),
		c.Fin(t0.Add(30*ms), pcaptest.C2S),
		c.Ack(t0.Add(40*ms), pcaptest.S2C, 2002, 100),
		c.Fin(t0.Add(41*ms), pcaptest.S2C),
		c.Ack(t0.Add(50*ms), pcaptest.C2S, 2, 65535),
	)
	c2 := pcaptest.NewConn(cli, srv, 123456, 654321)
	segs = append(segs, c2.Handshake(t0.Add(time.Second), 10*ms)...)

	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkEthernet})
	for _, s := range segs {
		f.Add(s.T, 0, pcaptest.Ethernet(s.IP()))
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "dialogue.pcap")
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTracker(Options{WScale: -1})
	var got []Packet
	var conn []int
	for {
		var s capture.Segment
		if err := r.Next(&s); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p := tr.Add(&s)
		got = append(got, p)
		conn = append(conn, p.Conn.Index)
	}
	checkRel(t, got, []rel{
		{AtoB, 0, 1, 0, false},      // SYN
		{BtoA, 0, 1, 1, true},       // SYN-ACK
		{AtoB, 1, 1, 1, true},       // ACK
		{AtoB, 1, 1001, 1, true},    // data 1..1000
		{AtoB, 1001, 2001, 1, true}, // data 1001..2000
		{BtoA, 1, 1, 2001, true},    // ACK
		{AtoB, 2001, 2002, 1, true}, // FIN
		{BtoA, 1, 1, 2002, true},    // ACK of the FIN
		{BtoA, 1, 2, 2002, true},    // FIN
		{AtoB, 2002, 2002, 2, true}, // last ACK
		{AtoB, 0, 1, 0, false},      // SYN of connection 1
		{BtoA, 0, 1, 1, true},       // SYN-ACK
		{AtoB, 1, 1, 1, true},       // ACK
	})
	wantConn := []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}
	for i := range wantConn {
		if i < len(conn) && conn[i] != wantConn[i] {
			t.Errorf("frame %d: Conn.Index = %d, want %d", i+1, conn[i], wantConn[i])
		}
	}
	conns := tr.Conns()
	if len(conns) != 2 {
		t.Fatalf("len(Conns()) = %d, want 2", len(conns))
	}
	c0 := conns[0]
	if !c0.HandshakeSeen || c0.Reused || c0.Folded != 0 {
		t.Errorf("conn 0: HandshakeSeen, Reused, Folded = %v, %v, %d, want true, false, 0", c0.HandshakeSeen, c0.Reused, c0.Folded)
	}
	for d, w := range [2]struct {
		isn      seq.Num
		mss      uint16
		ws       int
		sack, ts bool
		finRel   int64
	}{{1<<32 - 1000, 1460, 7, true, true, 2001}, {7000, 1400, 8, false, true, 1}} {
		h := &c0.Half[d]
		if h.ISN != w.isn || !h.ISNKnown || h.Syn.MSS != w.mss || h.WScale != w.ws || h.WScaleFrom != WScaleHandshake ||
			h.Syn.SACKPerm != w.sack || h.Syn.TS != w.ts || !h.FinSeen || h.FinRel != w.finRel {
			t.Errorf("conn 0 Half[%v]: ISN %d, MSS %d, WScale %d %q, SACKPerm %v, TS %v, FinSeen %v, FinRel %d; want ISN %d, MSS %d, WScale %d \"handshake\", SACKPerm %v, TS %v, FinSeen true, FinRel %d",
				Direction(d), h.ISN, h.Syn.MSS, h.WScale, h.WScaleFrom, h.Syn.SACKPerm, h.Syn.TS, h.FinSeen, h.FinRel,
				w.isn, w.mss, w.ws, w.sack, w.ts, w.finRel)
		}
	}
	c1 := conns[1]
	if !c1.Reused || !c1.HandshakeSeen || c1.Half[AtoB].ISN != 123456 || c1.Half[BtoA].ISN != 654321 {
		t.Errorf("conn 1: Reused %v, HandshakeSeen %v, ISNs %d/%d, want true, true, 123456/654321",
			c1.Reused, c1.HandshakeSeen, c1.Half[AtoB].ISN, c1.Half[BtoA].ISN)
	}
	if c1.Half[AtoB].WScale != 0 || c1.Half[AtoB].WScaleFrom != WScaleHandshake {
		t.Errorf("conn 1 Half[ab].WScale, WScaleFrom = %d, %q, want 0, \"handshake\" (no option on either SYN)", c1.Half[AtoB].WScale, c1.Half[AtoB].WScaleFrom)
	}
	if want := capture.Timestamp(t0.Add(time.Second).UnixNano()); c1.First != want {
		t.Errorf("conn 1: First = %d, want %d", c1.First, want)
	}
}

func TestOptionsValidate(t *testing.T) {
	for ws, ok := range map[int]bool{-1: true, 0: true, MaxWScale: true, MaxWScale + 1: false} {
		if err := (Options{WScale: ws}).Validate(); (err == nil) != ok || (err != nil && !errors.Is(err, ErrWScale)) {
			t.Errorf("WScale %d: %v", ws, err)
		}
	}
}
