package tcpanalysis

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// One rule of docs/metrics.md#evidence per test, each on a capture built by
// hand with internal/pcaptest (times in ms after t0, numbers relative).

var (
	vt0  = time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	vCli = netip.MustParseAddrPort("192.0.2.1:40000")
	vSrv = netip.MustParseAddrPort("198.51.100.1:5201")
)

func vms(n float64) time.Time { return vt0.Add(time.Duration(n * float64(time.Millisecond))) }

// analyzeSegs writes segs (in the order given) as a nanosecond pcap and
// analyses it with every series, sample and event kept.
func analyzeSegs(t *testing.T, segs []pcaptest.Segment) *Report {
	t.Helper()
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "test.pcap")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(r, Options{Flows: flows.Options{WScale: -1}, Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conns) != 1 {
		t.Fatalf("%d connections, want 1", len(rep.Conns))
	}
	return rep
}

// events lists "frame:class:evidence" of r's events of the given classes.
func events(r *ConnResult, cls ...Class) string {
	var out []string
	for _, e := range r.Events {
		for _, c := range cls {
			if e.Class == c {
				out = append(out, fmt.Sprintf("%d:%s:%s", e.Frame, e.Class, e.Evidence))
			}
		}
	}
	return strings.Join(out, " ")
}

func ackSamples(r *ConnResult, d flows.Direction, m Method) []float64 {
	var out []float64
	for _, s := range r.RTT {
		if s.Dir == d && s.Method == m {
			out = append(out, float64(s.RTT)/1e6)
		}
	}
	return out
}

// TestKarnGapFillingRetransmission: the first copy of bytes 1001..2000 was
// lost before the capture point, so the capture sees them once, 200 ms
// (> one RTT) after the gap opened: a retransmission. The ACK that covers
// them gives no ACK-method sample, although the capture holds one copy.
func TestKarnGapFillingRetransmission(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := c.Handshake(vms(0), 20*time.Millisecond)
	segs = append(segs,
		c.DataAt(vms(21), pcaptest.C2S, 1, 1000),      // 4
		c.DataAt(vms(21.2), pcaptest.C2S, 2001, 1000), // 5: 1001..2000 never captured
		c.Ack(vms(41), pcaptest.S2C, 1001, 65535),     // 6: sample 20 ms
		c.Ack(vms(41.2), pcaptest.S2C, 1001, 65535),   // 7: dup ACK
		c.DataAt(vms(241), pcaptest.C2S, 1001, 1000),  // 8: the retransmission
		c.Ack(vms(261), pcaptest.S2C, 3001, 65535),    // 9: covers 8: Karn, no sample
	)
	rep := analyzeSegs(t, segs)
	r := rep.Conns[0]
	if got := ackSamples(r, flows.AtoB, MethodACK); fmt.Sprint(got) != "[20]" {
		t.Errorf("ACK samples %v ms, want [20] (frame 9 covers a retransmission)", got)
	}
	if got := events(r, RTO, Fast, OutOfOrder); got != "8:rto:no_signal" {
		t.Errorf("events %q, want 8:rto:no_signal", got)
	}
}

// TestHandshakeSynSentTwice: the SYN is sent twice (same ISN). With
// timestamps the SYN-ACK's TSecr names the copy it answers; without, the
// handshake RTT is ambiguous (Karn) and left out. A SYN-ACK sent twice is
// paired with the handshake ACK the same way.
func TestHandshakeSynSentTwice(t *testing.T) {
	for _, ts := range []bool{true, false} {
		t.Run(fmt.Sprintf("timestamps=%v", ts), func(t *testing.T) {
			c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
			c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: ts})
			c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: ts})
			segs := []pcaptest.Segment{
				c.Syn(vms(0), pcaptest.C2S),                // TSval 1000
				c.Syn(vms(1000), pcaptest.C2S),             // TSval 2000
				c.Syn(vms(1030), pcaptest.S2C),             // echoes 2000
				c.Syn(vms(2030), pcaptest.S2C),             // SYN-ACK again, TSval 6000
				c.Ack(vms(2030.5), pcaptest.C2S, 1, 65535), // echoes 6000
			}
			if ts {
				segs[2].TSecr = 2000
				segs[4].TSecr = segs[3].TSval
			}
			r := analyzeSegs(t, segs).Conns[0]
			h := r.Handshake
			if h.SynTx != 2 || h.SynAckTx != 2 || r.Dir[flows.AtoB].SynRetx != 1 {
				t.Errorf("SynTx, SynAckTx, SynRetx = %d, %d, %d, want 2, 2, 1", h.SynTx, h.SynAckTx, r.Dir[flows.AtoB].SynRetx)
			}
			if ts {
				if !h.SynToSynAckOk || h.SynToSynAck != 30*time.Millisecond || h.SynEvidence != EvTSecr {
					t.Errorf("SYN→SYN-ACK %v (ok %v, %s), want 30ms by tsecr", h.SynToSynAck, h.SynToSynAckOk, h.SynEvidence)
				}
				if !h.SynAckToAckOk || h.SynAckToAck != 500*time.Microsecond || h.SynAckEvidence != EvTSecr {
					t.Errorf("SYN-ACK→ACK %v (ok %v, %s), want 0.5ms by tsecr", h.SynAckToAck, h.SynAckToAckOk, h.SynAckEvidence)
				}
			} else {
				if h.SynToSynAckOk || h.SynEvidence != EvAmbiguous || h.SynAckToAckOk || h.SynAckEvidence != EvAmbiguous {
					t.Errorf("handshake %+v, want no sample, ambiguous", h)
				}
				if n := len(ackSamples(r, flows.AtoB, MethodHandshake)); n != 0 {
					t.Errorf("%d handshake samples, want 0", n)
				}
			}
		})
	}
}

