package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// TestGoodputStartsRunColumn is the outside tester's second case:
// ns-3's groundtruth-all.csv as --starts without --starts-rename run=seed
// declared each seed's flows in the other seed (24 flows "in no capture",
// aodv 137.4 [10.7, 264.1] kbit/s per flow, exit 0). It is now a usage
// error naming the column and the rename; with the rename aodv is 274.8
// [21.4, 528.1] and no flow is declared absent.
func TestGoodputStartsRunColumn(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	gt := filepath.Join(ns3, "groundtruth-all.csv")
	args := []string{"goodput", ns3, "--labels", manetLabels, "--group", "protocol", "--pair", "seed", "--per-run", "mean", "--no-groundtruth", "--starts", gt}
	_, errOut, err := runCLI(t, args...)
	if exitCode(err) != 1 || err.Error() != "--starts "+gt+": column run names runs (values 1, 2) but is no label, so rows are matched on protocol, transport and endpoints only and every run would be declared the flows of the runs it shares them with (rows of 0 bytes where it does not hold them); a row must match one run: --starts-rename run=seed" {
		t.Errorf("exit %d, %v; want 1 naming column run and --starts-rename run=seed\n%s", exitCode(err), err, errOut)
	}
	out, errOut, err := runCLI(t, append(args, "--starts-rename", "run=seed")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out, "| aodv | 2 | 274.8 [21.4, 528.1] |") || strings.Contains(errOut, "declared") {
		t.Errorf("with --starts-rename run=seed: want aodv 274.8 [21.4, 528.1] and no flow declared absent:\n%s\n%s", out, errOut)
	}
}

// TestGoodputDeclaredAbsentWarning: declared flows no capture holds are
// a warning (not a note) saying how many per run and that they lower the
// run's mean per flow, on standard error and under the tables.
func TestGoodputDeclaredAbsentWarning(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts.csv")
	os.WriteFile(starts, []byte("seed,protocol,src_ip,src_port,dst_ip,dst_port,start_s,stop_s\n"+
		"1,aodv,10.1.0.2,49152,10.1.0.6,9000,8.53157778,30\n1,aodv,10.1.0.9,49160,10.1.0.10,9009,12,30\n"+
		"1,aodv,10.1.0.9,49161,10.1.0.10,9010,12,30\n1,olsr,10.1.0.9,49160,10.1.0.10,9009,12,30\n"), 0o644)
	out, errOut, err := runCLI(t, "goodput", "../../testdata/manet", "--labels", manetLabels, "--group", "protocol", "--per-run", "mean", "--starts", starts)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	want := "warning: 3 flows declared by --starts " + starts + " but found in no capture of their run (2 runs: tcp-aodv-r1 2, tcp-olsr-r1 1): rows with 0 bytes and vantage none, counted in the tables at 0 kbit/s, so each lowers its run's mean per flow (and adds nothing to a sum)"
	if !strings.Contains(errOut, want) || !strings.Contains(out, want) {
		t.Errorf("want %q on standard error and under the tables:\n%s\n%s", want, errOut, out)
	}
}
