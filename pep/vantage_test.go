package pep

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// handshakeCapture writes a capture taken beside the sender 10.0.0.1 (its
// packets carry TTL 64): SYN at 0, SYN-ACK at 50 ms with TTL synAckTTL and
// IP ID 1, the sender's ACK 0.1 ms later, then ten 1000-byte segments 10 ms
// apart, each acknowledged 1 ms later with TTL ackTTL and IP IDs from
// ackID on (0: 2, 3, …, continuing the SYN-ACK's counter). Handshake RTT
// 50 ms, every ACK RTT 1 ms: ack-rtt-vs-handshake's timing holds (1 × 4 <
// 50).
func handshakeCapture(t *testing.T, synAckTTL, ackTTL uint8, ackID uint16) string {
	t.Helper()
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkRaw})
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.9.0.1:80"), 100, 900)
	t0 := pcaptest.GenStart
	ms := time.Millisecond
	add := func(s pcaptest.Segment, ttl uint8) {
		s.TTL = ttl
		f.Add(s.T, 0, s.IP())
	}
	add(c.Syn(t0, pcaptest.C2S), 64)
	add(c.Syn(t0.Add(50*ms), pcaptest.S2C), synAckTTL)
	add(c.Ack(t0.Add(50*ms+100*time.Microsecond), pcaptest.C2S, 1, 65535), 64)
	for i := range 10 {
		ts := t0.Add(60*ms + time.Duration(i)*10*ms)
		add(c.Data(ts, pcaptest.C2S, 1000), 64)
		a := c.Ack(ts.Add(ms), pcaptest.S2C, uint32(1+1000*(i+1)), 65535)
		if ackID != 0 {
			a.IPID = ackID + uint16(i)
		}
		add(a, ackTTL)
	}
	path := filepath.Join(t.TempDir(), "hs.pcap")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAckVsHandshakeNeedsTwoHosts: data ACKs 50× faster than the
// handshake support a PEP only when the receiver's per-packet TTLs show
// another host answered the handshake (SYN-ACK TTL 50 = 14 hops, ACKs TTL
// 64 = 0 hops with IP IDs of another counter: a PEP on the link passed the
// SYN to a far server). The same TTL on SYN-ACK and ACKs is one host whose
// first packet was slow (ARP, 802.11 setup), and so is a TTL that changes
// while the SYN-ACK's IP ID counter goes on (a route change); without
// per-packet TTLs (Detect) the capture cannot tell, and the criterion does
// not count.
func TestAckVsHandshakeNeedsTwoHosts(t *testing.T) {
	for _, tt := range []struct {
		name             string
		synAck, ack      uint8
		ackID            uint16
		withTTLs, wantOK bool
	}{
		{"far handshake, per-packet TTLs", 50, 64, 20000, true, true},
		{"far handshake, no per-packet TTLs", 50, 64, 20000, false, false},
		{"one host, per-packet TTLs", 64, 64, 0, true, false},
		{"one host, no per-packet TTLs", 64, 64, 0, false, false},
		{"one host, route changed after the SYN-ACK", 61, 63, 0, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := handshakeCapture(t, tt.synAck, tt.ack, tt.ackID)
			rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Detail: true})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Conns[0]
			var o Options
			if tt.withTTLs {
				if o.Packets, err = Evidence(path, 0); err != nil {
					t.Fatal(err)
				}
			}
			v := DetectWith(r, flows.AtoB, o)
			it, ok := item(v, "ack-rtt-vs-handshake")
			if !ok || it.Value != 1 || it.Supports != tt.wantOK {
				t.Fatalf("ack-rtt-vs-handshake = %+v (present %v), want value 1 ms, Supports %v", it, ok, tt.wantOK)
			}
			if ms(r.Handshake.SynToSynAck) != 50 {
				t.Errorf("handshake = %v, want 50 ms", r.Handshake.SynToSynAck)
			}
			// With the far handshake, ttl-synack-vs-ack supports too: two
			// pieces of evidence, Likely. Otherwise nothing else does.
			if v.Likely != tt.wantOK {
				t.Errorf("Likely = %v (%v), want %v", v.Likely, v.Supporting(), tt.wantOK)
			}
		})
	}
}

