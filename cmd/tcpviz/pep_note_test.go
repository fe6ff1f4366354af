package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/compare"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/query"
)

// TestPEPHonesty: on the satellite testbed's client capture with a PEP,
// flows, tput and seq say the acknowledged bytes were accepted by the PEP
// and do not call them end-to-end goodput; without a PEP they say nothing.
func TestPEPHonesty(t *testing.T) {
	on := "../../testdata/sat/pep-on_window-20KB/client.pcap"
	off := "../../testdata/sat/pep-off_window-20KB/client.pcap"
	const note = "note: conn 1: data ab is likely acknowledged by a split-TCP PEP"
	out, _, err := runCLI(t, "flows", on)
	if err != nil || !strings.Contains(out, note) || !strings.Contains(out, "accepted, not delivered end to end") {
		t.Errorf("flows: err %v, output lacks the PEP note:\n%s", err, out)
	}
	out, errOut, err := runCLI(t, "tput", on)
	if err != nil || !strings.Contains(out, "accepted by PEP after 1 s") || !strings.Contains(out, "accepted by PEP (not end-to-end goodput)") ||
		!strings.Contains(errOut, note) {
		t.Errorf("tput: err %v\n%s\n%s", err, out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == "goodput" || strings.HasPrefix(strings.TrimSpace(l), "acked after")) {
			t.Errorf("tput still says %q behind a PEP", l)
		}
	}
	_, errOut, err = runCLI(t, "seq", on, "-o", filepath.Join(t.TempDir(), "s.csv"))
	if err != nil || !strings.Contains(errOut, note) {
		t.Errorf("seq: err %v, stderr %q", err, errOut)
	}
	for _, cmd := range []string{"flows", "tput"} {
		out, errOut, _ := runCLI(t, cmd, off)
		if strings.Contains(out+errOut, "split-TCP PEP") {
			t.Errorf("%s without a PEP mentions one:\n%s%s", cmd, out, errOut)
		}
	}
}

// TestFlowsNamesPEPAccepted: behind a PEP, flows' table names the rate
// of the PEP-acknowledged direction as PEP-accepted (column and cell) and
// its footer says so; CSV and JSON carry acks_from_pep_ab = true. iperf3's
// control connection (conn 0), which the PEP splits too but never stalls,
// has pep_possible_ab = true: one capture cannot tell. Without a PEP the
// column keeps its name and the flags are false.
func TestFlowsNamesPEPAccepted(t *testing.T) {
	on := "../../testdata/sat/pep-on_window-20KB/client.pcap"
	off := "../../testdata/sat/pep-off_window-20KB/client.pcap"
	out, _, err := runCLI(t, "flows", on)
	if err != nil || !strings.Contains(out, "goodput or PEP-accepted a>b kbit/s") || !strings.Contains(out, "1820.4 PEP") ||
		!strings.Contains(out, "not delivered to the receiver") {
		t.Errorf("flows table behind a PEP: %v\n%s", err, out)
	}
	out, _, _ = runCLI(t, "flows", "--csv", on)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasSuffix(lines[0], ",acks_from_pep_ab,acks_from_pep_ba,pmtu_ab,pmtu_ba,syn_fin_retx_ab,syn_fin_retx_ba,overheard,unknown_ab,unknown_ba,pep_possible_ab,pep_possible_ba") ||
		!strings.HasSuffix(lines[2], ",true,false,0,0,0,0,0,0,0,false,false") || !strings.HasSuffix(lines[1], ",false,false,0,0,0,0,0,0,0,true,false") {
		t.Errorf("flows --csv:\n%s", out)
	}
	out, _, _ = runCLI(t, "flows", "--json", on)
	if !strings.Contains(out, `"acks_from_pep_ab": true`) {
		t.Errorf("flows --json lacks acks_from_pep_ab true")
	}
	out, _, _ = runCLI(t, "flows", off)
	if strings.Contains(out, "PEP") {
		t.Errorf("flows without a PEP mentions one:\n%s", out)
	}
}

