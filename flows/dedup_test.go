package flows

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/seq"
)

// 802.11 addresses: each host's own, and a relay's.
var (
	macA     = [6]byte{0x02, 0, 0, 0, 0, 0x0a}
	macB     = [6]byte{0x02, 0, 0, 0, 0, 0x0b}
	macRelay = [6]byte{0x02, 0, 0, 0, 0, 0x0f}
)

const us = time.Microsecond

// orig4 is an IPv4 data segment from cli (midstream: it opens the
// connection, bytes 1..100) with every field the folding compares set.
func orig4() capture.Segment {
	s := seg(cli, srv, fPA, 1001, 5001, 100)
	s.Time = at(0)
	s.IPID = 7
	s.Checksum = 0xbeef
	s.Opts.TS, s.Opts.TSval, s.Opts.TSecr = true, 1234, 99
	return s
}

// orig6 is orig4 over IPv6 (no IP ID).
func orig6() capture.Segment {
	s := orig4()
	s.Src, s.Dst, s.IPv6, s.IPID = cli6, srv6, true, 0
	return s
}

// wifi puts s on an 802.11 link, sent by ta.
func wifi(s capture.Segment, ta [6]byte) capture.Segment {
	s.WiFi, s.TA, s.RA = true, ta, macB
	return s
}

// copyOf returns s captured again d later, changed by fs.
func copyOf(s capture.Segment, d time.Duration, fs ...func(*capture.Segment)) capture.Segment {
	s.Time += capture.Timestamp(d)
	for _, f := range fs {
		f(&s)
	}
	return s
}

func retry(s *capture.Segment) { s.Retry = true }

// df sets the IPv4 don't-fragment bit: the ID alone proves nothing.
func df(s *capture.Segment) { s.DF = true }

// id0 clears the IPv4 identification, as some stacks send DF packets.
func id0(s *capture.Segment) { s.IPID = 0 }