// TestSpuriousByEchoedTSval: at the sender, an RTO retransmission whose
// first covering ACK echoes the original's TSval was spurious (Eifel,
// RFC 3522); one whose covering ACK echoes its own TSval was needed.
func TestSpuriousByEchoedTSval(t *testing.T) {
	for _, spurious := range []bool{true, false} {
		t.Run(fmt.Sprintf("spurious=%v", spurious), func(t *testing.T) {
			c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
			c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
			c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
			segs := c.Handshake(vms(0), 50*time.Millisecond)
			orig := c.DataAt(vms(51), pcaptest.C2S, 1, 1000)  // 4
			retx := c.DataAt(vms(351), pcaptest.C2S, 1, 1000) // 5: RTO
			ack := c.Ack(vms(400), pcaptest.S2C, 1001, 65535) // 6
			ack.TSecr = retx.TSval
			if spurious {
				ack.TSecr = orig.TSval
			}
			r := analyzeSegs(t, append(segs, orig, retx, ack)).Conns[0]
			want := "5:rto:no_signal"
			if spurious {
				want = "5:spurious:tsecr"
			}
			if got := events(r, RTO, Fast, Spurious); got != want {
				t.Errorf("events %q, want %q", got, want)
			}
			if spurious && (r.Counts[flows.AtoB][Spurious] != 1 || r.Counts[flows.AtoB][RTO] != 0) {
				t.Errorf("counts spurious %d rto %d, want 1 0", r.Counts[flows.AtoB][Spurious], r.Counts[flows.AtoB][RTO])
			}
		})
	}
}

// TestSpuriousByDSACK: no timestamps; the receiver reports the
// retransmitted bytes in a D-SACK block below its cumulative ACK
// (RFC 2883): spurious, counted as a D-SACK, and never subtracted from the
// SACK-aware bytes in flight.
func TestSpuriousByDSACK(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := c.Handshake(vms(0), 50*time.Millisecond)
	segs = append(segs,
		c.DataAt(vms(51), pcaptest.C2S, 1, 1000),                       // 4
		c.DataAt(vms(52), pcaptest.C2S, 1001, 1000),                    // 5
		c.DataAt(vms(351), pcaptest.C2S, 1, 1000),                      // 6: RTO
		c.Ack(vms(400), pcaptest.S2C, 2001, 65535),                     // 7
		c.Ack(vms(401), pcaptest.S2C, 2001, 65535, [2]uint32{1, 1001}), // 8: D-SACK
	)
	r := analyzeSegs(t, segs).Conns[0]
	if got := events(r, RTO, Fast, Spurious); got != "6:spurious:dsack" {
		t.Errorf("events %q, want 6:spurious:dsack", got)
	}
	if r.Dir[flows.AtoB].DSACKs != 1 {
		t.Errorf("DSACKs = %d, want 1", r.Dir[flows.AtoB].DSACKs)
	}
	for _, w := range r.Series.Window[flows.AtoB] {
		if w.Frame == 8 && (w.InFlight != 0 || w.InFlightSACK != 0) {
			t.Errorf("frame 8: in flight %d / SACK-aware %d, want 0 / 0", w.InFlight, w.InFlightSACK)
		}
	}
}

// TestReorderingByTSval: a gap filled long after it opened is a delayed
// original when its TSval is older than one already sent, and a gap filled
// at once is a retransmission when its TSval is fresh.
func TestReorderingByTSval(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
	segs := c.Handshake(vms(0), 20*time.Millisecond)
	late := c.DataAt(vms(21), pcaptest.C2S, 1, 1000) // sent first, captured last
	segs = append(segs,
		c.DataAt(vms(22), pcaptest.C2S, 1001, 1000), // 4: gap 1..1000
		c.Ack(vms(42), pcaptest.S2C, 1, 65535),      // 5 (dup-free: nothing acked yet)
	)
	late.T = vms(100) // 6: > one RTT (20 ms) after the gap opened, TSval older
	segs = append(segs, late,
		c.Ack(vms(120), pcaptest.S2C, 2001, 65535),     // 7
		c.DataAt(vms(130), pcaptest.C2S, 3001, 1000),   // 8: gap 2001..3000
		c.DataAt(vms(130.5), pcaptest.C2S, 2001, 1000), // 9: at once, but a fresh TSval
	)
	segs[len(segs)-1].TSval = segs[len(segs)-2].TSval + 1
	r := analyzeSegs(t, segs).Conns[0]
	if got := events(r, RTO, Fast, Spurious, OutOfOrder); got != "6:out_of_order:tsval 9:rto:tsval" {
		t.Errorf("events %q, want 6:out_of_order:tsval 9:rto:tsval", got)
	}
}

// TestDupAcksAtMillisecondResolution: IPv6 without SACK or timestamps, one
// millisecond resolution: three byte-identical duplicate ACKs with one
// timestamp are three duplicate ACKs, and the retransmission is fast.
func TestDupAcksAtMillisecondResolution(t *testing.T) {
	c := pcaptest.NewConn(netip.MustParseAddrPort("[2001:db8::1]:40000"), netip.MustParseAddrPort("[2001:db8::2]:80"), 1000, 9000)
	segs := c.Handshake(vms(0), 3*time.Millisecond)
	for i := range 5 {
		segs = append(segs, c.Data(vms(4), pcaptest.C2S, 1000)) // 4..8; 5 is lost
		_ = i
	}
	segs = append(segs, c.Ack(vms(7), pcaptest.S2C, 1001, 65535)) // 9
	for range 3 {
		segs = append(segs, c.Ack(vms(7), pcaptest.S2C, 1001, 65535)) // 10..12: identical
	}
	segs = append(segs, c.DataAt(vms(7), pcaptest.C2S, 1001, 1000)) // 13
	rep := analyzeSegs(t, segs)
	r := rep.Conns[0]
	if r.Conn.Folded != 0 {
		t.Errorf("Folded = %d, want 0", r.Conn.Folded)
	}
	if got := events(r, DupAck, Fast, RTO); got != "10:dup_ack: 11:dup_ack: 12:dup_ack: 13:fast:dup_acks" {
		t.Errorf("events %q", got)
	}
}

