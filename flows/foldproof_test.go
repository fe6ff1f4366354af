package flows

import (
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// Tests of the evidence a fold needs (docs/metrics.md#folded-duplicates),
// one per rule, on captures built with pcaptest and read by capture.Reader.

// checkDups compares each segment's Dup with want and the connection's
// fold count by reason with wantBy (zero reasons left out).
func checkDups(t *testing.T, tr *Tracker, got []Packet, want []bool, wantBy map[FoldReason]int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d segments, want %d", len(got), len(want))
	}
	for i, p := range got {
		if p.Dup != want[i] {
			t.Errorf("frame %d: Dup = %v, want %v", i+1, p.Dup, want[i])
		}
	}
	var total int64
	for r := range NumFoldReasons {
		total += wantBy[r]
	}
	c := tr.Conns()[0]
	if c.Folded != total {
		t.Errorf("Folded = %d, want %d", c.Folded, total)
	}
	for r := range NumFoldReasons {
		if c.FoldedBy[r] != wantBy[r] {
			t.Errorf("FoldedBy[%v] = %d, want %d", r, c.FoldedBy[r], wantBy[r])
		}
	}
}

// readFile writes f to a file and reads it back with capture.Open (which
// pre-scans a file for its timestamp resolution) into a Tracker.
func readFile(t *testing.T, f *pcaptest.File) (*Tracker, []Packet) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.pcap")
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tr := NewTracker(Options{WScale: -1})
	var got []Packet
	for {
		var s capture.Segment
		if err := r.Next(&s); err != nil {
			return tr, got
		}
		got = append(got, tr.Add(&s))
	}
}

// TestFoldRetryNeedsSameSeqCtl: an IPv6 radiotap (802.11 monitor) capture.
// The Retry bit folds a frame only onto the earlier frame of the same
// transmitter with the same 802.11 sequence and fragment number; a frame
// with Retry set and another sequence number is a new MSDU whose first
// attempt the monitor missed: a genuine duplicate ACK, or a TCP
// retransmission.
func TestFoldRetryNeedsSameSeqCtl(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	ms := time.Millisecond
	c := pcaptest.NewConn(cli6, srv6, 1000, 5000)
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRadiotap})
	add := func(ts time.Time, s pcaptest.Segment, ta pcaptest.MAC, sn uint16, frag uint8, retry bool) {
		d := pcaptest.Dot11{TA: ta, RA: pcaptest.MAC(macRelay), SeqNum: sn, FragNum: frag, Retry: retry}
		f.Add(ts, 0, pcaptest.Radiotap(d.Frame(s.IP()), false))
	}
	a, b := pcaptest.MAC(macA), pcaptest.MAC(macB)
	hs := c.Handshake(t0, 20*ms)
	add(hs[0].T, hs[0], a, 1, 0, false)
	add(hs[1].T, hs[1], b, 10, 0, false)
	add(hs[2].T, hs[2], a, 2, 0, false)
	d1 := c.Data(t0.Add(21*ms), pcaptest.C2S, 1000)
	add(d1.T, d1, a, 3, 0, false) // 4
	d2 := c.Data(t0.Add(22*ms), pcaptest.C2S, 1000)
	add(d2.T, d2, a, 4, 0, false) // 5
	dup := c.Ack(t0.Add(41*ms), pcaptest.S2C, 1001, 65535)
	add(dup.T, dup, b, 20, 0, false)                         // 6: ACK of the first segment
	add(t0.Add(41300*time.Microsecond), dup, b, 20, 0, true) // 7: its MAC retry
	add(t0.Add(42*ms), dup, b, 21, 0, true)                  // 8: a new MSDU (dup ACK), first attempt missed
	add(t0.Add(42100*time.Microsecond), dup, b, 21, 1, true) // 9: another fragment number
	add(t0.Add(43*ms), dup, a, 21, 0, true)                  // 10: the same numbers from another transmitter: a relay
	add(t0.Add(322*ms), d2, a, 9, 0, true)                   // 11: the TCP retransmission of d2, first MAC attempt missed
	add(t0.Add(322300*time.Microsecond), d2, a, 9, 0, true)  // 12: its MAC retry

	tr, got := readAll(t, f.Bytes(), Options{WScale: -1})
	checkDups(t, tr, got,
		[]bool{false, false, false, false, false, false, true, false, false, true, false, true},
		map[FoldReason]int64{FoldRetry: 2, FoldRelay: 1})
}

// relayed adds s to f at ts with hop limit 64, and a relay's copy (hop
// limit 63) lag later.
func relayed(f *pcaptest.File, ts time.Time, s pcaptest.Segment, lag time.Duration) {
	s.TTL = 64
	f.Add(ts, 0, s.IP())
	s.TTL = 63
	f.Add(ts.Add(lag), 0, s.IP())
}