// TestFold: which later segments are copies of the first one.
func TestFold(t *testing.T) {
	o4, o6 := orig4(), orig6()
	w4, w6 := wifi(o4, macA), wifi(o6, macA)
	tests := []struct {
		name    string
		orig    capture.Segment
		later   []capture.Segment
		wantDup []bool // for each of later
	}{
		{"802.11 retry", w4, []capture.Segment{copyOf(w4, 300*us, retry)}, []bool{true}},
		{"802.11 retry, IPv6", w6, []capture.Segment{copyOf(w6, 300*us, retry)}, []bool{true}},
		{"802.11 retry, IPv4 ID 0", copyOf(w4, 0, id0), []capture.Segment{copyOf(w4, 300*us, id0, retry)}, []bool{true}},
		{"802.11 retry, several", w4, []capture.Segment{
			copyOf(w4, 300*us, retry), copyOf(w4, 600*us, retry), copyOf(w4, 900*us, retry),
		}, []bool{true, true, true}},
		{"relayed copy: lower TTL, other TA", w4, []capture.Segment{
			copyOf(w4, 2*time.Millisecond, func(s *capture.Segment) { s.TTL, s.TA, s.RA = 63, macRelay, macB }),
		}, []bool{true}},
		{"relayed twice", w4, []capture.Segment{
			copyOf(w4, 2*time.Millisecond, func(s *capture.Segment) { s.TTL, s.TA = 63, macRelay }),
			copyOf(w4, 4*time.Millisecond, func(s *capture.Segment) { s.TTL, s.TA = 62, macB }),
		}, []bool{true, true}},
		{"IPv4 copy 1.9 s later", o4, []capture.Segment{copyOf(o4, 1900*time.Millisecond)}, []bool{true}},
		{"IPv4 copy exactly foldWindow later", o4, []capture.Segment{copyOf(o4, foldWindow)}, []bool{true}},
		{"IPv4 copy foldWindow + 1 ms later", o4, []capture.Segment{copyOf(o4, foldWindow+time.Millisecond)}, []bool{false}},
		{"802.11 retry foldWindow + 0.5 s later", w4, []capture.Segment{copyOf(w4, foldWindow+500*time.Millisecond, retry)}, []bool{false}},
		{"genuine retransmission: new IP ID", o4, []capture.Segment{
			copyOf(o4, 200*time.Millisecond, func(s *capture.Segment) { s.IPID = 8 }),
		}, []bool{false}},
		{"genuine retransmission with retry bit", w4, []capture.Segment{
			copyOf(w4, 200*time.Millisecond, retry, func(s *capture.Segment) { s.IPID, s.Checksum = 8, 0xbef0 }),
		}, []bool{false}},
		{"IPv4 ID 0, 100 µs later", copyOf(o4, 0, id0), []capture.Segment{
			copyOf(o4, 100*us, id0),
		}, []bool{false}},
		{"IPv4 ID 0, identical timestamp, µs capture", copyOf(o4, 1234, id0), []capture.Segment{
			copyOf(o4, 1234, id0),
		}, []bool{true}},
		{"IPv4 ID 0, identical timestamp, resolution not shown", copyOf(o4, 0, id0), []capture.Segment{
			copyOf(o4, 0, id0),
		}, []bool{false}},
		{"IPv6 burst of duplicate ACKs 100 µs apart", o6, []capture.Segment{
			copyOf(o6, 100*us), copyOf(o6, 200*us), copyOf(o6, 300*us),
		}, []bool{false, false, false}},
		{"IPv6 on another interface within 1 ms", o6, []capture.Segment{
			copyOf(o6, time.Millisecond, func(s *capture.Segment) { s.Iface = 1 }),
		}, []bool{true}},
		{"IPv6 on another interface 2 ms later", o6, []capture.Segment{
			copyOf(o6, 2*time.Millisecond, func(s *capture.Segment) { s.Iface = 1 }),
		}, []bool{true}},
		{"IPv6 on another interface 3 ms later", o6, []capture.Segment{
			copyOf(o6, 3*time.Millisecond, func(s *capture.Segment) { s.Iface = 1 }),
		}, []bool{false}},
		{"IPv6 identical timestamp, µs capture", copyOf(o6, us+us/2), []capture.Segment{copyOf(o6, us+us/2)}, []bool{true}},
		{"IPv6 identical timestamp, ms capture: genuine duplicate ACKs", o6, []capture.Segment{copyOf(o6, 0), copyOf(o6, 0), copyOf(o6, 0)}, []bool{false, false, false}},
		{"IPv6 lower hop limit 300 µs later, µs capture: a router's two sides", copyOf(o6, 1234), []capture.Segment{
			copyOf(o6, 1234+300*us, func(s *capture.Segment) { s.TTL = 63 }),
		}, []bool{true}},
		{"IPv6 lower hop limit, same ms, ms capture: maybe a route change", o6, []capture.Segment{
			copyOf(o6, 0, func(s *capture.Segment) { s.TTL = 63 }),
		}, []bool{false}},
		{"IPv4 DF, constant nonzero ID: genuine duplicate ACKs", copyOf(o4, 0, df), []capture.Segment{
			copyOf(o4, 100*us, df), copyOf(o4, 200*us, df),
		}, []bool{false, false}},
		{"IPv4 DF, ID stream seen to change, then repeated", copyOf(o4, 0, df), []capture.Segment{
			copyOf(o4, 100*us, df, func(s *capture.Segment) { s.IPID, s.Seq = 8, s.Seq+100 }),
			copyOf(o4, 200*us, df, func(s *capture.Segment) { s.IPID, s.Seq = 8, s.Seq+100 }),
		}, []bool{false, true}},
	}
	// Every field the sending stack chose tells a packet from a copy.
	for _, f := range []struct {
		name string
		f    func(*capture.Segment)
	}{
		{"seq", func(s *capture.Segment) { s.Seq++ }},
		{"ack", func(s *capture.Segment) { s.Ack++ }},
		{"payload length", func(s *capture.Segment) { s.PayloadLen-- }},
		{"flags", func(s *capture.Segment) { s.Flags = fA }},
		{"window", func(s *capture.Segment) { s.Window++ }},
		{"checksum", func(s *capture.Segment) { s.Checksum++ }},
		{"TSval", func(s *capture.Segment) { s.Opts.TSval++ }},
		{"IP ID", func(s *capture.Segment) { s.IPID++ }},
	} {
		tests = append(tests, struct {
			name    string
			orig    capture.Segment
			later   []capture.Segment
			wantDup []bool
		}{"other " + f.name + ", same timestamp, retry bit", w4, []capture.Segment{copyOf(w4, 0, retry, f.f)}, []bool{false}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, noFold := range []bool{false, true} {
				tr := NewTracker(Options{WScale: -1, NoFold: noFold})
				orig := tt.orig
				orig.Frame = 1
				p0 := tr.Add(&orig)
				var wantFolded int64
				for i, s := range tt.later {
					s.Frame = int64(i + 2)
					p := tr.Add(&s)
					want := tt.wantDup[i] && !noFold
					if p.Dup != want {
						t.Errorf("NoFold=%v: frame %d: Dup = %v, want %v", noFold, i+2, p.Dup, want)
					}
					if p.Conn != p0.Conn || p.New {
						t.Errorf("NoFold=%v: frame %d: New = %v, Conn.Index = %d, want false, 0", noFold, i+2, p.New, p.Conn.Index)
					}
					// Copies and packets alike get their relative offsets.
					wantSeq := p0.Seq + orig.Seq.Dist(s.Seq)
					if wantEnd := wantSeq + int64(s.SeqLen()); p.Seq != wantSeq || p.End != wantEnd {
						t.Errorf("NoFold=%v: frame %d: Seq, End = %d, %d, want %d, %d", noFold, i+2, p.Seq, p.End, wantSeq, wantEnd)
					}
					if want {
						wantFolded++
					}
				}
				c := p0.Conn
				if c.Folded != wantFolded {
					t.Errorf("NoFold=%v: Folded = %d, want %d", noFold, c.Folded, wantFolded)
				}
				if last := tt.later[len(tt.later)-1].Time; c.Last != last {
					t.Errorf("NoFold=%v: Last = %d, want %d (copies move Last too)", noFold, c.Last, last)
				}
				if noFold && (c.Half[0].dedup != nil || c.Half[1].dedup != nil) {
					t.Errorf("NoFold=true: folding state allocated")
				}
			}
		})
	}
}