// TestNegativeHandshakeDropped: a SYN-ACK stamped before its SYN gives no
// handshake value anywhere, and one warning.
func TestNegativeHandshakeDropped(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := c.Handshake(vms(10), 0)
	segs[1].T = vms(9.85)
	rep := analyzeSegs(t, segs)
	r := rep.Conns[0]
	if r.Handshake.SynToSynAckOk || r.NegativeRTT != 1 || len(ackSamples(r, flows.AtoB, MethodHandshake)) != 0 {
		t.Errorf("handshake %+v, NegativeRTT %d: want no SYN→SYN-ACK value, 1 dropped", r.Handshake, r.NegativeRTT)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "1 RTT samples in 1 connection dropped") {
		t.Errorf("warnings %q lack the dropped-sample note", rep.Warnings)
	}
}

// TestZeroByteProbeInZeroWindow: a 0-byte segment at SND.NXT − 1 while the
// peer advertises a zero window is a zero-window probe (as Linux sends
// them), not a keep-alive; with the window open it is a keep-alive.
func TestZeroByteProbeInZeroWindow(t *testing.T) {
	for _, win := range []uint16{0, 65535} {
		c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
		segs := c.Handshake(vms(0), 10*time.Millisecond)
		segs = append(segs, c.Data(vms(11), pcaptest.C2S, 100), c.Ack(vms(21), pcaptest.S2C, 101, win))
		probe := c.DataAt(vms(300), pcaptest.C2S, 100, 0) // SND.NXT − 1, no payload
		probe.Flags = pcaptest.ACK
		r := analyzeSegs(t, append(segs, probe)).Conns[0]
		want := "6:zw_probe:zero_window"
		if win != 0 {
			want = "6:keepalive:snd_nxt_minus_1"
		}
		if got := events(r, ZWProbe, KeepAlive); got != want {
			t.Errorf("window %d: events %q, want %q", win, got, want)
		}
	}
}

// icmpQuote builds an IPv4 ICMP error from router to the quoted packet's
// source, quoting the first 28 bytes of ipPkt (RFC 792).
func icmpQuote(router netip.Addr, typ, code byte, mtu uint16, ipPkt []byte) []byte {
	q := ipPkt[:28]
	b := []byte{0x45, 0, 0, 0, 0, 1, 0, 0, 64, 1, 0, 0}
	b = append(b, router.AsSlice()...)
	b = append(b, ipPkt[12:16]...) // to the quoted packet's source
	b = append(b, typ, code, 0, 0, 0, 0, byte(mtu>>8), byte(mtu))
	b = append(b, q...)
	b[2], b[3] = byte(len(b)>>8), byte(len(b))
	return b
}

// TestICMPErrorsBecomeEvents: a "fragmentation needed" quoting a data
// segment, and a port unreachable quoting the SYN, are events of their
// connection (the PMTU black hole of a stalled transfer shows); an error
// quoting no connection of the capture is not.
func TestICMPErrorsBecomeEvents(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := c.Handshake(vms(0), 20*time.Millisecond)
	big := c.Data(vms(21), pcaptest.C2S, 1400)
	segs = append(segs, big)
	router := netip.MustParseAddr("203.0.113.1")
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	f.Add(vms(25), 0, icmpQuote(router, 3, 4, 1280, big.IP())) // frame 5
	other := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.9:1"), vSrv, 1, 1).Syn(vms(26), pcaptest.C2S)
	f.Add(vms(26), 0, icmpQuote(router, 3, 3, 0, other.IP())) // frame 6: no such connection
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "icmp.pcap")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(r, Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conns) != 1 || rep.Stats.ICMPQuotes != 2 || rep.Stats.Segments != 4 {
		t.Fatalf("%d connections, %d ICMP quotes, %d segments; want 1, 2, 4", len(rep.Conns), rep.Stats.ICMPQuotes, rep.Stats.Segments)
	}
	var got []string
	for _, e := range rep.Conns[0].Events {
		got = append(got, fmt.Sprintf("%d:%s:%s:seq%d:mtu%d", e.Frame, e.Class, e.Dir, e.Seq, e.Len))
	}
	if fmt.Sprint(got) != "[5:icmp_frag_needed:ab:seq1:mtu1280]" {
		t.Errorf("events %v, want [5:icmp_frag_needed:ab:seq1:mtu1280]", got)
	}
}

