package pep

import (
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// splitCaptures builds a split upload with known delays: the client
// (capture on it) sends n segments of 1000 bytes every 2 ms from t0+1s to a
// transparent PEP local/2 away, which acknowledges each at once; the PEP
// forwards each segment over a path of far/2 one way to the server
// (capture on it), which acknowledges at once (50 µs turnaround). The PEP's
// own connection starts when the client's SYN reaches it and uses its own
// address 10.0.2.1. Returns the paths of the client and server captures.
func splitCaptures(t *testing.T, local, far time.Duration, n int) (string, string) {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const turn = 50 * time.Microsecond
	client := netip.MustParseAddrPort("10.0.1.2:40000")
	server := netip.MustParseAddrPort("10.0.2.2:5201")
	pepAddr := netip.MustParseAddrPort("10.0.2.1:30000")

	cc := pcaptest.NewConn(client, server, 1000, 7000)
	cs := cc.Handshake(t0, local)
	pc := pcaptest.NewConn(pepAddr, server, 5000, 9000)
	synAt := t0.Add(local/2 + far/2) // the client's SYN reaches the PEP, the PEP's SYN the server
	ss := []pcaptest.Segment{pc.Syn(synAt, pcaptest.C2S), pc.Syn(synAt.Add(turn), pcaptest.S2C)}
	ss = append(ss, pc.Ack(synAt.Add(turn+far), pcaptest.C2S, 1, 65535))
	for i := range n {
		tc := t0.Add(time.Second + time.Duration(i)*2*time.Millisecond)
		cs = append(cs, cc.Data(tc, pcaptest.C2S, 1000))
		cs = append(cs, cc.Ack(tc.Add(local), pcaptest.S2C, cc.Next(pcaptest.C2S), 65535))
		ts := tc.Add(local/2 + far/2)
		ss = append(ss, pc.Data(ts, pcaptest.C2S, 1000))
		ss = append(ss, pc.Ack(ts.Add(turn), pcaptest.S2C, pc.Next(pcaptest.C2S), 65535))
	}
	dir := t.TempDir()
	write := func(name string, segs []pcaptest.Segment) string {
		sort.SliceStable(segs, func(i, j int) bool { return segs[i].T.Before(segs[j].T) })
		f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
		for _, s := range segs {
			f.Add(s.T, 0, s.IP())
		}
		p := filepath.Join(dir, name)
		if err := f.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("client.pcap", cs), write("server.pcap", ss)
}

func analyze(t *testing.T, path string) *tcpanalysis.Report {
	t.Helper()
	rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Detail: true, Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func within(got, want time.Duration, frac float64) bool {
	d := float64(got - want)
	return d <= frac*float64(want) && -d <= frac*float64(want)
}

func TestSplitSynthetic(t *testing.T) {
	tests := []struct {
		name       string
		local, far time.Duration
		n          int
	}{
		{"geo-10ms-600ms", 10 * time.Millisecond, 600 * time.Millisecond, 200},
		{"meo-4ms-250ms", 4 * time.Millisecond, 250 * time.Millisecond, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cp, sp := splitCaptures(t, tt.local, tt.far, tt.n)
			crep, srep := analyze(t, cp), analyze(t, sp)
			pairs := MatchSplit(crep, srep)
			bytes := int64(tt.n) * 1000
			want := SplitPair{Client: 0, Server: 0, Dir: flows.AtoB, StartGap: (tt.local + tt.far) / 2, ClientBytes: bytes, ServerBytes: bytes}
			if len(pairs) != 1 || pairs[0] != want {
				t.Fatalf("MatchSplit = %+v, want [%+v]", pairs, want)
			}
			res := AnalyzeSplit(crep, srep, pairs)[0]
			t.Logf("client↔PEP %v, PEP↔server %v, max held %d B, delivered %d B in %v = %.1f kbit/s",
				res.ClientPEPRTT, res.PEPServerRTT, res.MaxHeldBytes, res.DeliveredBytes, res.Span, res.GoodputKbps)
			if !within(res.ClientPEPRTT, tt.local, 0.05) {
				t.Errorf("ClientPEPRTT = %v, want %v ± 5%%", res.ClientPEPRTT, tt.local)
			}
			if !within(res.PEPServerRTT, tt.far, 0.05) {
				t.Errorf("PEPServerRTT = %v, want %v ± 5%%", res.PEPServerRTT, tt.far)
			}
			// In steady state the PEP holds the segments sent in the last
			// (far/2 + local/2 + 50 µs) − local of client time, one per 2 ms.
			inside := (tt.far+tt.local)/2 + 50*time.Microsecond - tt.local
			wantHeld := int64(inside/(2*time.Millisecond)) * 1000
			if res.MaxHeldBytes < wantHeld || res.MaxHeldBytes > wantHeld+1000 {
				t.Errorf("MaxHeldBytes = %d, want %d..%d", res.MaxHeldBytes, wantHeld, wantHeld+1000)
			}
			if last := res.Held[len(res.Held)-1]; last.Bytes != 0 {
				t.Errorf("last Held = %+v, want 0 bytes (everything delivered)", last)
			}
			// The server's interval, no FIN: its last ACK − its first data
			// segment = (n−1)·2 ms + 50 µs, less the handshake RTT from the
			// capture to the server (its 50 µs turnaround).
			span := time.Duration(tt.n-1) * 2 * time.Millisecond
			if res.DeliveredBytes != bytes || res.Span != span {
				t.Errorf("delivered %d B in %v, want %d B in %v", res.DeliveredBytes, res.Span, bytes, span)
			}
			if g, w := res.GoodputKbps, float64(bytes)*8/span.Seconds()/1000; g < w*0.999 || g > w*1.001 {
				t.Errorf("GoodputKbps = %.2f, want %.2f", g, w)
			}
			v := DetectWith(crep.Conns[0], flows.AtoB, Options{PathRTT: tt.local + tt.far})
			if !v.Likely || !within(v.LocalRTT, tt.local, 0.05) {
				t.Errorf("DetectWith(client capture) = Likely %v LocalRTT %v, want true, %v", v.Likely, v.LocalRTT, tt.local)
			}
		})
	}
}

// testbedRuns is where `tcpviz testbed sat --out DIR --matrix 'pep=on,off
// window=20KB'` wrote its runs: $TCPVIZ_PEP_RUNS for a run of one's own,
// else the committed pair of that matrix (testdata/sat-pair, gzipped).
func testbedRuns() string {
	if d := os.Getenv("TCPVIZ_PEP_RUNS"); d != "" {
		return d
	}
	return "../testdata/sat-pair"
}

// runFile is name (client.pcap, server.pcap) in run directory dir, or its
// gzipped copy (testdata/sat-pair).
func runFile(dir, name string) string {
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		return p + ".gz"
	}
	return p
}

func TestSplitTestbed(t *testing.T) {
	tests := []struct {
		run  string
		same bool // no PEP: both captures see one connection
	}{
		{"pep-on_window-20KB", false},
		{"pep-off_window-20KB", true},
	}
	for _, tt := range tests {
		t.Run(tt.run, func(t *testing.T) {
			dir := filepath.Join(testbedRuns(), tt.run)
			cp, sp := runFile(dir, "client.pcap"), runFile(dir, "server.pcap")
			for _, p := range []string{cp, sp} {
				if _, err := os.Stat(p); err != nil {
					t.Fatalf("no testbed run: %v", err)
				}
			}
			crep, srep := analyze(t, cp), analyze(t, sp)
			pairs := MatchSplit(crep, srep)
			if len(pairs) != 2 {
				t.Fatalf("MatchSplit = %+v, want 2 pairs (iperf3 control and data)", pairs)
			}
			for _, res := range AnalyzeSplit(crep, srep, pairs) {
				t.Logf("%+v client↔PEP %v PEP↔server %v max held %d B, delivered %d B in %v = %.1f kbit/s",
					res.SplitPair, res.ClientPEPRTT, res.PEPServerRTT, res.MaxHeldBytes, res.DeliveredBytes, res.Span, res.GoodputKbps)
				if res.SameConn != tt.same {
					t.Errorf("pair %d/%d SameConn = %v, want %v", res.Client, res.Server, res.SameConn, tt.same)
				}
				if res.Client != res.Server {
					t.Errorf("pair %d/%d, want the same index in both captures", res.Client, res.Server)
				}
				lo, hi := 5*time.Millisecond, 50*time.Millisecond // LAN: 2 × 5 ms
				if tt.same {
					lo, hi = 600*time.Millisecond, 700*time.Millisecond
				}
				if res.ClientPEPRTT < lo || res.ClientPEPRTT > hi {
					t.Errorf("pair %d ClientPEPRTT = %v, want %v..%v", res.Client, res.ClientPEPRTT, lo, hi)
				}
				if res.PEPServerRTT < 590*time.Millisecond || res.PEPServerRTT > 700*time.Millisecond {
					t.Errorf("pair %d PEPServerRTT = %v, want 590..700 ms (2 × 300 ms satellite [+ LAN])", res.Client, res.PEPServerRTT)
				}
				if !tt.same && res.ClientBytes > 100000 && res.MaxHeldBytes < 100000 {
					t.Errorf("pair %d MaxHeldBytes = %d, want > 100 kB held by the PEP", res.Client, res.MaxHeldBytes)
				}
			}
		})
	}
}
