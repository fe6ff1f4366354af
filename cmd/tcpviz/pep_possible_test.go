package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// lan4 is the testbed's PEP run whose sender a 4 Mbit/s LAN slows, so that
// the PEP never closes its window: one capture cannot tell it from an
// on-link server (testdata/sat-pair/pep-on_lan-4Mbit; iperf3 received
// 641.6 kbit/s, the client capture's ACKs say 2233.1).
const lan4 = "../../testdata/sat-pair/pep-on_lan-4Mbit/"

// TestPossiblePEPEveryOutput: on lan4's client capture every verb that
// shows acknowledged bytes flags them "PEP?" (possibly a PEP's) the same
// way, with the note naming the evidence and the two ways to decide, and
// none presents them, or the RTT to the acknowledger, as end-to-end: flows
// (mark, column, footer, note, CSV and JSON pep_possible_ab), tput (rows),
// seq (legend), rtt --pep (verdict unknown, no end-to-end RTT), compare
// (goodput end to end and delivered "–", the rate under "acked, receiver
// or PEP?"). --path-rtt (2 × 305 ms) proves the PEP in each; the
// CLIENT+SERVER pair gives iperf3's rate.
func TestPossiblePEPEveryOutput(t *testing.T) {
	client, server := lan4+"client.pcap.gz", lan4+"server.pcap.gz"
	const note = "note: conn 1: data ab may be acknowledged by a split-TCP PEP: unknown (evidence: receiver-hops is open"
	const how = "To decide, give the path's end-to-end RTT (--path-rtt"
	out, _, err := runCLI(t, "flows", client)
	if err != nil || !strings.Contains(out, "goodput or PEP-accepted a>b kbit/s") || !strings.Contains(out, "2233.1 PEP?") || !strings.Contains(out, note) ||
		!strings.Contains(out, how) || !strings.Contains(out, "'tcpviz compare LABEL=CLIENT+SERVER'") || !strings.Contains(out, "PEP? = unknown whether the ACKs came from the receiver") {
		t.Errorf("flows: %v\n%s", err, out)
	}
	if !strings.Contains(out, "02:77:00:01:00:01 never announced the receiver's address") {
		t.Errorf("flows: the note does not say what the link layer showed:\n%s", out)
	}
	out, _, _ = runCLI(t, "flows", "--csv", client)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.HasSuffix(lines[2], ",false,false,0,0,0,0,0,0,0,true,false") {
		t.Errorf("flows --csv:\n%s", out)
	}
	out, _, _ = runCLI(t, "flows", "--json", client)
	if !strings.Contains(out, `"pep_possible_ab": true`) || !strings.Contains(out, `"acks_from_pep_ab": false`) || !strings.Contains(out, "may be acknowledged by a split-TCP PEP") {
		t.Errorf("flows --json lacks pep_possible_ab true or its note")
	}
	out, _, _ = runCLI(t, "flows", client, "--path-rtt", "610ms")
	if !strings.Contains(out, "2233.1 PEP ") || strings.Contains(out, "PEP?") || !strings.Contains(out, "data ab is acknowledged by a split-TCP PEP (evidence: conn-rtt-vs-path)") {
		t.Errorf("flows --path-rtt 610ms:\n%s", out)
	}

	out, errOut, err := runCLI(t, "tput", client)
	if err != nil || !strings.Contains(out, "acked (receiver or PEP?) after 1 s") || !strings.Contains(out, "goodput or accepted by PEP? (unknown: see note)  2233.1 kbit/s") ||
		!strings.Contains(errOut, note) {
		t.Errorf("tput: %v\n%s\n%s", err, out, errOut)
	}
	if out, _, _ := runCLI(t, "tput", client, "--path-rtt", "610ms"); !strings.Contains(out, "accepted by PEP (not end-to-end goodput)") {
		t.Errorf("tput --path-rtt:\n%s", out)
	}

	svg := filepath.Join(t.TempDir(), "s.svg")
	if _, errOut, err := runCLI(t, "seq", client, "-o", svg); err != nil || !strings.Contains(errOut, note) {
		t.Errorf("seq: %v\n%s", err, errOut)
	}
	if b, _ := os.ReadFile(svg); !strings.Contains(string(b), "ACK, from the receiver or a PEP? (unknown: see note)") {
		t.Error("seq: the legend does not name the ACKs as possibly a PEP's")
	}

	out, errOut, err = runCLI(t, "rtt", "--pep", client)
	if err != nil || !strings.Contains(out, "unknown: the acknowledger is on the sender's link") || !strings.Contains(out, "end-to-end RTT: unknown") ||
		strings.Contains(out, "end-to-end RTT estimate") || !strings.Contains(errOut, note) {
		t.Errorf("rtt --pep: %v\n%s\n%s", err, out, errOut)
	}
	if out, _, _ := runCLI(t, "rtt", "--pep", client, "--path-rtt", "610ms"); !strings.Contains(out, "end-to-end RTT: 610.000 ms (as given by --path-rtt)") ||
		!strings.Contains(out, "a split-TCP PEP is between the sender and the receiver") {
		t.Errorf("rtt --pep --path-rtt:\n%s", out)
	}

	out, _, err = runCLI(t, "compare", "one="+client, "pair="+client+"+"+server)
	rows := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1); len(f) >= 3 {
			rows[f[0]] = f[2:]
		}
	}
	if err != nil || rows["goodput end to end"][0] != "–" || rows["delivered after 1 s"][0] != "–" || rows["acked, receiver or PEP?"][0] != "2429.1" ||
		rows["goodput end to end"][1] != "641.5" || !strings.Contains(out, "note: one: unknown whether the ACKs came from the receiver or from a split-TCP PEP") {
		t.Errorf("compare: %v, rows %v\n%s", err, rows, out)
	}
	out, _, _ = runCLI(t, "compare", "one="+client, "--path-rtt", "610ms")
	if !strings.Contains(out, "accepted by PEP") || strings.Contains(out, "receiver or PEP?") || !strings.Contains(out, "the ACKs come from a split-TCP PEP (evidence: conn-rtt-vs-path)") {
		t.Errorf("compare --path-rtt:\n%s", out)
	}
}