// TestICMPFragNeededInCorpus: zeek-smtp.pcap holds four "fragmentation
// needed" errors (frames 26, 28-30) about its SMTP connection.
func TestICMPFragNeededInCorpus(t *testing.T) {
	path := sharedDir(t) + "/corpus/zeek-smtp.pcap"
	rep, err := AnalyzeFile(path, Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	var frames []int64
	for _, c := range rep.Conns {
		for _, e := range c.Events {
			if e.Class == ICMPFragNeeded {
				frames = append(frames, e.Frame)
			}
		}
	}
	if fmt.Sprint(frames) != "[26 28 29 30]" {
		t.Errorf("icmp_frag_needed at frames %v, want [26 28 29 30]", frames)
	}
}

// TestEifelNeedsTheEchoOfAnEarlierCopy: D3 and D4 are lost and
// retransmitted 1 ms apart; one cumulative ACK covers both and echoes D3's
// retransmission (RFC 7323 §4.3). That echo is older than D4's
// retransmission but names no copy of D4: D4 was needed, not spurious.
func TestEifelNeedsTheEchoOfAnEarlierCopy(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
	segs := c.Handshake(vms(0), 50*time.Millisecond)
	segs = append(segs,
		c.DataAt(vms(51), pcaptest.C2S, 1, 1000),    // 4
		c.DataAt(vms(60), pcaptest.C2S, 1001, 1000), // 5: lost
		c.DataAt(vms(70), pcaptest.C2S, 2001, 1000), // 6: lost
		c.Ack(vms(101), pcaptest.S2C, 1001, 65535),  // 7
	)
	r1 := c.DataAt(vms(400), pcaptest.C2S, 1001, 1000) // 8: RTO
	r2 := c.DataAt(vms(401), pcaptest.C2S, 2001, 1000) // 9
	ack := c.Ack(vms(451), pcaptest.S2C, 3001, 65535)  // 10: echoes r1
	ack.TSecr = r1.TSval
	r := analyzeSegs(t, append(segs, r1, r2, ack)).Conns[0]
	if got := events(r, RTO, Fast, Spurious); got != "8:rto:no_signal 9:rto:no_signal" {
		t.Errorf("events %q, want 8:rto:no_signal 9:rto:no_signal", got)
	}
}

// TestOneDSACKOneSpurious: the original is lost, the first retransmission
// repairs it (the covering ACK echoes it) and a second one, sent later, is
// reported by one D-SACK block. Only the second is spurious, by TSecr (it
// echoes an earlier copy) with timestamps and by the D-SACK without.
func TestOneDSACKOneSpurious(t *testing.T) {
	for _, ts := range []bool{true, false} {
		t.Run(fmt.Sprintf("timestamps=%v", ts), func(t *testing.T) {
			c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
			c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: ts})
			c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: ts})
			segs := c.Handshake(vms(0), 50*time.Millisecond)
			segs = append(segs, c.DataAt(vms(51), pcaptest.C2S, 1, 1000)) // 4: lost
			r1 := c.DataAt(vms(400), pcaptest.C2S, 1, 1000)               // 5
			r2 := c.DataAt(vms(1000), pcaptest.C2S, 1, 1000)              // 6
			ack := c.Ack(vms(1001), pcaptest.S2C, 1001, 65535)            // 7: for r1, held up
			ack.TSecr = r1.TSval
			dup := c.Ack(vms(1050), pcaptest.S2C, 1001, 65535, [2]uint32{1, 1001}) // 8: D-SACK of r2
			dup.TSecr = r1.TSval
			r := analyzeSegs(t, append(segs, r1, r2, ack, dup)).Conns[0]
			want := "5:rto:no_signal 6:spurious:tsecr"
			if !ts {
				want = "5:rto:no_signal 6:spurious:dsack"
			}
			if got := events(r, RTO, Fast, Spurious); got != want {
				t.Errorf("events %q, want %q", got, want)
			}
			if r.Counts[flows.AtoB][Spurious] != 1 || r.Dir[flows.AtoB].DSACKs != 1 {
				t.Errorf("spurious %d, D-SACKs %d; want 1, 1", r.Counts[flows.AtoB][Spurious], r.Dir[flows.AtoB].DSACKs)
			}
		})
	}
}

// TestOnEventReportsReclassification: with Options.OnEvent, a
// retransmission later shown spurious is reported twice, the second time
// as spurious with its evidence; Add returns the segment's connection.
func TestOnEventReportsReclassification(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := c.Handshake(vms(0), 50*time.Millisecond)
	segs = append(segs,
		c.DataAt(vms(51), pcaptest.C2S, 1, 1000),
		c.DataAt(vms(351), pcaptest.C2S, 1, 1000),
		c.Ack(vms(400), pcaptest.S2C, 1001, 65535, [2]uint32{1, 1001}),
	)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "x.pcap")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	a := New(Options{OnEvent: func(c *ConnResult, e Event) { got = append(got, fmt.Sprintf("%d:%s:%s", e.Frame, e.Class, e.Evidence)) }})
	var s capture.Segment
	for r.Next(&s) == nil {
		if cr := a.Add(&s); cr == nil || cr.Conn.Index != 0 {
			t.Fatalf("frame %d: Add returned %v", s.Frame, cr)
		}
	}
	if fmt.Sprint(got) != "[5:rto:no_signal 5:spurious:dsack]" {
		t.Errorf("OnEvent calls %v, want [5:rto:no_signal 5:spurious:dsack]", got)
	}
}

// TestFirstAckWithoutHandshake: no handshake captured; two data segments,
// then the peer's first ACK covers the second. The cumulative ACK before it
// is unknown, so only a TSecr echoing the second segment's TSval makes it a
// sample (29 ms); without timestamps, or with an echo of something else,
// there is none.
func TestFirstAckWithoutHandshake(t *testing.T) {
	for _, tc := range []struct {
		name string
		ts   bool
		echo bool
		want string
	}{{"ts-echo", true, true, "[29]"}, {"ts-other", true, false, "[]"}, {"no-ts", false, false, "[]"}} {
		t.Run(tc.name, func(t *testing.T) {
			c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
			if tc.ts {
				c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
				c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
			}
			d1 := c.DataAt(vms(0), pcaptest.C2S, 1, 1000)
			d2 := c.DataAt(vms(1), pcaptest.C2S, 1001, 1000)
			ack := c.Ack(vms(30), pcaptest.S2C, 2001, 65535)
			if tc.ts && !tc.echo {
				ack.TSecr = d1.TSval - 5
			}
			r := analyzeSegs(t, []pcaptest.Segment{d1, d2, ack}).Conns[0]
			if got := ackSamples(r, flows.AtoB, MethodACK); fmt.Sprint(got) != tc.want {
				t.Errorf("ACK samples %v ms, want %s", got, tc.want)
			}
		})
	}
}