// TestCompareTputPEPPair: --metric tput on a PEP pair does not call the
// client side's rate goodput: the series is "accepted by PEP", the
// server side's delivered series is drawn, and the axis says both.
func TestCompareTputPEPPair(t *testing.T) {
	dir := "../../testdata/sat-pair/pep-on_window-20KB/"
	csvPath := filepath.Join(t.TempDir(), "t.csv")
	if _, errOut, err := runCLI(t, "compare", "a="+dir+"client.pcap.gz+"+dir+"server.pcap.gz", "--metric", "tput", "-o", csvPath); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	b, _ := os.ReadFile(csvPath)
	if !strings.Contains(string(b), "a accepted by PEP,goodput,") || !strings.Contains(string(b), "a delivered (end to end),goodput,") {
		t.Errorf("series:\n%s", b)
	}
	if l := compare.TputYLabel(nil, query.MetricGoodput); l != "" {
		t.Errorf("tputYLabel without runs = %q", l)
	}
	// One capture behind a PEP, alone and beside a run without one.
	sat := "../../testdata/sat/"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pep=" + sat + "pep-on_window-20KB/client.pcap"}, "accepted by PEP (not end-to-end goodput)"},
		{[]string{"nopep=" + sat + "pep-off_window-20KB/client.pcap", "pep=" + sat + "pep-on_window-20KB/client.pcap"}, "goodput delivered end to end / accepted by PEP"},
	} {
		svg := filepath.Join(t.TempDir(), "t.svg")
		if _, errOut, err := runCLI(t, append(append([]string{"compare"}, c.args...), "--metric", "tput", "-o", svg)...); err != nil {
			t.Fatalf("%v\n%s", err, errOut)
		}
		b, _ := os.ReadFile(svg)
		if !strings.Contains(string(b), c.want) {
			t.Errorf("compare %v --metric tput: the figure lacks the axis label %q", c.args, c.want)
		}
	}
}

// TestPEPNoteCaveat: a plain receiver on the sender's link that closes its
// window (shared case zero_window_probe) shows the same two signs as the
// testbed's PEP; the note says "likely" and that an application that stops
// reading shows the same. The testbed's PEP run gets the same caveat.
func TestPEPNoteCaveat(t *testing.T) {
	const caveat = "a receiving application there that stops reading shows the same"
	zw := filepath.Join(sharedtest.Dir(t, "cases"), "zero_window_probe.pcap")
	for _, f := range []string{zw, "../../testdata/sat/pep-on_window-20KB/client.pcap"} {
		for _, verb := range []string{"seq", "rtt"} {
			_, errOut, err := runCLI(t, verb, f, "--csv")
			if err != nil || !strings.Contains(errOut, "is likely acknowledged by a split-TCP PEP (evidence: receiver-hops, zero-window-stall)") || !strings.Contains(errOut, caveat) {
				t.Errorf("%s %s: err %v, stderr %q", verb, f, err, errOut)
			}
		}
	}
}

// TestPEPPathRTTProves: with --path-rtt 600ms the testbed's PEP run is
// proven (the connection RTT, 13 ms, is below a quarter of the path's):
// the verdict line and the note drop "likely" and the caveat, in seq and
// rtt alike; without it both stay "likely".
func TestPEPPathRTTProves(t *testing.T) {
	on := "../../testdata/sat/pep-on_window-20KB/client.pcap"
	for _, args := range [][]string{{"seq", on, "--pep", "--path-rtt", "600ms", "-o", filepath.Join(t.TempDir(), "s.png")}, {"rtt", on, "--pep", "--path-rtt", "600ms"}} {
		out, errOut, err := runCLI(t, args...)
		if err != nil || !strings.Contains(out, "a split-TCP PEP is between the sender and the receiver") ||
			!strings.Contains(errOut, "note: conn 1: data ab is acknowledged by a split-TCP PEP (evidence: conn-rtt-vs-path") || strings.Contains(errOut, "stops reading") {
			t.Errorf("%s: err %v\nstdout %s\nstderr %s", args[0], err, out, errOut)
		}
	}
	out, errOut, err := runCLI(t, "rtt", on, "--pep")
	if err != nil || !strings.Contains(out, "a split-TCP PEP is likely between") || !strings.Contains(errOut, "is likely acknowledged") {
		t.Errorf("rtt --pep: err %v\n%s\n%s", err, out, errOut)
	}
	// The figure's legend and compare's note follow the path RTT too.
	svg := filepath.Join(t.TempDir(), "s.svg")
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "ACK, likely from a PEP"}, {[]string{"--pep", "--path-rtt", "600ms"}, "ACK from the PEP"}} {
		if _, _, err := runCLI(t, append([]string{"seq", on, "-o", svg}, c.args...)...); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(svg)
		if !strings.Contains(string(b), c.want) {
			t.Errorf("seq %v: the legend lacks %q", c.args, c.want)
		}
	}
	out, _, err = runCLI(t, "compare", "pep="+on, "--pep", "--path-rtt", "600ms")
	if err != nil || !strings.Contains(out, "note: pep: the ACKs come from a split-TCP PEP (evidence: conn-rtt-vs-path") || strings.Contains(out, "stops reading") ||
		!strings.Contains(out, "This rests on the path RTT given, 600 ms") {
		t.Errorf("compare --path-rtt: err %v\n%s", err, out)
	}
}