// TestFoldPerDirectionAndRing: a copy is looked up among the recent packets
// of its own direction only, not just the latest one.
func TestFoldPerDirectionAndRing(t *testing.T) {
	a1 := orig4()
	a2 := copyOf(a1, time.Millisecond, func(s *capture.Segment) { s.Seq, s.IPID, s.Checksum = 1101, 8, 0x1111 })
	// b1 has every field of a1, retry bit included, but B sent it.
	b1 := copyOf(a1, 2*time.Millisecond, retry, func(s *capture.Segment) { s.Src, s.Dst = srv, cli })
	segs := []capture.Segment{
		a1, a2, b1,
		copyOf(a1, 3*time.Millisecond, retry), // a copy of the packet before last
		copyOf(b1, time.Millisecond, retry),
		copyOf(a2, 3*time.Millisecond), // IPv4 ID 8 again
	}
	wantDup := []bool{false, false, false, true, true, true}
	tr := NewTracker(Options{WScale: -1})
	for i, p := range feed(tr, segs) {
		if p.Dup != wantDup[i] {
			t.Errorf("frame %d: Dup = %v, want %v", i+1, p.Dup, wantDup[i])
		}
	}
	if c := tr.Conns()[0]; c.Folded != 3 {
		t.Errorf("Folded = %d, want 3", c.Folded)
	}
}

