package tcpanalysis

import (
	"bytes"
	"io"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// turnoverReader streams pcaptest.WriteTurnover through a pipe into a
// capture reader, so the test's memory holds no capture file.
func turnoverReader(t testing.TB, conns int, gap time.Duration) *capture.Reader {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(pcaptest.WriteTurnover(pw, conns, gap)) }()
	r, err := capture.NewReader(pr, "turnover.pcap")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close() })
	return r
}

// TestStreamSameResults: streaming (Options.OnDone) gives every connection
// once, with the result the Report holds, including those that end while
// the capture is read (closed and silent for 10 s).
func TestStreamSameResults(t *testing.T) {
	const n = 20000 // 160 000 segments over 20 s: three releases
	var buf bytes.Buffer
	if err := pcaptest.WriteTurnover(&buf, n, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	r, err := capture.NewReader(bytes.NewReader(buf.Bytes()), "a.pcap")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Analyze(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err = capture.NewReader(bytes.NewReader(buf.Bytes()), "a.pcap")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]*ConnResult, n)
	early := 0
	var starts []capture.Timestamp
	rep, err := Analyze(r, Options{OnDone: func(c *ConnResult, start capture.Timestamp) {
		if got[c.Conn.Index] != nil {
			t.Fatalf("conn %d streamed twice", c.Conn.Index)
		}
		got[c.Conn.Index] = c
		if c.Conn.Index < n-12000 {
			early++
		}
		starts = append(starts, start)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conns) != 0 || len(want.Conns) != n {
		t.Fatalf("streamed report holds %d conns, full report %d; want 0 and %d", len(rep.Conns), len(want.Conns), n)
	}
	if early == 0 {
		t.Error("no connection ended before the end of the capture")
	}
	for i, w := range want.Conns {
		g := got[i]
		if g == nil {
			t.Fatalf("conn %d never streamed", i)
		}
		if g.Dir != w.Dir || g.Counts != w.Counts || g.Handshake != w.Handshake || g.Conn.First != w.Conn.First ||
			g.Conn.Last != w.Conn.Last || g.Conn.Key != w.Conn.Key || g.RTTAgg[0][MethodACK].N != w.RTTAgg[0][MethodACK].N {
			t.Fatalf("conn %d: streamed %+v, report %+v", i, g.Summary.Dir, w.Summary.Dir)
		}
	}
	// Each connection: 2 packets each way and back, 100 B a>b, 500 B b>a.
	if d := want.Conns[7].Dir; d[0].Pkts != 5 || d[1].Pkts != 3 || d[0].Unique != 100 || d[1].Unique != 500 || d[1].AckedBytes != 500 {
		t.Errorf("conn 7: %+v", d)
	}
	for _, s := range starts {
		if s != want.Start {
			t.Fatalf("OnDone start %v, want the capture's %v", s, want.Start)
		}
	}
}

// TestLateSegmentAfterClose: a segment on the 4-tuple of a connection that
// closed and was silent for more than 10 s, and so is over
// (docs/robustness.md#finished-connections), does not open a new
// connection (tshark's tcp.stream would not): it is left out, counted and
// warned about, with or without streaming. A new SYN on that 4-tuple
// later is a new connection.
func TestLateSegmentAfterClose(t *testing.T) {
	late := lateAfterClose()
	for _, stream := range []bool{false, true} {
		rep, conns := analyzeStreamed(t, late, "late.pcap", stream)
		if len(conns) != 3 {
			t.Fatalf("stream %v: %d connections, want 3 (the late ACK is no connection; the new SYN is)", stream, len(conns))
		}
		if !strings.Contains(strings.Join(rep.Warnings, "\n"), "1 segment arrived on the 4-tuple of a connection that was over") {
			t.Errorf("stream %v: warnings %q", stream, rep.Warnings)
		}
		byIndex := map[int]*ConnResult{}
		for _, c := range conns {
			byIndex[c.Conn.Index] = c
		}
		first, again := byIndex[0], byIndex[2]
		if first == nil || again == nil || first.Dir[0].Pkts != 3 || first.Dir[1].Pkts != 2 || again.Dir[0].Pkts != 2 || !again.Conn.HandshakeSeen || again.Conn.Key != first.Conn.Key {
			t.Fatalf("stream %v: conns %+v", stream, conns)
		}
	}
}

// peakLiveHeap analyses a turnover capture of conns connections with
// streaming and returns the largest live heap (after a GC) sampled every
// 2 000 connections streamed out.
func peakLiveHeap(t *testing.T, conns int) uint64 {
	r := turnoverReader(t, conns, 10*time.Millisecond)
	var peak uint64
	n := 0
	sample := func() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	_, err := Analyze(r, Options{OnDone: func(c *ConnResult, _ capture.Timestamp) {
		if n++; n%2000 == 0 {
			sample()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n != conns {
		t.Fatalf("%d connections streamed, want %d", n, conns)
	}
	return peak
}

// TestMemoryFlat: memory follows the connections open at once, not the
// capture's length: the live heap with 10× the connections (one every
// 10 ms, each over long before the capture ends) stays within 1.5×. No
// timing involved. Both sizes are past the steady state (connections of
// the last 10 s and of one release period, 65 536 segments).
// TCPVIZ_MEM_1M=1 compares 100 000 with 1 000 000 connections (8 M
// packets).
func TestMemoryFlat(t *testing.T) {
	small, large := 20_000, 200_000
	if os.Getenv("TCPVIZ_MEM_1M") != "" {
		small, large = 100_000, 1_000_000
	} else if testing.Short() {
		t.Skip("-short")
	}
	if raceEnabled {
		t.Skip("the race detector changes the heap this test measures")
	}
	a, b := peakLiveHeap(t, small), peakLiveHeap(t, large)
	t.Logf("peak live heap: %d conns %.1f MB, %d conns %.1f MB (%.2f×)", small, float64(a)/1e6, large, float64(b)/1e6, float64(b)/float64(a))
	if float64(b) > 1.5*float64(a) {
		t.Errorf("live heap grows with the capture: %d conns %.1f MB, %d conns %.1f MB", small, float64(a)/1e6, large, float64(b)/1e6)
	}
}

// TestSYNFloodFlat: unanswered SYNs are over under table pressure
// (docs/robustness.md#finished-connections), so a flood of 200 000 holds
// about as much as one of 40 000, and every connection is streamed once,
// one SYN each.
func TestSYNFloodFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	peak := func(n int) uint64 {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(pcaptest.WriteHostile(pw, pcaptest.HostileSYNFlood, n)) }()
		defer pr.Close()
		r, err := capture.NewReader(pr, "flood.pcap")
		if err != nil {
			t.Fatal(err)
		}
		var top uint64
		got := 0
		_, err = Analyze(r, Options{OnDone: func(c *ConnResult, _ capture.Timestamp) {
			if c.Dir[0].Pkts != 1 || c.Dir[1].Pkts != 0 || c.Handshake.SynTx != 1 {
				t.Fatalf("conn %d: %+v", c.Conn.Index, c.Dir)
			}
			if got++; got%4000 == 0 {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				top = max(top, ms.HeapAlloc)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if got != n {
			t.Fatalf("%d connections streamed, want %d", got, n)
		}
		return top
	}
	a, b := peak(40_000), peak(200_000)
	t.Logf("peak live heap: 40 000 SYNs %.1f MB, 200 000 SYNs %.1f MB (%.2f×)", float64(a)/1e6, float64(b)/1e6, float64(b)/float64(a))
	if float64(b) > 1.5*float64(a) {
		t.Errorf("live heap grows with the flood: %.1f MB, %.1f MB", float64(a)/1e6, float64(b)/1e6)
	}
}

// BenchmarkStreamTurnover streams 50 000 short connections, 10 ms apart
// (pcaptest.WriteTurnover), through Analyze with Options.OnDone and
// reports the bytes allocated per connection (alloc-B/conn: what the
// collector handles; the live heap is bounded by TestMemoryFlat).
func BenchmarkStreamTurnover(b *testing.B) {
	const n = 50_000
	var buf bytes.Buffer
	if err := pcaptest.WriteTurnover(&buf, n, 10*time.Millisecond); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		r, err := capture.NewReader(bytes.NewReader(buf.Bytes()), "turnover.pcap")
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		if _, err := Analyze(r, Options{OnDone: func(*ConnResult, capture.Timestamp) { got++ }}); err != nil || got != n {
			b.Fatal(err, got)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/n, "alloc-B/conn")
}

// TestPressureKeepsAnswered: under table pressure only unanswered SYNs are
// over; 10 000 open connections stay whole however many SYNs come after
// them, and the SYN that pushes the table over the limit is counted.
func TestPressureKeepsAnswered(t *testing.T) {
	const open, syns = 10_000, 10_000
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkRaw})
	srv := netip.MustParseAddrPort("10.255.0.1:80")
	t0 := pcaptest.GenStart
	for i := range open {
		c := pcaptest.NewConn(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), 1000), srv, uint32(i), 7)
		for _, s := range c.Handshake(t0.Add(time.Duration(i)*time.Microsecond), time.Microsecond) {
			f.Add(s.T, 0, s.IP())
		}
	}
	for i := range syns {
		c := pcaptest.NewConn(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 2, byte(i >> 8), byte(i)}), 1000), srv, uint32(i), 7)
		s := c.Syn(t0.Add(time.Second+time.Duration(i)*time.Microsecond), pcaptest.C2S)
		f.Add(s.T, 0, s.IP())
	}
	for _, stream := range []bool{false, true} {
		_, conns := analyzeStreamed(t, f.Bytes(), "pressure.pcap", stream)
		if len(conns) != open+syns {
			t.Fatalf("stream %v: %d connections, want %d", stream, len(conns), open+syns)
		}
		for _, c := range conns {
			want := [2]int64{2, 1} // SYN, ACK; SYN-ACK
			if c.Conn.Index >= open {
				want = [2]int64{1, 0}
			}
			if got := [2]int64{c.Dir[0].Pkts, c.Dir[1].Pkts}; got != want || (c.Conn.Index < open) != c.Conn.HandshakeSeen {
				t.Fatalf("stream %v: conn %d: packets %v handshake %v, want %v", stream, c.Conn.Index, got, c.Conn.HandshakeSeen, want)
			}
		}
	}
}

// analyzeStreamed analyses the capture data, with Options.OnDone (stream)
// or without, and returns the report and the connections in the order
// they were handed out (the report's, without streaming).
func analyzeStreamed(t *testing.T, data []byte, name string, stream bool) (*Report, []*ConnResult) {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(data), name)
	if err != nil {
		t.Fatal(err)
	}
	var conns []*ConnResult
	opts := Options{}
	if stream {
		opts.OnDone = func(c *ConnResult, _ capture.Timestamp) { conns = append(conns, c) }
	}
	rep, err := Analyze(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !stream {
		conns = rep.Conns
	}
	return rep, conns
}

// lateAfterClose is a capture in which a connection between
// 10.0.0.1:40000 and 10.0.0.2:80 closes, 70 000 segments of another pass
// (a release runs), its client's last ACK comes 30 s late (a late
// segment), and a new connection opens on the same 4-tuple.
func lateAfterClose() []byte {
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkRaw})
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.2:80"), 100, 900)
	t0 := pcaptest.GenStart
	segs := c.Handshake(t0, time.Millisecond)
	segs = append(segs, c.Fin(t0.Add(2*time.Millisecond), pcaptest.C2S), c.Fin(t0.Add(3*time.Millisecond), pcaptest.S2C))
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	// 70 000 segments of another connection, so that a release runs.
	o := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.3:40000"), netip.MustParseAddrPort("10.0.0.2:80"), 5, 7)
	for _, s := range o.Handshake(t0, time.Millisecond) {
		f.Add(s.T, 0, s.IP())
	}
	for i := range 70000 {
		s := o.Data(t0.Add(20*time.Second+time.Duration(i)*time.Microsecond), pcaptest.C2S, 10)
		f.Add(s.T, 0, s.IP())
	}
	// The client's last ACK, 30 s late, after them in the file.
	late := c.Ack(t0.Add(30*time.Second), pcaptest.C2S, 2, 65535)
	f.Add(late.T, 0, late.IP())
	// A new connection on the same 4-tuple, 40 s in.
	c2 := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.2:80"), 5000, 9000)
	for _, s := range c2.Handshake(t0.Add(40*time.Second), time.Millisecond) {
		f.Add(s.T, 0, s.IP())
	}
	return f.Bytes()
}
