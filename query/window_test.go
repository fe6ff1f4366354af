package query

import (
	"net/netip"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestIntervalsFromRef: the intervals start at the reference point + From,
// are cut at + To, and add up to every payload byte sent and every byte
// newly acknowledged in the window — counted here from the segments and
// ACKs directly. geo-600ms-loss sends 1448-byte segments: the window
// --ref bulk --from 2 --to 4.5 ([2.6, 5.1] s after the SYN) starts with 45
// segments (65 160 B) acknowledged and acknowledges 38 more (55 024 B),
// ending at 120 184 B; --from 1.5 --to 3: 25 (36 200 B) before, 20
// (28 960 B) in it, 32 (46 336 B) sent in it.
func TestIntervalsFromRef(t *testing.T) {
	for _, c := range []struct {
		name        string
		ref         Ref
		from, to    time.Duration
		sent, acked int64
		pre, cum    int64 // acknowledged before the window, and at its end (CumAcked)
		n           int
		first       time.Duration // first interval's start since the SYN
		lastW       time.Duration
	}{
		// The whole connection: the last interval ends at its last
		// packet, 25.185 s after the SYN.
		{"bulk", RefBulk, 0, 0, 584992, 579200, 0, 579200, 25, 600 * time.Millisecond, 585 * time.Millisecond},
		{"syn", RefSYN, 0, 0, 584992, 579200, 0, 579200, 26, 0, 185 * time.Millisecond},
		{"data", RefData, 0, 0, 584992, 579200, 0, 579200, 25, 600 * time.Millisecond, 585 * time.Millisecond},
		{"range", RefBulk, 2 * time.Second, 4500 * time.Millisecond, 17376, 55024, 65160, 120184, 3, 2600 * time.Millisecond, 500 * time.Millisecond},
		{"off-grid", RefBulk, 1500 * time.Millisecond, 3 * time.Second, 46336, 28960, 36200, 65160, 2, 2100 * time.Millisecond, time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			sel := All()
			sel.Ref, sel.From, sel.To = c.ref, c.from, c.to
			v, err := Analyze(synth, sel, Options{Interval: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			r, d := v.Conn, v.Dir
			iv, err := v.Intervals(r, d)
			if err != nil {
				t.Fatal(err)
			}
			var sent, acked int64
			for _, b := range iv {
				sent, acked = sent+b.Bytes, acked+b.Acked
			}
			// Independently: payload of the segments in the window.
			var want int64
			for _, s := range r.Series.Segs[d] {
				if sel.InRange(s.Time, v.Ref) {
					want += int64(s.Payload)
				}
			}
			if sent != want {
				t.Errorf("intervals hold %d B sent, the window %d B", sent, want)
			}
			if sent != c.sent || acked != c.acked {
				t.Errorf("sent %d, acked %d; want %d, %d", sent, acked, c.sent, c.acked)
			}
			// CumAcked: the level before the window, then each interval's
			// new bytes; at the end, what tcpanalysis.AckedAt reads there.
			level := c.pre
			for i, b := range iv {
				level += b.Acked
				if b.CumAcked != level {
					t.Errorf("interval %d: cum_acked %d, want %d", i, b.CumAcked, level)
				}
			}
			if last := iv[len(iv)-1]; last.CumAcked != c.cum || (c.to > 0 && tcpanalysis.AckedAt(r, d, v.Ref, c.to) != c.cum) {
				t.Errorf("cum_acked at the end %d (AckedAt %d), want %d", last.CumAcked, tcpanalysis.AckedAt(r, d, v.Ref, c.to), c.cum)
			}
			if len(iv) != c.n {
				t.Fatalf("%d intervals, want %d", len(iv), c.n)
			}
			if got := iv[0].Start.Sub(r.Conn.First); got != c.first {
				t.Errorf("first interval at %v after the SYN, want %v", got, c.first)
			}
			if got := iv[len(iv)-1].Width; got != c.lastW {
				t.Errorf("last interval %v wide, want %v", got, c.lastW)
			}
			// Interval k > 0 starts on the grid laid from the reference
			// point.
			for _, b := range iv[1:] {
				if b.Start.Sub(v.Ref)%time.Second != 0 {
					t.Errorf("interval at %v after the reference point: off the grid", b.Start.Sub(v.Ref))
				}
			}
			if c.name == "off-grid" && (iv[0].Width != 500*time.Millisecond || iv[1].Start.Sub(v.Ref) != 2*time.Second) {
				t.Errorf("--from 1.5: intervals %v/%v, %v; want the first cut to 0.5 s, the second at ref + 2 s", iv[0].Start.Sub(v.Ref), iv[0].Width, iv[1].Start.Sub(v.Ref))
			}
		})
	}
}

// TestRefResolve: a direction without the reference point asked for falls
// back (bulk → data → syn), and the view warns once, naming the one used.
func TestRefResolve(t *testing.T) {
	sel := All()
	sel.Ref, sel.Dir = RefBulk, BA
	v, err := Analyze(synth, sel, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := v.Conn
	for _, c := range []struct {
		ref  Ref
		d    flows.Direction
		used Ref
		at   time.Duration
	}{
		{RefBulk, flows.AtoB, RefBulk, 600 * time.Millisecond},
		{RefData, flows.AtoB, RefData, 600 * time.Millisecond},
		{RefSYN, flows.AtoB, RefSYN, 0},
		{RefBulk, flows.BtoA, RefSYN, 0}, // ba sends ACKs only
		{RefData, flows.BtoA, RefSYN, 0},
	} {
		ts, used := c.ref.Resolve(r, c.d)
		if used != c.used || ts.Sub(r.Conn.First) != c.at {
			t.Errorf("%v in %v: %v at %v; want %v at %v", c.ref, c.d, used, ts.Sub(r.Conn.First), c.used, c.at)
		}
	}
	if v.RefUsed != RefSYN || v.Ref != r.Conn.First {
		t.Errorf("view: RefUsed %v at %v", v.RefUsed, capture.Timestamp(v.Ref))
	}
	n := 0
	for _, w := range v.Warnings {
		if w.Kind == WarnRefFallback {
			n++
			if w.Ref != RefSYN || w.Dir != flows.BtoA {
				t.Errorf("warning %+v", w)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d WarnRefFallback warnings, want 1", n)
	}
}

// TestInWindow: both ends of the window are in it; To 0 has no end.
func TestInWindow(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		dt, from, to time.Duration
		want         bool
	}{
		{0, 0, 0, true},
		{-1, 0, 0, false},
		{2 * s, 2 * s, 4 * s, true},
		{4 * s, 2 * s, 4 * s, true},
		{4*s + 1, 2 * s, 4 * s, false},
		{2*s - 1, 2 * s, 4 * s, false},
		{1000 * s, 2 * s, 0, true},
	} {
		if got := InWindow(c.dt, c.from, c.to); got != c.want {
			t.Errorf("InWindow(%v, %v, %v) = %v, want %v", c.dt, c.from, c.to, got, c.want)
		}
		sel := Selection{From: c.from, To: c.to}
		if got := sel.InRange(capture.Timestamp(7*s+c.dt), capture.Timestamp(7*s)); got != c.want {
			t.Errorf("Selection{%v, %v}.InRange(ref + %v) = %v, want %v", c.from, c.to, c.dt, got, c.want)
		}
	}
}

// smallTransfer writes a capture whose intervals are checked by hand
// (times in ms since the SYN; relative sequence numbers, data byte 1 is 1):
//
//	  0 SYN              100 SYN-ACK (ack 1), ACK
//	200 data 1–100 (a 100-byte cookie: the first data segment)
//	250 ACK 101
//	300 data 101–1100    (the first bulk segment: --ref bulk)
//	400 data 1101–2100   450 ACK 1101
//	550 ACK 2101
//	600 data 2101–3100
//	700 data 3101–4100   750 ACK 3101
//	850 ACK 4101
//	900 FIN (seq 4101)  1000 ACK 4102 (the FIN: still 4100 bytes)
func smallTransfer(t *testing.T) string {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.2:5201"), 1000, 7000)
	const cs, sc = pcaptest.C2S, pcaptest.S2C
	segs := c.Handshake(t0, 100*time.Millisecond)
	segs = append(segs,
		c.Data(ms(200), cs, 100), c.Ack(ms(250), sc, 101, 65535),
		c.Data(ms(300), cs, 1000),
		c.Data(ms(400), cs, 1000), c.Ack(ms(450), sc, 1101, 65535),
		c.Ack(ms(550), sc, 2101, 65535),
		c.Data(ms(600), cs, 1000),
		c.Data(ms(700), cs, 1000), c.Ack(ms(750), sc, 3101, 65535),
		c.Ack(ms(850), sc, 4101, 65535),
		c.Fin(ms(900), cs), c.Ack(ms(1000), sc, 4102, 65535))
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRaw})
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	p := filepath.Join(t.TempDir(), "small.pcap")
	if err := f.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIntervalsByHand: the intervals of smallTransfer, 200 ms wide, with
// every byte count checked by hand from its script. CumAcked starts from
// what was acknowledged before the window (the cookie's 100 bytes, and
// with --from 0.2 the first bulk segment's 1000) and ends at the highest
// ACK in it; the FIN's sequence number is not a byte.
func TestIntervalsByHand(t *testing.T) {
	p := smallTransfer(t)
	type iv struct {
		at, width                     int // ms since the SYN
		bytes, acked, cumAcked, ackAt int64
	}
	for _, c := range []struct {
		name     string
		ref      Ref
		from, to int // ms after the reference point
		want     []iv
	}{
		// Grid from 300 ms: [300, 500) holds two bulk segments and the
		// ACK of 1101 (1000 new bytes over the cookie's 100); the last
		// interval ends at the connection's last packet (1000 ms):
		// [900, 1000] holds the FIN and its ACK: nothing new.
		{"bulk", RefBulk, 0, 0, []iv{{300, 200, 2000, 1000, 1100, 1100}, {500, 200, 1000, 1000, 2100, 2100}, {700, 200, 1000, 2000, 4100, 4100}, {900, 100, 0, 0, 4100, 4100}}},
		// Grid from the SYN: the cookie and the first bulk segment share
		// [200, 400); the cookie's ACK is the only one there. The last
		// packet, at 1000 ms, ends [800, 1000]: no interval after it.
		{"syn", RefSYN, 0, 0, []iv{{0, 200, 0, 0, 0, 0}, {200, 200, 1100, 100, 100, 100}, {400, 200, 1000, 2000, 2100, 2100}, {600, 200, 2000, 1000, 3100, 3100}, {800, 200, 0, 1000, 4100, 4100}}},
		// Grid from the cookie (200 ms): its 100 bytes are in the window.
		{"data", RefData, 0, 0, []iv{{200, 200, 1100, 100, 100, 100}, {400, 200, 1000, 2000, 2100, 2100}, {600, 200, 2000, 1000, 3100, 3100}, {800, 200, 0, 1000, 4100, 4100}}},
		// --ref bulk --from 0.2 --to 0.5: the window [500, 800] after the
		// ACK of 1101 (acknowledged before it); the last interval is cut
		// to [700, 800], before the ACK of 4101 at 850.
		{"window", RefBulk, 200, 500, []iv{{500, 200, 1000, 1000, 2100, 2100}, {700, 100, 1000, 1000, 3100, 3100}}},
		// --from 0.1, off the grid: the first interval is cut to
		// [400, 500); the bulk segment at 300 is before the window.
		{"off-grid", RefBulk, 100, 0, []iv{{400, 100, 1000, 1000, 1100, 1100}, {500, 200, 1000, 1000, 2100, 2100}, {700, 200, 1000, 2000, 4100, 4100}, {900, 100, 0, 0, 4100, 4100}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sel := All()
			sel.Ref, sel.From, sel.To = c.ref, time.Duration(c.from)*time.Millisecond, time.Duration(c.to)*time.Millisecond
			v, err := Analyze(p, sel, Options{Interval: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			r, d := v.Conn, v.Dir
			if d != flows.AtoB || v.RefUsed != c.ref {
				t.Fatalf("direction %v, reference point %v; want ab, %v", d, v.RefUsed, c.ref)
			}
			got, err := v.Intervals(r, d)
			if err != nil {
				t.Fatal(err)
			}
			var gotIv []iv
			for _, b := range got {
				end := b.Start.Sub(v.Ref) + b.Width // since the reference point
				gotIv = append(gotIv, iv{int(b.Start.Sub(r.Conn.First) / time.Millisecond), int(b.Width / time.Millisecond), b.Bytes, b.Acked, b.CumAcked,
					tcpanalysis.AckedAt(r, d, v.Ref, end-1)})
			}
			if !reflect.DeepEqual(gotIv, c.want) {
				t.Errorf("intervals (ms since the SYN, width, bytes, acked, cum_acked, AckedAt at the end)\n got %v\nwant %v", gotIv, c.want)
			}
		})
	}
}

// TestRecordsInWindow: a View's records and the series made of them keep
// one window rule (both ends included): --ref bulk --from 0.1 --to 0.45 of
// smallTransfer is [400, 750] ms: the data segments at 400, 600 and 700 and
// the ACKs at 450, 550 and 750. ConnView is the whole connection.
func TestRecordsInWindow(t *testing.T) {
	p := smallTransfer(t)
	sel := All()
	sel.Ref, sel.From, sel.To = RefBulk, 100*time.Millisecond, 450*time.Millisecond
	v, err := Analyze(p, sel, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, d := v.Conn, v.Dir
	msOf := func(ts capture.Timestamp) int { return int(ts.Sub(r.Conn.First) / time.Millisecond) }
	var segs, acks []int
	for s := range v.Segs(r, d) {
		segs = append(segs, msOf(s.Time))
	}
	for a := range v.Acks(r, d) {
		acks = append(acks, msOf(a.Time))
	}
	if !slices.Equal(segs, []int{400, 600, 700}) || !slices.Equal(acks, []int{450, 550, 750}) {
		t.Errorf("segments at %v ms, ACKs at %v ms; want [400 600 700], [450 550 750]", segs, acks)
	}
	var ackVals []float64
	for _, pt := range v.Series(MetricAck).Points {
		ackVals = append(ackVals, pt.V)
	}
	if !slices.Equal(ackVals, []float64{1101, 2101, 3101}) {
		t.Errorf("ack series %v, want [1101 2101 3101]", ackVals)
	}
	whole := ConnView(v.Report, r, d, 200*time.Millisecond)
	n := 0
	for range whole.Segs(r, d) {
		n++
	}
	// SYN, cookie, four bulk segments, FIN.
	if n != 7 || whole.Ref != r.Conn.First || !whole.Whole(r, d) {
		t.Errorf("ConnView: %d segments, ref %v after the SYN, whole %v; want 7, 0, true", n, whole.Ref.Sub(r.Conn.First), whole.Whole(r, d))
	}
	iv, err := whole.Intervals(r, d)
	if err != nil || len(iv) != 5 || iv[1].Bytes != 1100 || iv[4].CumAcked != 4100 {
		t.Errorf("ConnView intervals: %d (%v), want the --ref syn grid of TestIntervalsByHand", len(iv), err)
	}
}