// TestFoldOverheardRelay: on a MANET node's own 802.11 capture the next
// hop's forwarded copy of a data segment (another transmitter, TTL one
// lower, the same IPv4 ID) is overheard 0.5 s and 300 segments later, far
// past the 16-slot ring: it is folded all the same (relaySlots), as is a
// pure ACK's copy with its (varying) IPv4 ID. A genuine retransmission by
// the node itself (a new IPv4 ID) is not, nor is a byte-identical pure ACK
// without an ID as far back, even from another transmitter (a duplicate
// ACK after a route change).
func TestFoldOverheardRelay(t *testing.T) {
	first := wifi(orig4(), macA)
	segs := []capture.Segment{first}
	ack := wifi(seg(cli, srv, fA, 1101, 5001, 0), macA)
	ack.Time, ack.DF = at(1), true
	segs = append(segs, ack)
	for i := range 300 {
		s := copyOf(first, time.Duration(i+2)*time.Millisecond, func(s *capture.Segment) {
			s.Seq, s.IPID, s.Checksum = seq.Num(1101+100*i), uint16(8+i), uint16(i)
		})
		segs = append(segs, s)
	}
	relay := copyOf(first, 500*time.Millisecond, func(s *capture.Segment) { s.TA, s.TTL = macRelay, first.TTL-1 })
	resent := copyOf(first, 600*time.Millisecond, func(s *capture.Segment) { s.IPID = 999 })
	ackAgain := copyOf(ack, 650*time.Millisecond, func(s *capture.Segment) { s.TA = macRelay })
	// A pure ACK whose varying IPv4 ID repeats 0.5 s on: the relay's copy.
	idAck := wifi(seg(cli, srv, fA, 1101, 5001, 0), macA)
	idAck.Time, idAck.IPID = at(2), 4242
	segs = append(segs[:2], append([]capture.Segment{idAck}, segs[2:]...)...)
	idAckRelay := copyOf(idAck, 520*time.Millisecond, func(s *capture.Segment) { s.TA, s.TTL = macRelay, idAck.TTL-1 })
	segs = append(segs, relay, resent, ackAgain, idAckRelay)
	tr := NewTracker(Options{WScale: -1})
	ps := feed(tr, segs)
	if n := len(ps); !ps[n-4].Dup || ps[n-3].Dup || ps[n-2].Dup || !ps[n-1].Dup {
		t.Errorf("relay copy Dup %v (want true), retransmission %v, pure ACK without ID %v (want false), pure ACK with its ID %v (want true)",
			ps[n-4].Dup, ps[n-3].Dup, ps[n-2].Dup, ps[n-1].Dup)
	}
	if c := tr.Conns()[0]; c.Folded != 2 || c.FoldedBy[FoldIPID] != 2 {
		t.Errorf("Folded = %d by %v, want 2 by ip_id", c.Folded, c.FoldedBy)
	}
}

// TestFoldedCopyChangesNothing: a copy of a FIN or of the first ACK does not
// move any state but Folded and Last.
func TestFoldedCopyChangesNothing(t *testing.T) {
	segs := script(cat(handshake(1000, 5000), []capture.Segment{
		seg(cli, srv, fPA, 1001, 5001, 10),
	})...)
	tr := NewTracker(Options{WScale: -1})
	feed(tr, segs)
	c := tr.Conns()[0]
	before := *c
	cp := copyOf(segs[3], 0, func(s *capture.Segment) { s.TTL = 63 }) // identical timestamp, same IP ID
	p := tr.Add(&cp)
	if !p.Dup || p.Seq != 1 || p.End != 11 || p.AckValid {
		t.Errorf("copy: Dup, Seq, End, AckValid = %v, %d, %d, %v, want true, 1, 11, false", p.Dup, p.Seq, p.End, p.AckValid)
	}
	after := *c
	before.Folded++
	before.FoldedBy[FoldIPID]++
	before.Half[0].dedup, before.Half[1].dedup = nil, nil
	after.Half[0].dedup, after.Half[1].dedup = nil, nil
	if before != after { // unwrappers included: a copy does not move them
		t.Errorf("after folding a copy: Conn = %+v, want %+v", after, before)
	}
}

// TestSweepDirect: sweep releases the folding state of connections idle
// longer than foldWindow, and folding afterwards decides exactly as without it.
func TestSweepDirect(t *testing.T) {
	x := wifi(orig4(), macA) // idle from 0 s
	y := wifi(orig4(), macA)
	y.Src, y.Dst = cli2, srv2
	y.Time = at(foldWindow + 500*time.Millisecond) // last packet at foldWindow + 0.5 s
	later := []capture.Segment{
		copyOf(x, foldWindow+time.Second, retry), // foldWindow + 1 s after x: never a copy
		copyOf(y, 500*time.Millisecond, retry),
		copyOf(x, foldWindow+time.Second, func(s *capture.Segment) { s.Seq, s.IPID = 1101, 8 }), // new packet on x
		copyOf(x, foldWindow+time.Second+100*us, retry, func(s *capture.Segment) { s.Seq, s.IPID = 1101, 8 }),
	}
	wantDup := []bool{false, true, false, true}
	for _, doSweep := range []bool{false, true} {
		tr := NewTracker(Options{WScale: -1})
		feed(tr, []capture.Segment{x, y})
		cx, cy := tr.Conns()[0], tr.Conns()[1]
		if doSweep {
			tr.sweep(at(foldWindow + time.Second))
			if cx.Half[AtoB].dedup != nil {
				t.Errorf("sweep: state of the connection idle since 0 s kept, want released")
			}
			if cy.Half[AtoB].dedup == nil {
				t.Errorf("sweep: state of the connection active 0.5 s before released, want kept")
			}
		}
		for i, p := range feed(tr, later) {
			if p.Dup != wantDup[i] {
				t.Errorf("sweep=%v: frame %d: Dup = %v, want %v", doSweep, i+3, p.Dup, wantDup[i])
			}
		}
		if cx.Folded != 1 || cy.Folded != 1 {
			t.Errorf("sweep=%v: Folded = %d, %d, want 1, 1", doSweep, cx.Folded, cy.Folded)
		}
	}
}

