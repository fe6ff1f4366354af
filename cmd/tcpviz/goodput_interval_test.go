package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// TestGoodputLateWarning: without ground truth the README's MANET command
// names the late flows per run and, after the tables, how to fix it. Rates
// then start at the receiving application's first data (as compare's
// end-to-end goodput), so flows whose first data waited for a route are
// late: six, and the dsdv mean is 1816.3 instead of ns-3's 1326.4.
func TestGoodputLateWarning(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	out, errOut, err := runCLI(t, "goodput", filepath.Join(ns3, "tcp-*.pcap.gz"), "--labels", "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap",
		"--group", "protocol", "--pair", "seed", "--end", "100", "--no-groundtruth")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"warning: run tcp-dsdv-r2: flow 10.1.0.8:49152 → 10.1.0.19:9000 started late: first data at 57.902 s",
		"warning: run tcp-olsr-r2: flow 10.1.0.8:49152 → 10.1.0.19:9000 started late",
		"warning: 6 flows in 5 runs started late",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "Fix: give the start times with --starts FILE") || !strings.Contains(out, "| dsdv | 2 | 1816.3") {
		t.Errorf("tables lack the fix or the uncorrected dsdv mean:\n%s", out)
	}
	if c := strings.Count(errOut, "started late:"); c != 6 {
		t.Errorf("%d per-run warnings, want 6", c)
	}
}

// TestGoodputIntervalFlagAndOldCSV: --interval sets one window for every
// flow (interval_from "interval"); --interval with --end is a usage error;
// 'goodput stats' reads a tcpviz.goodput/1 CSV without interval_from.
func TestGoodputIntervalFlagAndOldCSV(t *testing.T) {
	csvPath := filepath.Join(t.TempDir(), "g.csv")
	_, errOut, err := runCLI(t, "goodput", "../../testdata/manet", "--labels", "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap",
		"--interval", "10:30", "--csv", "-o", csvPath)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	b, _ := os.ReadFile(csvPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 5 || !strings.HasSuffix(lines[0], ",interval_from,capture_warnings,shard") {
		t.Fatalf("CSV:\n%s", b)
	}
	for _, l := range lines[1:] {
		if !strings.HasSuffix(l, ",interval,0,1/1") || !strings.Contains(l, ",10.000000,") && !strings.Contains(l, ",20.000000,") {
			t.Errorf("row %q: want interval [10, 30]", l)
		}
	}
	if _, _, err := runCLI(t, "goodput", "../../testdata/manet", "--interval", "10:30", "--end", "30"); exitCode(err) != 1 {
		t.Errorf("--interval with --end: exit %d, want 1", exitCode(err))
	}
	// A /1 file: the same CSV without the last three columns.
	var old []string
	for _, l := range lines {
		for range 2 {
			l = l[:strings.LastIndexByte(l, ',')]
		}
		old = append(old, l[:strings.LastIndexByte(l, ',')])
	}
	oldPath := filepath.Join(t.TempDir(), "old.csv")
	os.WriteFile(oldPath, []byte(strings.Join(old, "\n")+"\n"), 0o644)
	out, errOut, err := runCLI(t, "goodput", "stats", oldPath, "--group", "protocol")
	if err != nil || !strings.Contains(out, "| aodv | 1 |") {
		t.Errorf("stats on a /1 CSV: %v\n%s%s", err, out, errOut)
	}
}