// TestFoldResolutionFromPrescan: a router's copies 30 µs after each
// packet, in an IPv6 capture whose first stamps fall on 10 µs multiples.
// A file's resolution is decided from a pre-scan before the first frame,
// so every copy is folded; a stream learns it as it reads, so copies
// before the first finer stamp are kept.
func TestFoldResolutionFromPrescan(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	ms, lag := time.Millisecond, 30*us
	c := pcaptest.NewConn(cli6, srv6, 1000, 5000)
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRaw})
	relayed(f, t0, c.Syn(t0, pcaptest.C2S), lag)                             // 1, 2
	relayed(f, t0.Add(20*ms), c.Syn(t0.Add(20*ms), pcaptest.S2C), lag)       // 3, 4
	ack := t0.Add(20*ms + 501*us)                                            // the first stamp off 10 µs
	relayed(f, ack, c.Ack(ack, pcaptest.C2S, 1, 65535), lag)                 // 5, 6
	relayed(f, t0.Add(21*ms), c.Data(t0.Add(21*ms), pcaptest.C2S, 100), lag) // 7, 8

	tr, got := readFile(t, f)
	checkDups(t, tr, got, []bool{false, true, false, true, false, true, false, true}, map[FoldReason]int64{FoldRelay: 4})

	tr, got = readAll(t, f.Bytes(), Options{WScale: -1})
	checkDups(t, tr, got, []bool{false, false, false, false, false, true, false, true}, map[FoldReason]int64{FoldRelay: 2})
}

// TestFoldPureAckNeedsProof: in an IPv6 capture with nanosecond stamps, a
// receiver's three duplicate ACKs stamped in the same nanosecond are kept
// (no IP ID, same interface and hop limit: nothing proves a copy), while a
// data segment or a SYN twice at one stamp is a copy.
func TestFoldPureAckNeedsProof(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 123, time.UTC)
	ms := time.Millisecond
	c := pcaptest.NewConn(cli6, srv6, 1000, 5000)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	hs := c.Handshake(t0, ms)
	f.Add(hs[0].T, 0, hs[0].IP())
	f.Add(hs[0].T, 0, hs[0].IP()) // 2: the SYN again at its stamp
	f.Add(hs[1].T, 0, hs[1].IP())
	f.Add(hs[2].T, 0, hs[2].IP())
	d := c.Data(t0.Add(2*ms), pcaptest.S2C, 100)
	f.Add(d.T, 0, d.IP())
	f.Add(d.T, 0, d.IP()) // 6: data again at its stamp
	dup := c.Ack(t0.Add(3*ms), pcaptest.C2S, 1, 65535)
	for range 3 {
		f.Add(dup.T, 0, dup.IP()) // 7-9: genuine duplicate ACKs
	}
	tr, got := readAll(t, f.Bytes(), Options{WScale: -1})
	checkDups(t, tr, got, []bool{false, true, false, false, false, true, false, false, false}, map[FoldReason]int64{FoldTimestamp: 2})
}

// TestFoldRelayWindowIsRTT: copies with hop limit one lower are folded
// within one round trip of the original. On a path of 20.5 ms round trip
// a router queueing 5 ms is still seen copying (the SYN's copy, before any
// round trip is known, within synRelayWindow); on a path of 1 ms round
// trip the window is 2 ms, so a same-looking packet 5 ms later is kept.
func TestFoldRelayWindowIsRTT(t *testing.T) {
	for _, tc := range []struct {
		name      string
		synack    time.Duration // SYN → SYN-ACK
		ack       time.Duration // SYN-ACK → ACK
		lag       time.Duration // copy after original
		wantFolds bool
	}{
		{"20 ms path, 5 ms queue", 20 * time.Millisecond, 500 * us, 5 * time.Millisecond, true},
		{"1 ms path, 5 ms later", 500 * us, 500 * us, 5 * time.Millisecond, false},
		{"1 ms path, 1.5 ms queue", 500 * us, 500 * us, 1500 * us, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Date(2025, 3, 4, 5, 6, 7, 3000, time.UTC) // 3 µs: a fine capture
			c := pcaptest.NewConn(cli6, srv6, 1000, 5000)
			f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRaw})
			syn := c.Syn(t0, pcaptest.C2S)
			syn.TTL = 64
			f.Add(t0, 0, syn.IP())
			tsa := t0.Add(tc.synack)
			f.Add(tsa, 0, c.Syn(tsa, pcaptest.S2C).IP())
			tack := tsa.Add(tc.ack)
			f.Add(tack, 0, c.Ack(tack, pcaptest.C2S, 1, 65535).IP())
			td := tack.Add(time.Millisecond)
			relayed(f, td, c.Data(td, pcaptest.C2S, 100), tc.lag)
			tr, got := readFile(t, f)
			checkDups(t, tr, got, []bool{false, false, false, false, tc.wantFolds}, map[FoldReason]int64{FoldRelay: map[bool]int64{true: 1}[tc.wantFolds]})
		})
	}
	// Before any round trip is known a SYN's copy is folded within
	// synRelayWindow; other segments within ifaceWindow.
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 3000, time.UTC)
	c := pcaptest.NewConn(cli6, srv6, 1000, 5000)
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRaw})
	relayed(f, t0, c.Syn(t0, pcaptest.C2S), 5*time.Millisecond)
	tr, got := readFile(t, f)
	checkDups(t, tr, got, []bool{false, true}, map[FoldReason]int64{FoldRelay: 1})
}

// TestDedupEntrySize: a remembered packet costs 24 bytes (16 per direction
// of a busy connection).
func TestDedupEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(dedupEntry{}); n != 24 {
		t.Errorf("unsafe.Sizeof(dedupEntry{}) = %d, want 24", n)
	}
}