// TestSweepBulk feeds more than sweepEvery segments, so Add sweeps on its
// own, and checks every fold decision against the script.
func TestSweepBulk(t *testing.T) {
	x := wifi(orig4(), macA) // connection X: one packet at 0 s, then idle
	segs := []capture.Segment{x}
	var want []bool
	want = append(want, false)
	// Connection Y: 70000 data segments 200 µs apart (14 s > foldWindow), every 7th
	// followed 10 µs later by an 802.11 retry of it.
	var yCopies int64
	for i := range 70000 {
		s := wifi(seg(cli2, srv2, fPA, uint32(1000+100*i), 1, 100), macA)
		s.Time = at(time.Duration(i) * 200 * us)
		s.IPID = uint16(i + 1) // wraps: seq still tells the packets apart
		segs, want = append(segs, s), append(want, false)
		if i%7 == 0 {
			segs, want = append(segs, copyOf(s, 10*us, retry)), append(want, true)
			yCopies++
		}
	}
	if len(segs) <= sweepEvery {
		t.Fatalf("only %d segments, want more than %d", len(segs), sweepEvery)
	}
	tr := NewTracker(Options{WScale: -1})
	got := feed(tr, segs)
	cx, cy := tr.Conns()[0], tr.Conns()[1]
	if cx.Half[AtoB].dedup != nil {
		t.Errorf("connection idle for %v: folding state kept, want released by the sweep", cy.Last.Sub(cx.Last))
	}
	// X again, at foldWindow + 6 s: a retry of its old packet is too late to be a copy;
	// a new packet and its retry fold as usual.
	segs = []capture.Segment{
		copyOf(x, foldWindow+6*time.Second, retry),
		copyOf(x, foldWindow+6*time.Second, func(s *capture.Segment) { s.Seq, s.IPID = 1101, 8 }),
		copyOf(x, foldWindow+6*time.Second+10*us, retry, func(s *capture.Segment) { s.Seq, s.IPID = 1101, 8 }),
	}
	want = append(want, false, false, true)
	got = append(got, feed(tr, segs)...)
	bad := 0
	for i, p := range got {
		if p.Dup != want[i] && bad < 10 {
			t.Errorf("segment %d: Dup = %v, want %v", i+1, p.Dup, want[i])
			bad++
		}
	}
	if cx.Folded != 1 || cy.Folded != yCopies {
		t.Errorf("Folded = %d, %d, want 1, %d", cx.Folded, cy.Folded, yCopies)
	}
}