// TestPMTURetransmission: an ICMP fragmentation-needed (MTU 1280) quotes
// the 1400-byte segment; the sender resends its bytes at once in two
// smaller segments: class pmtu with evidence icmp_frag_needed, not rto. A
// later timer retransmission of the same bytes is rto again.
func TestPMTURetransmission(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := c.Handshake(vms(0), 20*time.Millisecond)
	big := c.Data(vms(21), pcaptest.C2S, 1400) // frame 4
	router := netip.MustParseAddr("203.0.113.1")
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range append(segs, big) {
		f.Add(s.T, 0, s.IP())
	}
	f.Add(vms(22), 0, icmpQuote(router, 3, 4, 1280, big.IP()))             // frame 5
	f.Add(vms(22.1), 0, c.DataAt(vms(22.1), pcaptest.C2S, 1, 1240).IP())   // frame 6: pmtu
	f.Add(vms(22.2), 0, c.DataAt(vms(22.2), pcaptest.C2S, 1241, 160).IP()) // frame 7: pmtu
	f.Add(vms(600), 0, c.DataAt(vms(600), pcaptest.C2S, 1, 1240).IP())     // frame 8: the timer
	f.Add(vms(620), 0, c.Ack(vms(620), pcaptest.S2C, 1401, 65535).IP())    // frame 9
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "pmtu.pcap")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(r, Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	cr := rep.Conns[0]
	if got, want := events(cr, RTO, Fast, Spurious, PMTU), "6:pmtu:icmp_frag_needed 7:pmtu:icmp_frag_needed 8:rto:no_signal"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if cr.Counts[flows.AtoB][PMTU] != 2 || !PMTU.IsRetransmission() {
		t.Errorf("pmtu count %d, want 2 (and a retransmission class)", cr.Counts[flows.AtoB][PMTU])
	}
}

// TestDSACKMustCoverTheRetransmission: a repacketized RTO resend carries
// the lost bytes 2001..3000 and half of the SACKed 3001..4000; the D-SACK
// reports only 3001..3500. The resend was needed: not spurious (RFC 3708).
func TestDSACKMustCoverTheRetransmission(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := c.Handshake(vms(0), 50*time.Millisecond)
	segs = append(segs,
		c.DataAt(vms(51), pcaptest.C2S, 1, 1000),                          // 4
		c.DataAt(vms(51.1), pcaptest.C2S, 1001, 1000),                     // 5
		c.Ack(vms(101), pcaptest.S2C, 2001, 65535),                        // 6
		c.DataAt(vms(102), pcaptest.C2S, 2001, 1000),                      // 7: lost
		c.DataAt(vms(102.1), pcaptest.C2S, 3001, 1000),                    // 8
		c.Ack(vms(152), pcaptest.S2C, 2001, 65535, [2]uint32{3001, 4001}), // 9: SACK
		c.DataAt(vms(402), pcaptest.C2S, 2001, 1500),                      // 10: resend 2001..3500
		c.Ack(vms(452), pcaptest.S2C, 4001, 65535, [2]uint32{3001, 3501}), // 11: D-SACK of half
	)
	r := analyzeSegs(t, segs).Conns[0]
	if got := events(r, RTO, Fast, Spurious); got != "10:fast:sack" {
		t.Errorf("events %q, want 10:fast:sack (the D-SACK covers only part of it)", got)
	}
	if r.Dir[flows.AtoB].DSACKs != 1 {
		t.Errorf("DSACKs = %d, want 1", r.Dir[flows.AtoB].DSACKs)
	}
}

// TestGapRuleAtTheReceiver: a receiver-side capture (handshake legs 0.1 ms
// and 50 ms): D2 arrives 4.8 ms after the gap opened. The one-RTT rule
// takes the whole path (0.1 + 50 ms), not the receiver's 0.1 ms
// turnaround that its ACK samples measure: out of order, and its ACK gives
// a sample.
func TestGapRuleAtTheReceiver(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := []pcaptest.Segment{c.Syn(vms(0), pcaptest.C2S), c.Syn(vms(0.1), pcaptest.S2C), c.Ack(vms(50.1), pcaptest.C2S, 1, 65535)}
	segs = append(segs,
		c.DataAt(vms(51), pcaptest.C2S, 1, 1000),      // 4
		c.Ack(vms(51.1), pcaptest.S2C, 1001, 65535),   // 5: 0.1 ms
		c.DataAt(vms(51.2), pcaptest.C2S, 2001, 1000), // 6: gap 1001..2000
		c.Ack(vms(51.25), pcaptest.S2C, 1001, 65535),  // 7
		c.DataAt(vms(56), pcaptest.C2S, 1001, 1000),   // 8: 4.8 ms later
		c.Ack(vms(56.1), pcaptest.S2C, 3001, 65535),   // 9
	)
	r := analyzeSegs(t, segs).Conns[0]
	if got := events(r, RTO, Fast, OutOfOrder); got != "8:out_of_order:one_rtt" {
		t.Errorf("events %q, want 8:out_of_order:one_rtt", got)
	}
	if got := ackSamples(r, flows.AtoB, MethodACK); fmt.Sprint(got) != "[0.1 4.9]" {
		t.Errorf("ACK samples %v, want [0.1 4.9]", got)
	}
}

