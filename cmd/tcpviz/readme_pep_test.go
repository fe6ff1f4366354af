package main

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestComparePEPPairTestbed runs compare on testdata/sat-pair (one 10 s run
// of the project's satellite testbed per case, 20 KB window, captures at
// client and server): the end-to-end goodput of each run is within 5 % of
// iperf3's received rate in its client.json (measured: 283.8 vs 283.8 and
// 290.3 vs 290.3 kbit/s), and the sender's progress 1 s after the bulk
// start is 37685 B without and 1689605 B with the PEP (44.8×, the study's
// 37×).
func TestComparePEPPairTestbed(t *testing.T) {
	dir := "../../testdata/sat-pair/"
	spec := func(label, pep string) string {
		d := dir + "pep-" + pep + "_window-20KB/"
		return label + "=" + d + "client.pcap.gz+" + d + "server.pcap.gz"
	}
	out, errOut, err := runCLI(t, "compare", spec("nopep", "off"), spec("pep", "on"))
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	row := func(metric string) []string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), metric+" ") {
				return strings.Fields(strings.TrimSpace(l)[len(metric):])
			}
		}
		t.Fatalf("no row %q in\n%s", metric, out)
		return nil
	}
	if r := row("sent after 1 s"); r[1] != "37685" || r[2] != "1689605" {
		t.Errorf("sent after 1 s = %v, want 37685 1689605", r)
	}
	e2e := row("goodput end to end")
	for i, pep := range []string{"off", "on"} {
		b, err := os.ReadFile(dir + "pep-" + pep + "_window-20KB/client.json")
		if err != nil {
			t.Fatal(err)
		}
		var sc struct {
			Recv float64 `json:"iperf_recv_bps"`
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		got, _ := strconv.ParseFloat(e2e[1+i], 64)
		if want := sc.Recv / 1000; math.Abs(got-want) > 0.05*want {
			t.Errorf("pep %s: end-to-end goodput %.1f kbit/s, iperf3 received %.1f", pep, got, want)
		}
	}
	if r := row("held in PEP max"); r[2] != "1682360" {
		t.Errorf("held in PEP max = %v", r)
	}
}
