package tcpviz

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDemoFiles: the embedded captures are listed sorted; the MANET
// campaign writes its 8 pcaps and joins the ground truth of its 2 runs
// under one header (2 flows each).
func TestDemoFiles(t *testing.T) {
	names, err := DemoCaptures()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(names) || !slices.Contains(names, "testdata/sat/pep-on_window-20KB/client.pcap") || !slices.Contains(names, "testdata/manet/tcp-olsr-r1-6-0.pcap.gz") {
		t.Errorf("DemoCaptures = %v", names)
	}
	dir := t.TempDir()
	gt, err := WriteDemoManet(dir)
	if err != nil {
		t.Fatal(err)
	}
	pcaps, _ := filepath.Glob(filepath.Join(dir, "*.pcap.gz"))
	lines := strings.Split(strings.TrimSpace(string(gt)), "\n")
	if len(pcaps) != 8 || len(lines) != 5 || !strings.HasPrefix(lines[0], "run,protocol,") || strings.HasPrefix(lines[3], "run,") {
		t.Errorf("%d pcaps, ground truth %d lines:\n%s", len(pcaps), len(lines), gt)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "tcp-aodv-r1-1-0.pcap.gz"))
	want, _ := os.ReadFile("testdata/manet/tcp-aodv-r1-1-0.pcap.gz")
	if len(b) == 0 || string(b) != string(want) {
		t.Errorf("tcp-aodv-r1-1-0.pcap.gz: %d bytes written, want the %d shipped", len(b), len(want))
	}
}

// TestDemoVerbs: the verbs read copies in a temporary directory whose
// rows name the shipped captures; Close removes the copies.
func TestDemoVerbs(t *testing.T) {
	out := filepath.Join("out", "demo")
	d, err := NewDemoVerbs(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Args) != 5 || d.Args[0][0] != "rtt" || d.Args[0][3] != filepath.Join(out, "sat_pep-on_window-20KB.rtt.png") {
		t.Errorf("args %q", d.Args)
	}
	pep := d.Args[0][1]
	if _, err := os.Stat(pep); err != nil {
		t.Fatal(err)
	}
	if got := d.Shown(pep); got != "testdata/sat/pep-on_window-20KB/client.pcap" {
		t.Errorf("Shown(%s) = %q", pep, got)
	}
	manet := d.Args[4][1]
	if got := d.Shown(filepath.Join(manet, "tcp-aodv-r1-1-0.pcap.gz")); got != "testdata/manet/tcp-aodv-r1-1-0.pcap.gz" {
		t.Errorf("Shown(manet) = %q", got)
	}
	if got := d.Shown("/elsewhere/x.pcap"); got != "/elsewhere/x.pcap" {
		t.Errorf("Shown(elsewhere) = %q", got)
	}
	if want := filepath.Join(out, "manet.pairs.csv"); len(d.Also) != 4 || d.Also[3] != want {
		t.Errorf("Also %q", d.Also)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pep); !os.IsNotExist(err) {
		t.Errorf("%s left behind: %v", pep, err)
	}
}