// TestHandshakeAnsweredByOptions: the SYN is sent twice, the retry without
// options (a stack that drops them); the SYN-ACK carries window scale, so it
// answers the first copy (RFC 7323 §2.2): 3020 ms, evidence options.
func TestHandshakeAnsweredByOptions(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{WS: true, WScale: 8, SACKPerm: true})
	first := c.Syn(vms(0), pcaptest.C2S)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{})
	retry := c.Syn(vms(3000), pcaptest.C2S)
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{WS: true, WScale: 7})
	r := analyzeSegs(t, []pcaptest.Segment{first, retry, c.Syn(vms(3020), pcaptest.S2C), c.Ack(vms(3020.1), pcaptest.C2S, 1, 65535)}).Conns[0]
	if r.Handshake.SynEvidence != EvOptions || r.Handshake.SynToSynAck != 3020*time.Millisecond {
		t.Errorf("SYN → SYN-ACK %v by %s, want 3.02s by options", r.Handshake.SynToSynAck, r.Handshake.SynEvidence)
	}
}

// TestTSvalReorderedFirstSighting: TSval 1031 is first seen after 1032
// (a reordered original) and echoed 20 ms later: a ts sample of 20 ms.
func TestTSvalReorderedFirstSighting(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
	segs := c.Handshake(vms(0), 20*time.Millisecond)
	late := c.DataAt(vms(30), pcaptest.C2S, 1, 1000)
	early := c.DataAt(vms(31), pcaptest.C2S, 1001, 1000)
	late.T = vms(40)
	ack := c.Ack(vms(60), pcaptest.S2C, 2001, 65535)
	ack.TSecr = late.TSval
	r := analyzeSegs(t, append(segs, early, late, ack)).Conns[0]
	var got []string
	for _, s := range r.RTT {
		if s.Method == MethodTS && s.Dir == flows.AtoB && s.Frame == 6 {
			got = append(got, fmt.Sprint(s.RTT))
		}
	}
	if fmt.Sprint(got) != "[20ms]" {
		t.Errorf("ts samples at frame 6: %v, want [20ms] (TSval of frame 5, first seen at 40 ms)", got)
	}
}

// TestPMTUUnquotedSegment: two 1400-byte segments are too big for a 1280
// MTU; the router's rate-limited ICMP quotes only the first. The sender
// resends both at once: all four resends are pmtu.
func TestPMTUUnquotedSegment(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	segs := c.Handshake(vms(0), 20*time.Millisecond)
	d1 := c.Data(vms(21), pcaptest.C2S, 1400)   // 4
	d2 := c.Data(vms(21.1), pcaptest.C2S, 1400) // 5
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range append(segs, d1, d2) {
		f.Add(s.T, 0, s.IP())
	}
	f.Add(vms(22), 0, icmpQuote(netip.MustParseAddr("203.0.113.1"), 3, 4, 1280, d1.IP())) // 6
	for i, x := range [][2]uint32{{1, 1240}, {1241, 160}, {1401, 1240}, {2641, 160}} {
		f.Add(vms(22.1+float64(i)/10), 0, c.DataAt(vms(22.1+float64(i)/10), pcaptest.C2S, x[0], int(x[1])).IP()) // 7-10
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "pmtu2.pcap")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(r, Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "7:pmtu:icmp_frag_needed 8:pmtu:icmp_frag_needed 9:pmtu:icmp_frag_needed 10:pmtu:icmp_frag_needed"
	if got := events(rep.Conns[0], RTO, Fast, PMTU); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
}

// TestQueuedRetransmissionByTSval: bytes 1..1000 sent (TSval t), then
// 1001..3000; the sender retransmits 1..1000 with a TSval newer than its
// first copy's but older than the last segment's (it waited in the node's
// queue behind them, as on an ns-3 MANET sender): a retransmission, not a
// delayed original. A copy of 1..1000 stamped before the first copy's
// TSval is the delayed original of the network (reordering).
func TestQueuedRetransmissionByTSval(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
	c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
	segs := c.Handshake(vms(0), 20*time.Millisecond)
	first := c.DataAt(vms(21), pcaptest.C2S, 1, 1000) // 4
	segs = append(segs, first,
		c.DataAt(vms(22), pcaptest.C2S, 1001, 1000), // 5
		c.DataAt(vms(40), pcaptest.C2S, 2001, 1000), // 6
	)
	resent := c.DataAt(vms(60), pcaptest.C2S, 1, 1000) // 7: stamped between 4 and 6
	resent.TSval = first.TSval + 1
	if !(resent.TSval < segs[len(segs)-1].TSval) {
		t.Fatalf("TSvals %d, %d: the test needs the retransmission's between", resent.TSval, segs[len(segs)-1].TSval)
	}
	delayed := c.DataAt(vms(61), pcaptest.C2S, 1, 1000) // 8: stamped before the first copy
	delayed.TSval = first.TSval - 1
	segs = append(segs, resent, delayed)
	r := analyzeSegs(t, segs).Conns[0]
	got := events(r, RTO, Fast, Spurious, OutOfOrder)
	if !strings.HasPrefix(got, "7:rto:") || !strings.Contains(got, "8:out_of_order:tsval") {
		t.Errorf("events %q, want 7 a retransmission (rto) and 8:out_of_order:tsval", got)
	}
}

// TestEifelOnTheFirstAck: the first ACK that covers a retransmission is
// Eifel's evidence (RFC 3522 §3) whether or not it is the first ACK of
// its direction in the capture. A timer retransmission 300 ms after its
// original, then an ACK echoing the original's TSval: spurious, by tsecr,
// with the handshake captured and without it (where that ACK is the
// direction's first: it was ignored, zeek-smtp frames 91–92). A D-SACK
// block on that first ACK shows it too.
func TestEifelOnTheFirstAck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		handshake bool
		ts        bool
	}{{"handshake-tsecr", true, true}, {"midstream-tsecr", false, true}, {"midstream-dsack", false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
			if tc.ts {
				c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
				c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
			}
			var segs []pcaptest.Segment
			if tc.handshake {
				segs = c.Handshake(vms(0), 50*time.Millisecond)
			}
			orig := c.DataAt(vms(51), pcaptest.C2S, 1, 1000)
			retx := c.DataAt(vms(351), pcaptest.C2S, 1, 1000)
			var ack pcaptest.Segment
			if tc.ts {
				ack = c.Ack(vms(360), pcaptest.S2C, 1001, 65535)
				ack.TSecr = orig.TSval
			} else {
				ack = c.Ack(vms(360), pcaptest.S2C, 1001, 65535, [2]uint32{1, 1001})
			}
			segs = append(segs, orig, retx, ack)
			r := analyzeSegs(t, segs).Conns[0]
			why := "tsecr"
			if !tc.ts {
				why = "dsack"
			}
			want := fmt.Sprintf("%d:spurious:%s", len(segs)-1, why)
			if got := events(r, RTO, Fast, Spurious); got != want {
				t.Errorf("events %q, want %q", got, want)
			}
			if r.Counts[flows.AtoB][Spurious] != 1 || r.Counts[flows.AtoB][RTO] != 0 {
				t.Errorf("counts spurious %d rto %d, want 1 0", r.Counts[flows.AtoB][Spurious], r.Counts[flows.AtoB][RTO])
			}
		})
	}
}