// TestMACLearning: a side's MAC is the TA of its frames with the highest TTL.
func TestMACLearning(t *testing.T) {
	a := wifi(orig4(), macA)
	viaRelay := func(s capture.Segment) capture.Segment { s.TTL, s.TA = 63, macRelay; return s }
	next := func(s capture.Segment, sq uint32, id uint16) capture.Segment {
		s.Seq, s.IPID, s.Time = seq.Num(sq), id, s.Time+capture.Timestamp(time.Millisecond)
		return s
	}
	b := wifi(seg(srv, cli, fA, 5001, 1101, 0), macB)
	b.Time, b.IPID = at(5*time.Millisecond), 1
	tests := []struct {
		name    string
		segs    []capture.Segment
		wantMAC [2][6]byte
		wantOK  [2]bool
	}{
		{"own frames", []capture.Segment{a, b}, [2][6]byte{macA, macB}, [2]bool{true, true}},
		{"relay seen first, own frame later", []capture.Segment{
			viaRelay(a), next(a, 1101, 8), viaRelay(next(a, 1201, 9)),
		}, [2][6]byte{macA}, [2]bool{true, false}},
		{"relayed copy does not replace", []capture.Segment{a, copyOf(viaRelay(a), time.Millisecond)}, [2][6]byte{macA}, [2]bool{true, false}},
		{"learned from a folded copy", []capture.Segment{viaRelay(a), copyOf(a, time.Millisecond)}, [2][6]byte{macA}, [2]bool{true, false}},
		{"only relayed frames", []capture.Segment{viaRelay(a)}, [2][6]byte{macRelay}, [2]bool{true, false}},
		{"not 802.11", []capture.Segment{orig4()}, [2][6]byte{}, [2]bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(Options{WScale: -1})
			feed(tr, tt.segs)
			c := tr.Conns()[0]
			for d := range c.Half {
				h := &c.Half[d]
				if h.MACKnown != tt.wantOK[d] || h.MAC != tt.wantMAC[d] {
					t.Errorf("Half[%v].MAC, MACKnown = %x, %v, want %x, %v", Direction(d), h.MAC, h.MACKnown, tt.wantMAC[d], tt.wantOK[d])
				}
			}
		})
	}
}

// readAll decodes a capture built by pcaptest and feeds it to a Tracker.
func readAll(t *testing.T, data []byte, opts Options) (*Tracker, []Packet) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(data), "test")
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTracker(opts)
	var got []Packet
	for {
		var s capture.Segment
		if err := r.Next(&s); errors.Is(err, io.EOF) {
			return tr, got
		} else if err != nil {
			t.Fatal(err)
		}
		got = append(got, tr.Add(&s))
	}
}

// TestFoldFrom80211Capture: an 802.11 capture (link type 105) with a MAC
// retry of the SYN, a relayed copy of a data segment and a genuine TCP
// retransmission, decoded by capture.Reader.
func TestFoldFrom80211Capture(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	ms := time.Millisecond
	c := pcaptest.NewConn(cli, srv, 1000, 5000)
	toB := pcaptest.Dot11{TA: macA, RA: macRelay}
	toA := pcaptest.Dot11{TA: macB, RA: macRelay}
	relayed := pcaptest.Dot11{TA: macRelay, RA: macB}
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkIEEE80211})
	add := func(ts time.Time, d pcaptest.Dot11, s pcaptest.Segment) { f.Add(ts, 0, d.Frame(s.IP())) }

	syn := c.Syn(t0, pcaptest.C2S)
	add(t0, toB, syn)
	toBRetry := toB
	toBRetry.Retry = true
	add(t0.Add(300*us), toBRetry, syn) // 1: MAC retry
	add(t0.Add(10*ms), toA, c.Syn(t0.Add(10*ms), pcaptest.S2C))
	add(t0.Add(10*ms), toB, c.Ack(t0.Add(10*ms), pcaptest.C2S, 1, 65535))
	data := c.Data(t0.Add(11*ms), pcaptest.C2S, 100)
	add(t0.Add(11*ms), toB, data)
	data.TTL = 63
	add(t0.Add(13*ms), relayed, data)                                        // 2: overheard relay
	add(t0.Add(300*ms), toB, c.DataAt(t0.Add(300*ms), pcaptest.C2S, 1, 100)) // genuine retransmission

	tr, got := readAll(t, f.Bytes(), Options{WScale: -1})
	wantDup := []bool{false, true, false, false, false, true, false}
	if len(got) != len(wantDup) {
		t.Fatalf("got %d segments, want %d", len(got), len(wantDup))
	}
	for i, p := range got {
		if p.Dup != wantDup[i] {
			t.Errorf("frame %d: Dup = %v, want %v", i+1, p.Dup, wantDup[i])
		}
	}
	if n := len(tr.Conns()); n != 1 {
		t.Fatalf("len(Conns()) = %d, want 1", n)
	}
	cn := tr.Conns()[0]
	if cn.Folded != 2 {
		t.Errorf("Folded = %d, want 2", cn.Folded)
	}
	if got[6].Seq != 1 || got[6].End != 101 {
		t.Errorf("retransmission: Seq, End = %d, %d, want 1, 101", got[6].Seq, got[6].End)
	}
	for d, want := range [2][6]byte{macA, macB} {
		if h := &cn.Half[d]; !h.MACKnown || h.MAC != want {
			t.Errorf("Half[%v].MAC, MACKnown = %x, %v, want %x, true", Direction(d), h.MAC, h.MACKnown, want)
		}
	}

	// The same capture with folding off counts every frame.
	tr, got = readAll(t, f.Bytes(), Options{WScale: -1, NoFold: true})
	for i, p := range got {
		if p.Dup {
			t.Errorf("NoFold: frame %d: Dup = true, want false", i+1)
		}
	}
	if cn := tr.Conns()[0]; cn.Folded != 0 {
		t.Errorf("NoFold: Folded = %d, want 0", cn.Folded)
	}
}