// TestTwoHosts: a TTL that varies inside one range holding the SYN-ACK's,
// from one initial TTL, is one host whose route changed (ns-3 AODV runs:
// SYN-ACK 63, later 61..64); a SYN-ACK TTL no later packet carries, or
// later packets from two initial TTLs, are two hosts.
func TestTwoHosts(t *testing.T) {
	for _, tt := range []struct {
		syn, lo, hi uint8
		want        bool
	}{
		// IP IDs: none known in these rows (IPv6, or not kept).
		{64, 64, 64, false},  // one on-link host
		{63, 61, 64, false},  // route changes (MANET)
		{49, 46, 49, false},  // one host farther away at times
		{50, 64, 64, true},   // SYN-ACK from 14 hops, ACKs from 0
		{64, 60, 63, true},   // SYN-ACK from an on-link box, the rest from afar
		{237, 46, 237, true}, // initial 255 and 64 among the later packets
	} {
		dp := DirPackets{SynSeen: true, SynTTL: tt.syn, MinTTL: tt.lo, MaxTTL: tt.hi, Pkts: 2}
		if got, why := dp.twoHosts(); got != tt.want {
			t.Errorf("twoHosts(SYN-ACK %d, later %d..%d) = %v (%s), want %v", tt.syn, tt.lo, tt.hi, got, why, tt.want)
		}
	}
	if got, _ := (&DirPackets{SynTTL: 50, MinTTL: 64, MaxTTL: 64, Pkts: 2}).twoHosts(); got {
		t.Error("twoHosts without a SYN-ACK = true")
	}
	// A SYN-ACK TTL no later packet has, with IPv4 IDs: one counter going
	// on (ns-3 AODV: SYN-ACK TTL 61 ID 0, later TTL 63 from ID 3) is one
	// host whose route changed; a Linux-like SYN-ACK ID 0 followed by IDs
	// from elsewhere leaves the TTLs to decide.
	for _, tt := range []struct {
		synID, firstID uint16
		want           bool
	}{{0, 3, false}, {2, 3, false}, {0, 64, false}, {0, 65, true}, {0, 40000, true}, {5, 5, true}, {5, 4, true}} {
		dp := DirPackets{SynSeen: true, SynTTL: 61, MinTTL: 63, MaxTTL: 63, Pkts: 2, synID: tt.synID, firstID: tt.firstID, synIDOK: true, firstIDOK: true}
		if got, why := dp.twoHosts(); got != tt.want {
			t.Errorf("twoHosts(SYN-ACK TTL 61 ID %d, later TTL 63 from ID %d) = %v (%s), want %v", tt.synID, tt.firstID, got, why, tt.want)
		}
	}
}

// TestReceiverHopsVantage: a receiver 0 hops away supports a PEP only at a
// capture beside the sender (sender TTL 64 = 0 hops), when it answers more
// than Ratio × slower than the sender and stalls its window; without the
// stall (and without link-layer evidence) the criterion is open — pending,
// the verdict Possible.
func TestReceiverHopsVantage(t *testing.T) {
	const msec = time.Millisecond
	for _, tt := range []struct {
		name              string
		rttl, sttl        uint8
		towardR, towardS  time.Duration
		stall             bool
		supports, pending bool
	}{
		{"PEP on the sender's link, stalled", 64, 64, 12 * msec, msec / 3, true, true, false},
		{"on-link server, no stall (ns-3 wifi)", 64, 64, 581 * time.Microsecond, 145 * time.Microsecond, false, false, true},
		{"on-link server as fast as the sender", 64, 64, msec, msec / 2, true, false, false},
		{"receiver behind a router", 63, 64, 600 * msec, msec / 10, true, false, false},
		{"capture beside the receiver, sender 10 hops away", 64, 54, 40 * msec, 5 * msec, true, false, false},
		{"sender TTL unknown", 64, 0, 40 * msec, 5 * msec, true, false, false},
	} {
		it, pending, _ := receiverHops(&hopsIn{rttl: tt.rttl, sttl: tt.sttl, towardR: tt.towardR, towardS: tt.towardS, stall: tt.stall}, nil, false)
		if it.Supports != tt.supports || pending != tt.pending || it.Value != float64(Hops(tt.rttl)) {
			t.Errorf("%s: receiver-hops = %+v, pending %v; want Supports %v, pending %v", tt.name, it, pending, tt.supports, tt.pending)
		}
	}
}

// TestOnLinkWithoutStall: a capture beside the sender of a connection to
// an on-link receiver that answers 10× slower than the sender and never
// closes its window (handshake 1 ms, ACK RTT 1 ms, the sender's own ACK
// 0.1 ms after the SYN-ACK): no criterion supports a PEP, receiver-hops is
// open and the verdict Possible (a raw-IP capture: no link layer to
// decide), and no second look with detail is needed; the same with a stall
// left open at the end (stallCapture) is Likely.
func TestOnLinkWithoutStall(t *testing.T) {
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkRaw})
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.9:80"), 100, 900)
	t0 := pcaptest.GenStart
	ms := time.Millisecond
	for _, s := range []pcaptest.Segment{c.Syn(t0, pcaptest.C2S), c.Syn(t0.Add(ms), pcaptest.S2C), c.Ack(t0.Add(ms+100*time.Microsecond), pcaptest.C2S, 1, 65535),
		c.Data(t0.Add(2*ms), pcaptest.C2S, 1000), c.Ack(t0.Add(3*ms), pcaptest.S2C, 1001, 65535), c.Ack(t0.Add(3*ms+100*time.Microsecond), pcaptest.C2S, 1, 65535)} {
		f.Add(s.T, 0, s.IP())
	}
	path := filepath.Join(t.TempDir(), "onlink.pcap")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Conns[0]
	v := Detect(r, flows.AtoB)
	it, ok := item(v, "receiver-hops")
	if !ok || it.Supports || !it.Open || it.Value != 0 || v.Likely || !v.Possible || NeedsDetail(r, flows.AtoB, v) {
		t.Errorf("on-link receiver: receiver-hops %+v (present %v), Likely %v, Possible %v, NeedsDetail %v; want 0 hops, open, Possible, no second look with detail",
			it, ok, v.Likely, v.Possible, NeedsDetail(r, flows.AtoB, v))
	}

	stalled := stallCapture(t, false)
	rep, err = tcpanalysis.AnalyzeFile(stalled, tcpanalysis.Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := Detect(rep.Conns[0], flows.AtoB); !v.Likely || len(v.Supporting()) != 2 {
		t.Errorf("on-link acknowledger that stalls: Likely %v (%v), want receiver-hops and zero-window-stall", v.Likely, v.Supporting())
	}
}
