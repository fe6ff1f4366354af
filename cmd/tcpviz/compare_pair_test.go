package main

import (
	"net/netip"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// splitPair builds a PEP-split upload: the client side (10 ms RTT to the
// PEP, capture on the client) and the server side (600 ms PEP ↔ server,
// capture on the server, which acknowledges at once), 200 segments of
// 1000 B every 2 ms, no FIN. It writes them as two pcaps and as one pcapng
// with the client side on interface 0 and the server side on interface 1.
func splitPair(t *testing.T) (client, server, both string) {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	local, far, turn := 10*time.Millisecond, 600*time.Millisecond, 50*time.Microsecond
	cc := pcaptest.NewConn(netip.MustParseAddrPort("10.0.1.2:40000"), netip.MustParseAddrPort("10.0.2.2:5201"), 1000, 7000)
	cs := cc.Handshake(t0, local)
	pc := pcaptest.NewConn(netip.MustParseAddrPort("10.0.2.1:30000"), netip.MustParseAddrPort("10.0.2.2:5201"), 5000, 9000)
	synAt := t0.Add(local/2 + far/2)
	ss := []pcaptest.Segment{pc.Syn(synAt, pcaptest.C2S), pc.Syn(synAt.Add(turn), pcaptest.S2C), pc.Ack(synAt.Add(turn+far), pcaptest.C2S, 1, 65535)}
	for i := range 200 {
		tc := t0.Add(time.Second + time.Duration(i)*2*time.Millisecond)
		cs = append(cs, cc.Data(tc, pcaptest.C2S, 1000), cc.Ack(tc.Add(local), pcaptest.S2C, cc.Next(pcaptest.C2S), 65535))
		ts := tc.Add(local/2 + far/2)
		ss = append(ss, pc.Data(ts, pcaptest.C2S, 1000), pc.Ack(ts.Add(turn), pcaptest.S2C, pc.Next(pcaptest.C2S), 65535))
	}
	dir := t.TempDir()
	order := func(segs []pcaptest.Segment) {
		sort.SliceStable(segs, func(i, j int) bool { return segs[i].T.Before(segs[j].T) })
	}
	order(cs)
	order(ss)
	write := func(name string, segs []pcaptest.Segment) string {
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
	client, server = write("client.pcap", cs), write("server.pcap", ss)
	ng := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng})
	i0 := ng.AddInterface(pcaptest.LinkRaw, 9, 0, 0)
	i1 := ng.AddInterface(pcaptest.LinkRaw, 9, 0, 0)
	all := append(append([]pcaptest.Segment{}, cs...), ss...)
	iface := map[*pcaptest.Segment]int{}
	for i := range all {
		if i >= len(cs) {
			iface[&all[i]] = i1
		} else {
			iface[&all[i]] = i0
		}
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return all[idx[a]].T.Before(all[idx[b]].T) })
	for _, i := range idx {
		ng.Add(all[i].T, iface[&all[i]], all[i].IP())
	}
	both = filepath.Join(dir, "both.pcapng")
	if err := ng.WriteFile(both); err != nil {
		t.Fatal(err)
	}
	return client, server, both
}

// TestComparePair: a run given as CLIENT+SERVER, or as one two-interface
// pcapng (FILE+), reports the end-to-end goodput, the bytes held in the PEP
// and each leg's RTT, identically. By construction the server received
// 200 000 B over (200 − 1) × 2 ms = 398 ms (its 50 µs turnaround is the
// handshake RTT to it): 4020.1 kbit/s; each leg's RTT is 10 and 600.05 ms; the PEP holds at most 148 segments.
func TestComparePair(t *testing.T) {
	client, server, both := splitPair(t)
	var outs []string
	for _, spec := range []string{"pep=" + client + "+" + server, "pep=" + both + "+"} {
		out, errOut, err := runCLI(t, "compare", spec)
		if err != nil {
			t.Fatalf("compare %s: %v\n%s", spec, err, errOut)
		}
		for _, want := range []string{"goodput end to end  kbit/s  4020.1", "RTT client↔PEP      ms    10.0", "RTT PEP↔server      ms   600.0", "held in PEP max   bytes  148000",
			"held in PEP max", "a split-TCP PEP acknowledged the sender"} {
			if !strings.Contains(out, want) {
				t.Errorf("compare %s: no %q in\n%s", spec, want, out)
			}
		}
		var rows []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.Contains(l, ".pcap") {
				rows = append(rows, l)
			}
		}
		outs = append(outs, strings.Join(rows, "\n"))
	}
	if outs[0] != outs[1] {
		t.Errorf("two pcaps and one two-interface pcapng differ:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// TestComparePairSwapped: a pair given server side first is put back in
// order with a note, and gives the same end-to-end goodput (before: the
// wrong halves, and on testdata/sat-pair iperf3's control connection at
// 0.3 kbit/s).
func TestComparePairSwapped(t *testing.T) {
	client, server, _ := splitPair(t)
	out, errOut, err := runCLI(t, "compare", "pep="+server+"+"+client)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out, "goodput end to end  kbit/s  4020.1") || !strings.Contains(out+errOut, "the pair was given server side first") {
		t.Errorf("swapped pair:\n%s\n%s", out, errOut)
	}
	dir := "../../testdata/sat-pair/pep-on_window-20KB/"
	out, errOut, err = runCLI(t, "compare", "a="+dir+"server.pcap.gz+"+dir+"client.pcap.gz")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out, "goodput end to end  kbit/s    290.3") {
		t.Errorf("sat-pair given server side first:\n%s", out)
	}
}