// TestFoldFromPcapngInterfaces: an IPv6 pcapng capture on two interfaces.
// A burst of duplicate ACKs on one interface is genuine; the same packet on
// the other interface 500 µs later is a copy. A data segment again with an
// identical timestamp is a copy when the capture resolves time finely; a
// pure ACK again with an identical timestamp never is (a receiver may send
// several duplicate ACKs within a microsecond).
func TestFoldFromPcapngInterfaces(t *testing.T) {
	for _, tc := range []struct {
		name string
		ns   int
		// the data copy with an identical timestamp is folded only when
		// the capture shows a resolution finer than 10 µs
		wantDupData bool
	}{{"ns timestamps", 123, true}, {"timestamps on 100 µs", 0, false}} {
		t.Run(tc.name, func(t *testing.T) { foldFromPcapngInterfaces(t, tc.ns, tc.wantDupData) })
	}
}

func foldFromPcapngInterfaces(t *testing.T, ns int, wantDupData bool) {
	t0 := time.Date(2025, 3, 4, 5, 6, 7, ns, time.UTC)
	ms := time.Millisecond
	c := pcaptest.NewConn(cli6, srv6, 1000, 5000)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	i0 := f.AddInterface(pcaptest.LinkRaw, 9, 0, 0) // nanosecond timestamps
	i1 := f.AddInterface(pcaptest.LinkRaw, 9, 0, 0)
	for _, s := range c.Handshake(t0, ms) {
		f.Add(s.T, i0, s.IP())
	}
	d := c.Data(t0.Add(2*ms), pcaptest.S2C, 100)
	f.Add(d.T, i0, d.IP())
	f.Add(d.T, i0, d.IP()) // data again with an identical timestamp
	var last pcaptest.Segment
	for i := range 3 { // three genuine duplicate ACKs, 100 µs apart
		last = c.Ack(t0.Add(3*ms+time.Duration(i)*100*us), pcaptest.C2S, 1, 65535)
		f.Add(last.T, i0, last.IP())
	}
	f.Add(last.T.Add(500*us), i1, last.IP()) // copy on the other interface
	f.Add(last.T, i0, last.IP())             // a pure ACK with an identical timestamp: no proof
	f.Add(last.T.Add(5*ms), i1, last.IP())   // too late for an interface copy

	tr, got := readAll(t, f.Bytes(), Options{WScale: -1})
	wantDup := []bool{false, false, false, false, wantDupData, false, false, false, true, false, false}
	if len(got) != len(wantDup) {
		t.Fatalf("got %d segments, want %d", len(got), len(wantDup))
	}
	for i, p := range got {
		if p.Dup != wantDup[i] {
			t.Errorf("frame %d: Dup = %v, want %v", i+1, p.Dup, wantDup[i])
		}
	}
	want := int64(1)
	if wantDupData {
		want = 2
	}
	if cn := tr.Conns()[0]; cn.Folded != want {
		t.Errorf("Folded = %d, want %d", cn.Folded, want)
	}
}