// TestEifelOnTheHandshake: a SYN or SYN-ACK sent again is a retransmission
// whose first covering ACK is the answer that completes its half of the
// handshake: the SYN-ACK for the SYN, the client's ACK for the SYN-ACK.
// An answer echoing the first copy's TSval shows the copy sent again
// spurious (tsecr), as for a FIN; echoing the copy sent again, it stays
// rto.
func TestEifelOnTheHandshake(t *testing.T) {
	for _, tc := range []struct {
		name      string
		side      pcaptest.Dir
		echoFirst bool
		want      string
	}{
		{"syn-echo-first", pcaptest.C2S, true, "2:spurious:tsecr"},
		{"syn-echo-second", pcaptest.C2S, false, "2:rto:no_signal"},
		{"synack-echo-first", pcaptest.S2C, true, "3:spurious:tsecr"},
		{"synack-echo-second", pcaptest.S2C, false, "3:rto:no_signal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
			c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
			c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
			var segs []pcaptest.Segment
			if tc.side == pcaptest.C2S {
				first := c.Syn(vms(0), pcaptest.C2S)     // 1
				again := c.Syn(vms(1000), pcaptest.C2S)  // 2: the timer
				synack := c.Syn(vms(1050), pcaptest.S2C) // 3
				if tc.echoFirst {
					synack.TSecr = first.TSval
				}
				segs = []pcaptest.Segment{first, again, synack, c.Ack(vms(1050), pcaptest.C2S, 1, 65535)}
			} else {
				syn := c.Syn(vms(0), pcaptest.C2S)      // 1
				first := c.Syn(vms(50), pcaptest.S2C)   // 2
				again := c.Syn(vms(1050), pcaptest.S2C) // 3: the server's timer
				ack := c.Ack(vms(1100), pcaptest.C2S, 1, 65535)
				if tc.echoFirst {
					ack.TSecr = first.TSval
				}
				segs = []pcaptest.Segment{syn, first, again, ack}
			}
			r := analyzeSegs(t, segs).Conns[0]
			if got := events(r, RTO, Fast, Spurious); got != tc.want {
				t.Errorf("events %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRetransmissionWithoutTheReceiver: a retransmission that no duplicate
// ACK or SACK preceded is rto (no_signal) only where the capture would
// have held them: with no packet of the receiver captured before it the
// class is unknown (no_reverse), counted apart from rto, whatever comes
// after; a SYN sent again stays rto (nothing signals before the
// handshake); an ICMP fragmentation-needed still makes it pmtu.
func TestRetransmissionWithoutTheReceiver(t *testing.T) {
	for _, tc := range []struct {
		name string
		segs func(c *pcaptest.Conn) []pcaptest.Segment
		want string
	}{
		{"one-way", func(c *pcaptest.Conn) []pcaptest.Segment {
			// The tester's oneway.pcap: only the client's data; 1001..2000
			// sent again 200 ms after it.
			return []pcaptest.Segment{
				c.Data(vms(0), pcaptest.C2S, 1000), c.Data(vms(50), pcaptest.C2S, 1000), c.Data(vms(100), pcaptest.C2S, 1000),
				c.DataAt(vms(250), pcaptest.C2S, 1000, 1000), // 4 (pcaptest numbers from 0 without a handshake)
				c.Data(vms(300), pcaptest.C2S, 1000),
			}
		}, "4:unknown:no_reverse"},
		{"asymmetric", func(c *pcaptest.Conn) []pcaptest.Segment {
			// asym.pcap: the client's SYN, its ACK of a SYN-ACK the
			// capture never saw, its data.
			c.Syn(vms(0), pcaptest.S2C) // sent, not captured: the client's ACK acknowledges it
			return []pcaptest.Segment{
				c.Syn(vms(0), pcaptest.C2S), c.Ack(vms(30), pcaptest.C2S, 1, 65535),
				c.Data(vms(31), pcaptest.C2S, 1000), c.Data(vms(41), pcaptest.C2S, 1000),
				c.DataAt(vms(71), pcaptest.C2S, 1, 1000), // 5
			}
		}, "5:unknown:no_reverse"},
		{"receiver-only-after", func(c *pcaptest.Conn) []pcaptest.Segment {
			// Mid-connection: the receiver's first packet comes after the
			// retransmission, after any signal would have passed.
			return []pcaptest.Segment{
				c.Data(vms(0), pcaptest.C2S, 1000),
				c.DataAt(vms(300), pcaptest.C2S, 0, 1000), // 2
				c.Ack(vms(350), pcaptest.S2C, 1000, 65535),
			}
		}, "2:unknown:no_reverse"},
		{"receiver-seen", func(c *pcaptest.Conn) []pcaptest.Segment {
			// The handshake shows the receiver's side: a request lost,
			// sent again by the timer, nothing came back.
			return append(c.Handshake(vms(0), 20*time.Millisecond),
				c.Data(vms(21), pcaptest.C2S, 100),
				c.DataAt(vms(1021), pcaptest.C2S, 1, 100), // 5
			)
		}, "5:rto:no_signal"},
		{"fin-one-way", func(c *pcaptest.Conn) []pcaptest.Segment {
			f := c.Fin(vms(0), pcaptest.C2S)
			f.Seq = c.Seq(pcaptest.C2S, 1)
			again := f
			again.T = vms(200) // 2: the same FIN again
			return []pcaptest.Segment{f, again}
		}, "2:unknown:no_reverse"},
		{"syn-unanswered", func(c *pcaptest.Conn) []pcaptest.Segment {
			return []pcaptest.Segment{c.Syn(vms(0), pcaptest.C2S), c.Syn(vms(1000), pcaptest.C2S)}
		}, "2:rto:no_signal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
			r := analyzeSegs(t, tc.segs(c)).Conns[0]
			if got := events(r, RTO, Fast, Spurious, PMTU, RetxUnknown); got != tc.want {
				t.Errorf("events %q, want %q", got, tc.want)
			}
			unknown := int64(strings.Count(tc.want, ":unknown:"))
			if n := r.Counts[flows.AtoB][RetxUnknown]; n != unknown || r.Counts[flows.AtoB][RTO] != 1-unknown {
				t.Errorf("counts unknown %d rto %d, want %d %d", n, r.Counts[flows.AtoB][RTO], unknown, 1-unknown)
			}
		})
	}
}

// TestRetransmissionEchoesAMissedAck: with timestamps, the
// retransmission's TSecr is the newest TSval of the receiver the sender
// accepted (RFC 7323 §4.3). Echoing one newer than any the capture holds,
// it shows the capture missed the receiver's packets of the time (duplicate
// ACKs may be among them): unknown, reverse_missed. Echoing the newest
// captured one, the capture saw what the sender did: rto.
func TestRetransmissionEchoesAMissedAck(t *testing.T) {
	for _, missed := range []bool{true, false} {
		t.Run(fmt.Sprintf("missed=%v", missed), func(t *testing.T) {
			c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
			c.SynOpts(pcaptest.C2S, pcaptest.SynOptions{TS: true})
			c.SynOpts(pcaptest.S2C, pcaptest.SynOptions{TS: true})
			segs := c.Handshake(vms(0), 20*time.Millisecond)
			segs = append(segs,
				c.Data(vms(21), pcaptest.C2S, 1000),          // 4
				c.Data(vms(22), pcaptest.C2S, 1000),          // 5: lost
				c.Data(vms(23), pcaptest.C2S, 1000),          // 6
				c.Ack(vms(41), pcaptest.S2C, 1001, 65535),    // 7: the last ACK captured
				c.DataAt(vms(300), pcaptest.C2S, 1001, 1000), // 8: sent again
			)
			retx := &segs[len(segs)-1]
			if missed {
				// The sender accepted a later ACK of the receiver's, 30 ms
				// on (its clock ticks 1 per ms), which the capture lacks.
				retx.TSecr += 30
			}
			r := analyzeSegs(t, segs).Conns[0]
			want := "8:rto:no_signal"
			if missed {
				want = "8:unknown:reverse_missed"
			}
			if got := events(r, RTO, Fast, Spurious, RetxUnknown); got != want {
				t.Errorf("events %q, want %q", got, want)
			}
		})
	}
}

// TestPMTUWithoutTheReceiver: the ICMP fragmentation-needed explains the
// resend whatever the capture holds of the receiver: pmtu, not unknown.
func TestPMTUWithoutTheReceiver(t *testing.T) {
	c := pcaptest.NewConn(vCli, vSrv, 1000, 9000)
	// Without a handshake pcaptest numbers from 0 (tcpviz's 1); no packet
	// of the server at all.
	big := c.Data(vms(0), pcaptest.C2S, 1400) // frame 1
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	f.Add(big.T, 0, big.IP())
	f.Add(vms(1), 0, icmpQuote(netip.MustParseAddr("203.0.113.1"), 3, 4, 1280, big.IP())) // frame 2
	f.Add(vms(1.1), 0, c.DataAt(vms(1.1), pcaptest.C2S, 0, 1240).IP())                    // frame 3: pmtu
	f.Add(vms(1.2), 0, c.DataAt(vms(1.2), pcaptest.C2S, 1240, 160).IP())                  // frame 4: pmtu
	f.Add(vms(600), 0, c.DataAt(vms(600), pcaptest.C2S, 0, 1240).IP())                    // frame 5: unknown
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "pmtu.pcap")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Analyze(r, Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := events(rep.Conns[0], RTO, Fast, PMTU, RetxUnknown), "3:pmtu:icmp_frag_needed 4:pmtu:icmp_frag_needed 5:unknown:no_reverse"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if !RetxUnknown.IsRetransmission() || RetxUnknown.String() != "unknown" || EvNoReverse.String() != "no_reverse" || EvReverseMissed.String() != "reverse_missed" {
		t.Errorf("unknown: retransmission %v, names %q %q %q", RetxUnknown.IsRetransmission(), RetxUnknown, EvNoReverse, EvReverseMissed)
	}
}