// TestGoodputPossiblePEP: the batch goodput gives lan4's client row
// vantage pep? with a warning, and leaves it out of the tables, loudly,
// as it does a PEP's (vantage pep); --path-rtt makes it pep. The server
// sides (what was delivered) stay in.
func TestGoodputPossiblePEP(t *testing.T) {
	dir := "../../testdata/sat-pair"
	out, errOut, err := runCLI(t, "goodput", dir, "--labels", "{run}/{side}.pcap.gz", "--group", "run", "--csv")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	vantage := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		for _, run := range []string{"pep-on_lan-4Mbit", "pep-on_window-20KB"} {
			if strings.Contains(l, run+"/client.pcap.gz") && strings.Contains(l, ",5201,") {
				f := strings.Split(l, ",")
				for _, v := range []string{"pep?", "pep"} {
					for _, c := range f {
						if c == v {
							vantage[run] = v
						}
					}
				}
			}
		}
	}
	if vantage["pep-on_lan-4Mbit"] != "pep?" || vantage["pep-on_window-20KB"] != "pep" {
		t.Errorf("vantages %v\n%s", vantage, out)
	}
	for _, w := range []string{"1 flow may have been acknowledged by a split-TCP PEP in their capture (vantage pep?", "(vantage pep?) is LEFT OUT of the Goodput tables",
		"(vantage pep) is LEFT OUT of the Goodput tables", "--path-rtt (the path's end-to-end RTT) decides it for every flow"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("goodput: stderr lacks %q:\n%s", w, errOut)
		}
	}
	_, errOut, err = runCLI(t, "goodput", dir, "--labels", "{run}/{side}.pcap.gz", "--group", "run", "--csv", "--path-rtt", "610ms")
	if err != nil || strings.Contains(errOut, "pep?") || !strings.Contains(errOut, "2 flows in 2 runs (vantage pep) are LEFT OUT") {
		t.Errorf("goodput --path-rtt: %v\n%s", err, errOut)
	}
}

// TestPEPNotesCondensed: past maxConnNotes connections a PEP may
// acknowledge, flows gives one note for the rest (whose notes are not
// written, whose verdicts are not kept past 2 × maxConnNotes: memory does
// not grow with them); Likely notes are all kept. The possible verdict is the
// pep-on_lan-4Mbit client's data connection's, given to 12 indexes.
func TestPEPNotesCondensed(t *testing.T) {
	rep, err := tcpanalysis.AnalyzeFile(lan4+"client.pcap.gz", tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := pep.Acknowledger(rep.Conns[1], 0)
	if !v.Possible {
		t.Fatalf("conn 1: Possible %v", v.Possible)
	}
	notes, maybe := map[int]string{20: "likely"}, map[int]flows.Direction{}
	var possible possiblePEPs
	for i := 11; i >= 0; i-- { // out of order, as connections end
		possible.add(i, v, maybe)
	}
	if possible.n != 12 || len(possible.v) != 2*maxConnNotes || len(maybe) != 1 {
		t.Errorf("possiblePEPs: n %d, %d verdicts kept, %d directions", possible.n, len(possible.v), len(maybe))
	}
	got := pepNotes(notes, &possible)
	if len(got) != maxConnNotes+2 || !strings.HasPrefix(got[0], "conn 0: data ab may be acknowledged by a split-TCP PEP") || !strings.HasPrefix(got[4], "conn 4: ") ||
		got[maxConnNotes] != "likely" || !strings.HasPrefix(got[maxConnNotes+1], "7 more connections (connections 5, 6, 7, …): data may be acknowledged") {
		t.Errorf("pepNotes = %q", got)
	}
}

// TestPathClearedNote: when --path-rtt decides that an acknowledger on the
// sender's link is the far end (a connection RTT of at least a quarter of
// it: lan4's client with 30 ms), flows drops the PEP? marks and says why
// in one note naming the connections, so that a reader sees what the
// path RTT decided.
func TestPathClearedNote(t *testing.T) {
	out, errOut, err := runCLI(t, "flows", "--path-rtt", "30ms", lan4+"client.pcap.gz")
	if err != nil || strings.Contains(out, "PEP?") || !strings.Contains(out+errOut, "connections 0, 1: the acknowledger is on the sender's link, and --path-rtt 30ms decided it is the far end") {
		t.Errorf("flows --path-rtt 30ms: %v\n%s\n%s", err, out, errOut)
	}
	out, errOut, _ = runCLI(t, "flows", lan4+"client.pcap.gz")
	if strings.Contains(out+errOut, "decided it is the far end") {
		t.Errorf("flows without --path-rtt speaks of it:\n%s%s", out, errOut)
	}
}
