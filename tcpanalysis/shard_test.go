package tcpanalysis

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// analyzeWith analyses data with n shards (1: the single Analyzer of
// pipeline.go).
func analyzeWith(t *testing.T, data []byte, opts Options, n int) *Report {
	t.Helper()
	r, err := capture.NewReader(bytes.NewReader(data), "x")
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{}
	if n > 1 {
		rep.Conns, _, err = analyzeSharded(r, &opts, n)
	} else {
		a := New(opts)
		read := pipeline
		if opts.Inline {
			read = inline
		}
		err = read(r, func(s *capture.Segment) {
			if len(opts.Ifaces) == 0 || slices.Contains(opts.Ifaces, s.Iface) {
				a.Add(s)
			}
		})
		a.finish()
		rep.Conns = a.Results()
	}
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// sameResults fails t unless the two analyses hold equal results for every
// connection, in the same order.
func sameResults(t *testing.T, name string, want, got *Report) {
	t.Helper()
	if len(want.Conns) != len(got.Conns) {
		t.Fatalf("%s: %d connections sharded, %d in one Analyzer", name, len(got.Conns), len(want.Conns))
	}
	for i := range want.Conns {
		if !reflect.DeepEqual(want.Conns[i], got.Conns[i]) {
			t.Fatalf("%s: conn %d differs sharded:\n got %+v\nwant %+v", name, i, got.Conns[i].Summary, want.Conns[i].Summary)
		}
	}
}

// TestShardedSameAsOne: analysing connections in several shards, or
// reading on the analysis's goroutine (Options.Inline), gives exactly the
// results of one Analyzer fed by a reading goroutine, over more than releaseEvery and
// flows.SweepEvery segments (the ticks every shard runs at the same point),
// with every RTT sample and event kept.
func TestShardedSameAsOne(t *testing.T) {
	var w bytes.Buffer
	if err := pcaptest.WriteShort(&w, pcaptest.GenOptions{Packets: 3 * releaseEvery, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {Detail: true, RTTQuantiles: true}} {
		one := analyzeWith(t, w.Bytes(), opts, 1)
		if len(one.Conns) < 1000 {
			t.Fatalf("%d connections, want many", len(one.Conns))
		}
		for _, n := range []int{2, 3} {
			sameResults(t, "short", one, analyzeWith(t, w.Bytes(), opts, n))
		}
		in := opts
		in.Inline = true // read on the calling goroutine
		sameResults(t, "short inline", one, analyzeWith(t, w.Bytes(), in, 1))
	}
}

// TestShardedCorpus: the same on every capture of ../shared/corpus and
// ../shared/cases (copies folded, ICMP errors, port reuse, 802.11).
func TestShardedCorpus(t *testing.T) {
	var files []string
	for _, sub := range []string{"corpus", "cases"} {
		filepath.WalkDir(filepath.Join(sharedDir(t), sub), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".pcap") || strings.HasSuffix(p, ".pcapng") || strings.HasSuffix(p, ".gz")) {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no captures in ../shared/corpus or ../shared/cases")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := capture.NewReader(bytes.NewReader(data), p); err != nil {
			continue // not a capture tcpviz reads: other tests check the error
		}
		opts := Options{Detail: true}
		one := analyzeWith(t, data, opts, 1)
		sameResults(t, p, one, analyzeWith(t, data, opts, 3))
		sameResults(t, p+" inline", one, analyzeWith(t, data, Options{Detail: true, Inline: true}, 1))
		if strings.HasSuffix(p, ".pcapng") { // one interface of several
			opts.Ifaces = []int{1}
			sameResults(t, p+" iface 1", analyzeWith(t, data, opts, 1), analyzeWith(t, data, opts, 3))
		}
	}
}

// TestShardedLateSegment: a connection closed and silent for more than
// finishedIdle is released at the releaseEvery-th segment of the capture,
// so a late retransmission after that starts afresh. Sharded, the
// release comes at the same point though other shards carry the segments
// that count up to it.
func TestShardedLateSegment(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	x := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.2:80"), 1000, 5000)
	segs := x.Handshake(ms(0), time.Millisecond)
	segs = append(segs, x.Data(ms(2), pcaptest.C2S, 1000), x.Ack(ms(3), pcaptest.S2C, 1001, 65535),
		x.Fin(ms(4), pcaptest.C2S), x.Fin(ms(5), pcaptest.S2C), x.Ack(ms(6), pcaptest.C2S, 2, 65535))
	// Fillers on other 4-tuples: more than releaseEvery segments over 20 s.
	var fill []*pcaptest.Conn
	for i := range 4 {
		c := pcaptest.NewConn(netip.AddrPortFrom(netip.MustParseAddr("10.0.1.1"), uint16(41000+i)), netip.MustParseAddrPort("10.0.1.2:80"), 1, 2)
		segs = append(segs, c.Handshake(ms(10+i), time.Millisecond)...)
		fill = append(fill, c)
	}
	n := releaseEvery + 1000
	for i := range n {
		segs = append(segs, fill[i%4].Data(ms(20+i*20000/n), pcaptest.C2S, 100))
	}
	segs = append(segs, x.DataAt(ms(21000), pcaptest.C2S, 1, 1000)) // late copy of X's data
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	one := analyzeWith(t, f.Bytes(), Options{Detail: true}, 1)
	for _, k := range []int{2, 3} {
		sameResults(t, "late", one, analyzeWith(t, f.Bytes(), Options{Detail: true}, k))
	}
}

// TestShardedRedo: when a shard passes shardLiveLimit, AnalyzeFile reads
// the file again with one Analyzer, and the report is that Analyzer's.
func TestShardedRedo(t *testing.T) {
	var w bytes.Buffer
	if err := pcaptest.WriteShort(&w, pcaptest.GenOptions{Packets: 20000, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "short.pcap")
	if err := os.WriteFile(path, w.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, _, err := analyzeSharded(r, &Options{}, 2); err != nil {
		t.Fatalf("sharded without a limit: %v", err)
	}
	defer func(l int) { shardLiveLimit = l }(shardLiveLimit)
	shardLiveLimit = 3 // the generator keeps 64 connections open at once
	r2, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, _, err := analyzeSharded(r2, &Options{}, 2); err != errShardRedo {
		t.Fatalf("sharded past the limit: err %v, want errShardRedo", err)
	}
	got, err := AnalyzeFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, "redo", analyzeWith(t, w.Bytes(), Options{}, 1), got)
}

// streamed analyses the file at path with Options.OnDone and returns the
// results streamed out, by index, failing t on an index given twice.
func streamed(t *testing.T, path string) map[int]*ConnResult {
	t.Helper()
	got := map[int]*ConnResult{}
	_, err := AnalyzeFile(path, Options{OnDone: func(r *ConnResult, _ capture.Timestamp) {
		if got[r.Conn.Index] != nil {
			t.Fatalf("conn %d streamed out twice", r.Conn.Index)
		}
		got[r.Conn.Index] = r
	}})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestShardedStream: with Options.OnDone the shards stream out every
// connection once, numbered as one Analyzer numbers them, with its results;
// also when a shard passes its limit and the file is read again.
func TestShardedStream(t *testing.T) {
	var w bytes.Buffer
	if err := pcaptest.WriteShort(&w, pcaptest.GenOptions{Packets: 3 * releaseEvery, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "short.pcap")
	if err := os.WriteFile(path, w.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	one := analyzeWith(t, w.Bytes(), Options{}, 1)
	check := func(name string, got map[int]*ConnResult) {
		t.Helper()
		if len(got) != len(one.Conns) {
			t.Fatalf("%s: %d connections streamed out, want %d", name, len(got), len(one.Conns))
		}
		for i, want := range one.Conns {
			if !reflect.DeepEqual(got[i].Summary.Dir, want.Summary.Dir) || got[i].Conn.FirstFrame != want.Conn.FirstFrame || got[i].Counts != want.Counts {
				t.Fatalf("%s: conn %d differs:\n got %+v\nwant %+v", name, i, got[i].Summary, want.Summary)
			}
		}
	}
	check("sharded", streamed(t, path))
	defer func(l int) { shardLiveLimit = l }(shardLiveLimit)
	shardLiveLimit = 40 // passed at once: nothing went out before the redo
	check("redo at once", streamed(t, path))

	// 10 000 unanswered SYNs after 20 000 connections one after another:
	// the limit is passed only then, after most results went out.
	w.Reset()
	if err := pcaptest.WriteTurnover(&w, 20000, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkEthernet, Snaplen: 128})
	t1 := pcaptest.GenStart.Add(time.Hour)
	for i := range 10000 {
		c := pcaptest.NewConn(netip.AddrPortFrom(netip.MustParseAddr("10.9.0.1"), uint16(10000+i)), netip.MustParseAddrPort("10.9.0.2:80"), uint32(i), 1)
		s := c.Syn(t1.Add(time.Duration(i)*time.Microsecond), pcaptest.C2S)
		f.Add(s.T, 0, pcaptest.Ethernet(s.IP()))
	}
	data := append(append([]byte(nil), w.Bytes()...), f.Bytes()[24:]...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	one = analyzeWith(t, data, Options{}, 1)
	shardLiveLimit = 6000 // about 4 200 per shard before a release; the SYNs pass it
	sent := 0
	_, _, err := analyzeSharded(mustOpen(t, path), &Options{OnDone: func(*ConnResult, capture.Timestamp) { sent++ }}, 2)
	if err != errShardRedo || sent == 0 {
		t.Fatalf("sharded: %d streamed out, err %v; want some, then errShardRedo", sent, err)
	}
	check("redo after some", streamed(t, path))
}

func mustOpen(t *testing.T, path string) *capture.Reader {
	t.Helper()
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestShardOfSpreads: both directions of a 4-tuple go to one shard, and
// 4-tuples whose ports and addresses count up together (a load generator,
// a scan) spread evenly; the 8 bulk connections of the benchmark 4 and 4.
func TestShardOfSpreads(t *testing.T) {
	srv := netip.MustParseAddrPort("10.255.0.1:80")
	for _, n := range []int{2, 3} {
		cnt := make([]int, n)
		for i := range 30000 {
			cli := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), uint16(1024+i))
			a, b := capture.Segment{Src: cli, Dst: srv}, capture.Segment{Src: srv, Dst: cli}
			k := shardOf(&a, n)
			if shardOf(&b, n) != k {
				t.Fatalf("%v: the two directions go to shards %d and %d", cli, k, shardOf(&b, n))
			}
			cnt[k]++
		}
		for k, c := range cnt {
			if c < 30000/n*9/10 || c > 30000/n*11/10 {
				t.Errorf("%d shards: shard %d takes %d of 30000 connections", n, k, c)
			}
		}
	}
	cnt := [2]int{}
	for i := range 8 {
		s := capture.Segment{Src: netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), uint16(40000+i)), Dst: netip.MustParseAddrPort("10.0.1.1:5001")}
		cnt[shardOf(&s, 2)]++
	}
	if cnt != [2]int{4, 4} {
		t.Errorf("bulk benchmark connections per shard: %v, want [4 4]", cnt)
	}
}

// TestShardsFallBack: any function-valued option makes the analysis one
// Analyzer's; none spreads it over the cores.
func TestShardsFallBack(t *testing.T) {
	want := min(runtime.GOMAXPROCS(0), maxShards)
	if got := shards(&Options{Detail: true, Ifaces: []int{1}}); got != want {
		t.Errorf("shards without callbacks = %d, want %d", got, want)
	}
	if got := shards(&Options{OnDone: func(*ConnResult, capture.Timestamp) {}}); got != want {
		t.Errorf("shards with OnDone (the merger calls it) = %d, want %d", got, want)
	}
	for name, o := range map[string]Options{
		"Keep":    {Keep: func(int) bool { return true }},
		"OnRTT":   {OnRTT: func(*ConnResult, RTTSample) {}},
		"OnEvent": {OnEvent: func(*ConnResult, Event) {}},
		"Only":    {Only: func(int) bool { return true }},
		"Filter":  {Filter: func(*capture.Segment) bool { return true }},
	} {
		if got := shards(&o); got != 1 {
			t.Errorf("shards with %s = %d, want 1", name, got)
		}
	}
}

// streamedCopies is streamed with Options.ReuseResults: OnDone keeps
// copies (the result and its Conn), as it must.
func streamedCopies(t *testing.T, path string, reuse bool, n int) map[int]ConnResult {
	t.Helper()
	got := map[int]ConnResult{}
	opts := Options{ReuseResults: reuse, OnDone: func(r *ConnResult, _ capture.Timestamp) {
		if _, dup := got[r.Conn.Index]; dup {
			t.Fatalf("conn %d streamed out twice", r.Conn.Index)
		}
		c, conn := *r, *r.Conn
		c.Conn, c.state = &conn, nil
		got[r.Conn.Index] = c
	}}
	var err error
	if n == 1 {
		_, err = Analyze(mustOpen(t, path), opts)
	} else {
		_, err = AnalyzeFile(path, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestReuseResults: with Options.ReuseResults every streamed result (and
// its Conn) is the one streamed without, by one Analyzer and sharded, also
// when the shards give up and the file is read again; results and Conns
// are reused (fewer allocated than connections).
func TestReuseResults(t *testing.T) {
	// 20 000 connections 10 ms apart: most are over (and reused) long
	// before the end.
	var w bytes.Buffer
	if err := pcaptest.WriteTurnover(&w, 20000, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "turnover.pcap")
	if err := os.WriteFile(path, w.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	same := func(name string, got, want map[int]ConnResult) {
		t.Helper()
		if len(got) != len(want) || len(want) < 100 {
			t.Fatalf("%s: %d connections, want %d (≥ 100)", name, len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if !reflect.DeepEqual(*g.Conn, *w.Conn) {
				t.Fatalf("%s: conn %d: Conn\n got %+v\nwant %+v", name, i, *g.Conn, *w.Conn)
			}
			g.Conn, w.Conn = nil, nil
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("%s: conn %d:\n got %+v\nwant %+v", name, i, g, w)
			}
		}
	}
	want := streamedCopies(t, path, false, 1)
	same("one analyzer", streamedCopies(t, path, true, 1), want)
	same("sharded", streamedCopies(t, path, true, 2), want)
	defer func(l int) { shardLiveLimit = l }(shardLiveLimit)
	shardLiveLimit = 40
	same("redo at once", streamedCopies(t, path, true, 2), want)

	// Reuse happens: the Conns handed out are fewer than the connections,
	// by one Analyzer and sharded.
	shardLiveLimit = 0
	for _, n := range []int{1, 2} {
		seen := map[*flows.Conn]bool{}
		opts := Options{ReuseResults: true, OnDone: func(r *ConnResult, _ capture.Timestamp) { seen[r.Conn] = true }}
		var err error
		if n == 1 {
			_, err = Analyze(mustOpen(t, path), opts)
		} else {
			_, err = AnalyzeFile(path, opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) >= len(want)*3/4 {
			t.Errorf("%d shards: %d distinct Conns for %d connections: too few reused", n, len(seen), len(want))
		}
	}
}

// TestSegmentFitsPrefetch: a shard's prefetch (hwprefetch.Read) touches
// the cache lines of p, p+64, …, p+256. A segment, at an address aligned
// to its alignment a, has its last byte in the line of p+256 whatever the
// alignment only while it is at most 256 + a bytes (264 today: exactly).
func TestSegmentFitsPrefetch(t *testing.T) {
	n, a := unsafe.Sizeof(capture.Segment{}), unsafe.Alignof(capture.Segment{})
	if n > 256+a {
		t.Errorf("capture.Segment is %d bytes (alignment %d): hwprefetch.Read misses its last line at some addresses (prefetch one more line)", n, a)
	}
}