// TestPortReuseReleasesFoldState: once a new connection takes over a
// 4-tuple, the old one's folding state is released (no packet can reach it
// any more), and copies are looked up in the new connection only.
func TestPortReuseReleasesFoldState(t *testing.T) {
	segs := script(cat(handshake(1000, 5000), []capture.Segment{
		seg(cli, srv, fFA, 1001, 5001, 0),
		seg(srv, cli, fFA, 5001, 1002, 0),
		seg(cli, srv, fA, 1002, 5002, 0),
		seg(cli, srv, fS, 90000, 0, 0),
	})...)
	lastACK, newSYN := segs[5], segs[6]
	segs = append(segs,
		copyOf(newSYN, 300*us, retry),       // a copy of the new SYN: folded in connection 1
		copyOf(lastACK, 2*time.Millisecond), // a late copy of the old last ACK joins connection 1, whose ring lacks it
	)
	wantConn := []int{0, 0, 0, 0, 0, 0, 1, 1, 1}
	wantDup := []bool{false, false, false, false, false, false, false, true, false}
	tr := NewTracker(Options{WScale: -1})
	for i, p := range feed(tr, segs) {
		if p.Conn.Index != wantConn[i] || p.Dup != wantDup[i] {
			t.Errorf("frame %d: Conn.Index, Dup = %d, %v, want %d, %v", i+1, p.Conn.Index, p.Dup, wantConn[i], wantDup[i])
		}
	}
	c0, c1 := tr.Conns()[0], tr.Conns()[1]
	if c0.Half[AtoB].dedup != nil || c0.Half[BtoA].dedup != nil {
		t.Errorf("connection 0 after port reuse: folding state kept, want released")
	}
	if c0.Folded != 0 || c1.Folded != 1 || !c1.Reused {
		t.Errorf("Folded = %d, %d, Reused = %v, want 0, 1, true", c0.Folded, c1.Folded, c1.Reused)
	}
	// Forgetting the replaced connection leaves its successor live on
	// the 4-tuple; forgetting that one removes it.
	tr.Forget(c0)
	if c, _, ok := tr.Lookup(&newSYN); !ok || c != c1 || tr.Live() != 1 {
		t.Errorf("after Forget(conn 0): Lookup = %v, %v, Live %d, want conn 1, 1", ok, c == c1, tr.Live())
	}
	tr.Forget(c1)
	tr.Forget(c1)
	if _, _, ok := tr.Lookup(&newSYN); ok || tr.Live() != 0 {
		t.Errorf("after Forget(conn 1), twice: Lookup found a connection, Live %d, want none, 0", tr.Live())
	}
}

// TestSweepSkipsOnlyWhenNothingIsIdle: sweeps at random times between
// packets of several connections drop exactly the rings a walk over every
// live connection would (idle past foldWindow), though sweeps that can
// drop nothing skip the walk (Tracker.ringLow).
func TestSweepSkipsOnlyWhenNothingIsIdle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 14))
	tr := NewTracker(Options{WScale: -1})
	var now time.Duration
	walks, sweeps, drops := 0, 0, 0
	for i := range 4000 {
		now += time.Duration(rng.IntN(400)) * time.Millisecond
		port := uint16(1000 + rng.IntN(40))
		src := netip.AddrPortFrom(cli.Addr(), port)
		s := seg(src, srv, fPA, uint32(1000+100*i), 1, 100)
		s.Time, s.IPID = at(now), uint16(i+1)
		feed(tr, []capture.Segment{s})
		if rng.IntN(5) != 0 {
			continue
		}
		sweeps++
		before := map[*Conn][2]bool{}
		for _, c := range tr.live {
			before[c] = [2]bool{c.Half[0].dedup != nil, c.Half[1].dedup != nil}
		}
		wasLow, wasOK := tr.ringLow, tr.ringLowOK
		tr.sweep(at(now))
		if wasOK && at(now).Sub(wasLow) > foldWindow {
			walks++
		}
		for c, had := range before {
			idle := at(now).Sub(c.Last) > foldWindow
			for d := range 2 {
				has := c.Half[d].dedup != nil
				if idle && has {
					t.Fatalf("sweep at %v: conn %d idle since %v kept its ring", now, c.Index, c.Last)
				}
				if had[d] && !has {
					drops++
				}
				if !idle && had[d] != has {
					t.Fatalf("sweep at %v: conn %d active at %v lost its ring", now, c.Index, c.Last)
				}
			}
		}
	}
	if walks == 0 || walks == sweeps || drops == 0 {
		t.Errorf("%d of %d sweeps walked the live connections (want some, not all), dropping %d rings (want some)", walks, sweeps, drops)
	}
	t.Logf("%d sweeps, %d walks, %d rings dropped", sweeps, walks, drops)
}
