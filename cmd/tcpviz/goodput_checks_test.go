package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestGoodputReportsCutCapture: a capture cut mid-record is analysed up to
// the cut, and the batch says so on standard error and marks its rows
// (capture_warnings 1), as flows does.
func TestGoodputReportsCutCapture(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := pcaptest.WriteBulk(&b, pcaptest.GenOptions{Packets: 400, Flows: 2, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "run1", "cut.pcap")
	os.MkdirAll(filepath.Dir(cut), 0o755)
	os.WriteFile(cut, b.Bytes()[:b.Len()-20], 0o644)
	csvPath := filepath.Join(dir, "g.csv")
	_, errOut, err := runCLI(t, "goodput", cut, "--csv", "-o", csvPath)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(errOut, "warning: "+cut) || !strings.Contains(errOut, "cut mid-record") {
		t.Errorf("stderr does not report the cut capture:\n%s", errOut)
	}
	out, _ := os.ReadFile(csvPath)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 {
		t.Fatalf("CSV:\n%s", out)
	}
	for _, l := range lines[1:] {
		if !strings.HasSuffix(l, ",1,1/1") { // capture_warnings, shard
			t.Errorf("row %q: capture_warnings is not 1", l)
		}
	}
	js, _, _ := runCLI(t, "goodput", cut, "--json")
	if !strings.Contains(js, `"capture_warnings": {`) || !strings.Contains(js, "cut mid-record") {
		t.Errorf("JSON lacks the capture's warnings:\n%s", js)
	}
}

// TestGoodputLabelMisfit: a pattern without labels is a usage error; a
// pattern whose placeholders swallow separators is warned about, and with
// --group it is refused since one run's captures get different groups;
// captures the pattern rejects are called rejected, and the ground truth
// of their runs does not become rows of flows "in no capture".
func TestGoodputLabelMisfit(t *testing.T) {
	if _, _, err := runCLI(t, "goodput", "../../testdata/manet", "--labels", "garbage"); exitCode(err) != 1 {
		t.Errorf("--labels garbage: exit %d, want 1", exitCode(err))
	}
	_, errOut, err := runCLI(t, "goodput", "../../testdata/manet", "--labels", "{protocol}-{seed}.pcap")
	if err != nil || !strings.Contains(errOut, "probably does not fit the file names") {
		t.Errorf("err %v, stderr:\n%s", err, errOut)
	}
	_, errOut, err = runCLI(t, "goodput", "../../testdata/manet", "--labels", "{protocol}-{seed}.pcap", "--group", "protocol")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "different --group/--pair labels") {
		t.Errorf("--group on a misfit pattern: exit %d, %v", exitCode(err), err)
	}
	out, errOut, err := runCLI(t, "goodput", "../../testdata/manet", "--labels", "{x}/nothing-{y}.pcap")
	if exitCode(err) != 2 || !strings.Contains(errOut, "8 of 8 captures rejected") || strings.Contains(errOut, "declared flows") || strings.Contains(out, "none") {
		t.Errorf("all rejected: exit %d, stdout:\n%s\nstderr:\n%s", exitCode(err), out, errOut)
	}
}

// TestGoodputIntervalChecks: a negative --interval or --end is a usage
// error; an interval after every capture, or an --end before every flow's
// start, is refused.
func TestGoodputIntervalChecks(t *testing.T) {
	for _, args := range [][]string{{"--interval", "-5:10"}, {"--end", "-1"}, {"--interval", "500:600"}, {"--end", "1"}} {
		_, _, err := runCLI(t, append([]string{"goodput", "../../testdata/manet"}, args...)...)
		if exitCode(err) != 1 {
			t.Errorf("%v: exit %d (%v), want 1", args, exitCode(err), err)
		}
	}
}

// TestGoodputSatelliteTables: on testdata/sat the PEP-off rows are
// end-to-end goodput over the receiving application's interval (compare's
// 260.0 and 3711.5 kbit/s), iperf3's control connections are dropped by
// the default --min-bytes with a note, and the PEP rows are left out of
// the Goodput table with a warning.
func TestGoodputSatelliteTables(t *testing.T) {
	out, errOut, err := runCLI(t, "goodput", "../../testdata/sat", "--labels", "{pep}_window-{window}/client.pcap", "--group", "pep")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, want := range []string{"259.994", "3711.501", "| pep-off | 2 | 1985.7", "LEFT OUT of the Goodput tables"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| pep-on |") {
		t.Errorf("PEP rows in the Goodput table:\n%s", out)
	}
	if !strings.Contains(errOut, "note: 4 flows delivered fewer than 1024 bytes in all in a connection that was closed (--min-bytes auto)") {
		t.Errorf("stderr lacks the --min-bytes note:\n%s", errOut)
	}
}
