package main

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestRetransUnknownEverywhere: a capture that holds only the client's
// packets (the tester's oneway.pcap, built here): its retransmission is
// class unknown, evidence no_reverse, in retrans's CSV, JSON and table,
// and counted in flows' unknown_ab (CSV and JSON), never in rto_ab.
func TestRetransUnknownEverywhere(t *testing.T) {
	c := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.10:40000"), netip.MustParseAddrPort("198.51.100.20:80"), 1000, 777)
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range []pcaptest.Segment{c.Data(at(0), pcaptest.C2S, 1000), c.Data(at(50), pcaptest.C2S, 1000), c.Data(at(100), pcaptest.C2S, 1000),
		c.Data(at(150), pcaptest.C2S, 1000), c.Data(at(200), pcaptest.C2S, 1000), c.DataAt(at(250), pcaptest.C2S, 2000, 1000), c.Data(at(300), pcaptest.C2S, 1000)} {
		f.Add(s.T, 0, s.IP())
	}
	path := filepath.Join(t.TempDir(), "oneway.pcap")
	if err := os.WriteFile(path, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "retrans", path, "--csv")
	if err != nil || !strings.Contains(out, "\n0,ab,0.250000,0.250000,6,unknown,2001,1000,3,no_reverse\n") {
		t.Errorf("retrans --csv: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "retrans", path, "--json")
	if err != nil || !strings.Contains(out, `"unknown"`) || !strings.Contains(out, `"no_reverse"`) {
		t.Errorf("retrans --json: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "retrans", path)
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) < 2 || !strings.Contains(lines[0], "pmtu  unknown") || !strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "0 ab 0 0 0 0 1 ") {
		t.Errorf("retrans table: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "flows", path, "--csv")
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(rows) != 2 {
		t.Fatalf("flows --csv: %v\n%s", err, out)
	}
	col := map[string]string{}
	head, row := strings.Split(rows[0], ","), strings.Split(rows[1], ",")
	for i := range head {
		col[head[i]] = row[i]
	}
	if col["unknown_ab"] != "1" || col["rto_ab"] != "0" || col["retx_segs_ab"] != "1" {
		t.Errorf("flows --csv: unknown_ab %q rto_ab %q retx_segs_ab %q, want 1 0 1", col["unknown_ab"], col["rto_ab"], col["retx_segs_ab"])
	}
	out, _, err = runCLI(t, "flows", path, "--json")
	if err != nil || !strings.Contains(out, `"unknown_ab": 1`) || !strings.Contains(out, `"rto_ab": 0`) {
		t.Errorf("flows --json: %v\n%s", err, out)
	}
}
