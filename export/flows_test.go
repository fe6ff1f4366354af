package export

import (
	"bytes"
	"encoding/csv"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestFlowsTableRowsOnly: a FlowsFile whose rows the caller built (a live
// capture) needs no Report; the header counts its rows.
func TestFlowsTableRowsOnly(t *testing.T) {
	ff := FlowsFile{File: "eth0", Format: "live", Frames: 10, Segments: 8,
		Conns: []FlowRow{{Conn: 3, AAddr: "10.0.0.1", APort: 1, BAddr: "10.0.0.2", BPort: 2, BytesAB: 1448}}}
	var b bytes.Buffer
	if err := WriteFlowsTable(&b, []FlowsFile{ff}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "eth0: live, 10 frames, 8 TCP segments, 1 connections") || !strings.Contains(out, "10.0.0.1:1") {
		t.Errorf("table:\n%s", out)
	}
}

// TestFlowsTableRetxSegs: the first copy of bytes 1001..2000 was lost
// before the capture point; their retransmission (frame 8, 200 ms later)
// is the only copy the capture holds. It is a retransmission (tcpviz
// retrans lists it: rto) but no byte of it was seen before, so the table's
// retx B a>b is 0 and its retx segs a>b is 1, the count retrans gives.
func TestFlowsTableRetxSegs(t *testing.T) {
	cli, srv := netip.MustParseAddrPort("192.0.2.1:40000"), netip.MustParseAddrPort("198.51.100.1:5201")
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	c := pcaptest.NewConn(cli, srv, 1000, 9000)
	segs := append(c.Handshake(at(0), 20*time.Millisecond),
		c.DataAt(at(21), pcaptest.C2S, 1, 1000),      // 4
		c.DataAt(at(21.2), pcaptest.C2S, 2001, 1000), // 5: 1001..2000 never captured
		c.Ack(at(41), pcaptest.S2C, 1001, 65535),     // 6
		c.Ack(at(41.2), pcaptest.S2C, 1001, 65535),   // 7
		c.DataAt(at(241), pcaptest.C2S, 1001, 1000),  // 8: the retransmission
		c.Ack(at(261), pcaptest.S2C, 3001, 65535),    // 9
	)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "gap.pcap")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := tcpanalysis.Analyze(r, tcpanalysis.Options{Flows: flows.Options{WScale: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Conns[0].Counts[flows.AtoB][tcpanalysis.RTO]; n != 1 {
		t.Fatalf("%d rto events a>b, want 1 (frame 8)", n)
	}
	cell, lines := tableCells(t, "gap.pcap", rep)
	if cell["retx B a>b"] != "0" || cell["retx segs a>b"] != "1" || cell["retx segs b>a"] != "0" {
		t.Errorf("retx B a>b %q, retx segs a>b %q, b>a %q; want 0, 1, 0\n%s", cell["retx B a>b"], cell["retx segs a>b"], cell["retx segs b>a"], strings.Join(lines, "\n"))
	}
	if foot := lines[len(lines)-2]; !strings.Contains(foot, "retx segs = data segments sent again, incl. gap fillers whose first copy was not captured (no retx B)") {
		t.Errorf("footer does not explain retx segs: %s", foot)
	}
}

// ctlRetxReport analyses a connection whose only retransmissions are a
// SYN-ACK (frame 3 repeats 2) and a bare FIN (frames 6 and 7 repeat 5)
// sent again.
func ctlRetxReport(t *testing.T) *tcpanalysis.Report {
	t.Helper()
	cli, srv := netip.MustParseAddrPort("192.0.2.1:40000"), netip.MustParseAddrPort("198.51.100.1:443")
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	c := pcaptest.NewConn(cli, srv, 1000, 9000)
	segs := []pcaptest.Segment{
		c.Syn(at(0), pcaptest.C2S),              // 1
		c.Syn(at(10), pcaptest.S2C),             // 2: SYN-ACK
		c.Syn(at(1010), pcaptest.S2C),           // 3: SYN-ACK again
		c.Ack(at(1020), pcaptest.C2S, 1, 65535), // 4
		c.Fin(at(1040), pcaptest.C2S),           // 5: FIN at 1
		c.DataAt(at(1240), pcaptest.C2S, 1, 0),  // 6: again
		c.DataAt(at(1640), pcaptest.C2S, 1, 0),  // 7: again
	}
	segs[5].Flags |= pcaptest.FIN
	segs[6].Flags |= pcaptest.FIN
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range segs {
		f.Add(s.T, 0, s.IP())
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "ctl.pcap")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := tcpanalysis.Analyze(r, tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestFlowsTableCtlRetx: a connection whose only retransmissions are a
// SYN-ACK and a FIN sent again without payload (frames 3, 6 and 7) shows
// them in the table's syn/fin retx columns (b>a 1, a>b 2), so that the
// table agrees with retrans (3 retransmission events) where retx B and retx
// segs, payload only, are 0; before, every retx column read 0.
func TestFlowsTableCtlRetx(t *testing.T) {
	rep := ctlRetxReport(t)
	retx := func(d flows.Direction) int64 {
		n := int64(0)
		for _, cl := range tcpanalysis.Classes() {
			if cl.IsRetransmission() {
				n += rep.Conns[0].Counts[d][cl]
			}
		}
		return n
	}
	if a, b := retx(flows.AtoB), retx(flows.BtoA); a != 2 || b != 1 {
		t.Fatalf("retransmission events a>b %d, b>a %d; want 2 (frames 6, 7), 1 (frame 3)", a, b)
	}
	cell, lines := tableCells(t, "ctl.pcap", rep)
	for h, want := range map[string]string{"retx B a>b": "0", "retx segs a>b": "0", "retx segs b>a": "0", "syn/fin retx a>b": "2", "syn/fin retx b>a": "1"} {
		if cell[h] != want {
			t.Errorf("%s = %q, want %q\n%s", h, cell[h], want, strings.Join(lines, "\n"))
		}
	}
	if foot := lines[len(lines)-2]; !strings.Contains(foot, "syn/fin retx = SYN, SYN-ACK or FIN sent again without payload; retrans lists both") {
		t.Errorf("footer does not explain syn/fin retx: %s", foot)
	}
}

// TestFlowsSchemaV4: the flows schema is /4 since rto gave up the
// retransmissions whose trigger the capture cannot show (unknown_ab/ba,
// new columns before pep_possible_ab/ba, the last). The CSV of the ctlRetxReport connection keeps
// /3's counts (rto_ab 2: the FINs, frames 6 and 7, the client's packets
// captured; spurious/rto_ba 1: the SYN-ACK; each also in syn_fin_retx)
// with unknown 0; a one-way capture's retransmission (no packet of the
// receiver) is unknown_ab 1 and rto_ab 0, in CSV and JSON; and
// docs/schema.md documents this version, the new columns and what changed.
func TestFlowsSchemaV4(t *testing.T) {
	if FlowsSchema != "tcpviz.flows/4" {
		t.Errorf("FlowsSchema %q, want tcpviz.flows/4", FlowsSchema)
	}
	csvCols := func(rep *tcpanalysis.Report) map[string]string {
		t.Helper()
		var b bytes.Buffer
		if err := WriteFlowsCSV(&b, []FlowsFile{NewFlowsFile("x.pcap", rep, false)}); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&b).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("%d CSV rows, %v", len(rows), err)
		}
		if n := len(rows[0]); n < 5 || rows[0][n-5] != "overheard" || rows[0][n-4] != "unknown_ab" || rows[0][n-3] != "unknown_ba" ||
			rows[0][n-2] != "pep_possible_ab" || rows[0][n-1] != "pep_possible_ba" {
			t.Errorf("header ends %v, want overheard, unknown_ab, unknown_ba, pep_possible_ab, pep_possible_ba", rows[0][max(0, len(rows[0])-5):])
		}
		col := map[string]string{}
		for i, h := range rows[0] {
			col[h] = rows[1][i]
		}
		return col
	}
	check := func(name string, col map[string]string, want map[string]string) {
		for h, w := range want {
			if col[h] != w {
				t.Errorf("%s: %s = %q, want %q", name, h, col[h], w)
			}
		}
	}
	check("ctl", csvCols(ctlRetxReport(t)), map[string]string{"rto_ab": "2", "fast_ab": "0", "spurious_ab": "0", "rto_ba": "1", "spurious_ba": "0", "pmtu_ab": "0",
		"retx_segs_ab": "0", "retx_segs_ba": "0", "syn_fin_retx_ab": "2", "syn_fin_retx_ba": "1", "synack_retx": "1", "fin_retx_ab": "2", "syn_retx": "0", "overheard": "0",
		"unknown_ab": "0", "unknown_ba": "0", "pep_possible_ab": "false", "pep_possible_ba": "false"})

	// One way: the client's data, one segment sent again 300 ms later,
	// nothing of the server's.
	c := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.1:40000"), netip.MustParseAddrPort("198.51.100.1:80"), 1000, 9000)
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: pcaptest.LinkRaw})
	for _, s := range []pcaptest.Segment{c.Data(t0, pcaptest.C2S, 1000), c.Data(t0.Add(time.Millisecond), pcaptest.C2S, 1000), c.DataAt(t0.Add(300*time.Millisecond), pcaptest.C2S, 1, 1000)} {
		f.Add(s.T, 0, s.IP())
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "oneway.pcap")
	if err != nil {
		t.Fatal(err)
	}
	oneway, err := tcpanalysis.Analyze(r, tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("oneway", csvCols(oneway), map[string]string{"rto_ab": "0", "fast_ab": "0", "unknown_ab": "1", "unknown_ba": "0", "retx_segs_ab": "1"})
	if ev := NewFlowRow("oneway.pcap", oneway, oneway.Conns[0], true).Events; ev["unknown_ab"] != 1 || ev["rto_ab"] != 0 {
		t.Errorf("JSON events unknown_ab %d rto_ab %d, want 1 0", ev["unknown_ab"], ev["rto_ab"])
	}

	doc, err := os.ReadFile("../docs/schema.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(doc)
	sec = sec[strings.Index(sec, "## flows"):strings.Index(sec, "## Time columns")]
	for _, w := range []string{`"schema": "` + FlowsSchema + `"`, "Version 4 (this one). Columns whose meaning changed since /3:", "/3 `rto` = /4 `rto + unknown`",
		"| unknown_ab, unknown_ba | events |", "Version 3. Columns whose meaning changed since /2:", "| syn_fin_retx_ab, syn_fin_retx_ba | segments |", "| pep_possible_ab, pep_possible_ba |"} {
		if !strings.Contains(sec, w) {
			t.Errorf("docs/schema.md#flows lacks %q", w)
		}
	}
}

// TestTputGoodputLinesAgree: over a whole connection, tput's "goodput in
// window" equals "goodput, whole connection" on 802.11 captures too, where
// the goodput bytes add the in-order bytes the receiver's MAC took after
// its last ACK (they differed by up to 2 kbit/s at ns-3 sinks: 815.6
// against 817.2 kbit/s), and where the highest ACK came in a frame the node
// only overheard (0.0 against 1070.1 kbit/s at an ns-3 relay).
func TestTputGoodputLinesAgree(t *testing.T) {
	files, _ := filepath.Glob("../testdata/manet/*.pcap.gz")
	extra, _ := filepath.Glob("../../shared/ns3/tcp-dsdv-r1-1-0.pcap.gz") // conn 3: 1 448 B after the last ACK
	relay, _ := filepath.Glob("../../shared/ns3/tcp-aodv-r2-8-0.pcap.gz") // conn 3: acknowledged by overheard ACKs only
	extra = append(extra, relay...)
	files = append(files, extra...)
	tails := 0
	for _, path := range files {
		all, err := query.Analyze(path, query.All(), query.PlanRate(0, query.Want{Report: true}))
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range all.Report.Conns {
			v, err := query.FromReport(all.Report, query.Selection{Conn: i, Ref: query.RefSYN}, query.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Dir[v.Dir].Bytes == 0 && r.Conn.Overheard == 0 {
				continue
			}
			tab, err := Tput(v, nil, 0, AckedByReceiver)
			if err != nil {
				t.Fatal(err)
			}
			var win, whole string
			for _, row := range tab.Summary {
				switch row[0] {
				case "goodput in window":
					win, _, _ = strings.Cut(row[1], " over")
				case "goodput, whole connection":
					whole, _, _ = strings.Cut(row[1], " over")
				case "received after the last ACK":
					tails++
				}
			}
			if win != whole {
				t.Errorf("%s conn %d: goodput in window %q, whole connection %q", path, i, win, whole)
			}
		}
	}
	if len(extra) > 0 && tails == 0 {
		t.Error("no connection had bytes received after its last ACK: the test checks nothing")
	}
}

// tableCells writes rep's flows table (file name name) and returns its
// first connection's cells by column heading, and the table's lines.
func tableCells(t *testing.T, name string, rep *tcpanalysis.Report) (map[string]string, []string) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteFlowsTable(&b, []FlowsFile{NewFlowsFile(name, rep, false)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	sep := regexp.MustCompile(`\s{2,}`)
	head, row := sep.Split(strings.TrimSpace(lines[1]), -1), sep.Split(strings.TrimSpace(lines[2]), -1)
	cell := map[string]string{}
	for i, h := range head {
		if i < len(row) {
			cell[h] = row[i]
		}
	}
	return cell, lines
}
