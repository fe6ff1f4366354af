package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// writeUDPCapture writes an Ethernet capture of udp UDP datagrams and one
// ARP frame, no TCP, to path.
func writeUDPCapture(t *testing.T, path string, udp int) {
	t.Helper()
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkEthernet})
	t0 := time.Unix(1700000000, 0)
	for i := 0; i < udp; i++ {
		ip := []byte{0x45, 0, 0, 36, 0, byte(i), 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, // IPv4, UDP
			0x13, 0x88, 0x13, 0x89, 0, 16, 0, 0, 'c', 'b', 'r', '!', 'c', 'b', 'r', '!'} // 5000 → 5001, 8 bytes
		f.Add(t0.Add(time.Duration(i)*time.Millisecond), 0, pcaptest.Ethernet(ip))
	}
	arp := append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06}, make([]byte, 28)...)
	f.Add(t0.Add(time.Second), 0, arp)
	if err := f.WriteFile(path); err != nil {
		t.Fatal(err)
	}
}

// TestGoodputNoTCPWarning: captures without TCP gave "0 flows", exit 0,
// without a word (the outside tester on shared/ns3/udp); now a warning
// says none holds a TCP connection, with the counts of what they hold. A
// --port no connection has says so too.
func TestGoodputNoTCPWarning(t *testing.T) {
	dir := t.TempDir()
	writeUDPCapture(t, filepath.Join(dir, "a.pcap"), 5)
	writeUDPCapture(t, filepath.Join(dir, "b.pcap"), 3)
	_, errOut, err := runCLI(t, "goodput", dir)
	want := "warning: none of the 2 captures holds a TCP connection (10 frames read: 8 IP packets that are not TCP, such as UDP or ICMP, 2 frames without IP): goodput measures TCP flows only, so there is no flow"
	if err != nil || !strings.Contains(errOut, want) {
		t.Errorf("%v; standard error lacks %q:\n%s", err, want, errOut)
	}
	_, errOut, _ = runCLI(t, "goodput", filepath.Join(dir, "a.pcap"))
	if want := "warning: the capture holds no TCP connection (6 frames read: 5 IP packets"; !strings.Contains(errOut, want) {
		t.Errorf("standard error lacks %q:\n%s", want, errOut)
	}
	_, errOut, _ = runCLI(t, "goodput", "../../testdata/manet", "--port", "80")
	if want := "warning: no flow: the 8 captures hold 16 TCP connections (counted per capture), none with port 80 (--port)"; !strings.Contains(errOut, want) || strings.Contains(errOut, "declared") {
		t.Errorf("standard error lacks %q (and must declare no flow of another port absent):\n%s", want, errOut)
	}
}

// TestGoodputNoTCPShared is the outside tester's shared/ns3/udp: 24
// captures of UDP control runs, "0 flows" without a word before.
func TestGoodputNoTCPShared(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	_, errOut, err := runCLI(t, "goodput", filepath.Join(ns3, "udp"))
	if want := "warning: none of the 24 captures holds a TCP connection (287270 frames read: 171291 IP packets that are not TCP, such as UDP or ICMP, 3297 frames without IP)"; err != nil || !strings.Contains(errOut, want) {
		t.Errorf("%v; standard error lacks %q:\n%s", err, want, errOut)
	}
}

// TestOutputIsInput: an output that is a file the run reads — the ground
// truth next to the captures (the outside tester's 'goodput copyA --csv
// -o copyA/groundtruth-all.csv' overwrote it), a capture, a --starts file,
// a symlink to one of them, another verb's input — is refused before
// anything is written, and so are two outputs naming one file.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../testdata/manet", filepath.Join(dir, "a"), false)
	t.Chdir(dir)
	gt, _ := os.ReadFile("a/groundtruth-all.csv")
	if err := os.Symlink("a/groundtruth-all.csv", "link.csv"); err != nil {
		t.Skipf("symlink: %v", err)
	}
	os.WriteFile("starts.csv", []byte("seed,protocol,src_ip,src_port,dst_ip,dst_port,start_s\n1,aodv,10.1.0.2,49152,10.1.0.6,9000,8.5\n"), 0o644)
	if err := os.Link("a/tcp-aodv-r1-1-0.pcap.gz", "capture.csv"); err != nil { // a hard link to a capture, named .csv
		t.Skipf("link: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"goodput", "a", "--csv", "-o", "a/groundtruth-all.csv"}, "--output a/groundtruth-all.csv is the ground truth this run reads: writing it would replace it; write elsewhere"},
		{[]string{"goodput", "a", "--csv", "-o", "link.csv"}, "--output link.csv is the ground truth this run reads (a/groundtruth-all.csv)"},
		{[]string{"goodput", "a", "--csv", "-o", "a/tcp-aodv-r1-config.txt.csv", "--tables", "a/tcp-aodv-r1-config.txt.csv"}, "--output a/tcp-aodv-r1-config.txt.csv and --tables a/tcp-aodv-r1-config.txt.csv are one file"},
		{[]string{"goodput", "a", "--labels", manetLabels, "--starts", "starts.csv", "-o", "starts.csv"}, "--output starts.csv is the --starts file this run reads"},
		{[]string{"goodput", "a", "capture.csv", "-o", "capture.csv"}, "--output capture.csv is the input this run reads"},
		{[]string{"goodput", "a", "--labels", manetLabels, "--group", "protocol", "--tables-csv", "a/groundtruth-all.csv", "--tables", "a/groundtruth-all.csv.groups.csv"}, "--tables a/groundtruth-all.csv.groups.csv and --tables-csv a/groundtruth-all.csv.groups.csv are one file"},
		{[]string{"flows", "capture.csv", "-o", "capture.csv"}, "--output capture.csv is the input this run reads"},
	} {
		_, errOut, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v; want %q\n%s", c.args, err, c.want, errOut)
		}
	}
	if b, _ := os.ReadFile("a/groundtruth-all.csv"); string(b) != string(gt) {
		t.Error("a/groundtruth-all.csv was changed")
	}
	if _, err := os.Stat("a/groundtruth-all.csv.groups.csv"); err == nil {
		t.Error("a table was written")
	}
}

// TestStatsShards: the per-flow CSV records each row's shard (column
// shard, I/N; 1/1 without --shard), and stats warns when a shard of the
// campaign is missing — it reported n = 1 without a word — or comes from
// two inputs. testdata/manet's two runs fall in shards 1/2 and 2/2; both
// merged give goodput's tables.
func TestStatsShards(t *testing.T) {
	dir := t.TempDir()
	csv := func(name string) string { return filepath.Join(dir, name) }
	base := []string{"goodput", "../../testdata/manet", "--labels", manetLabels}
	whole, _, err := runCLI(t, append(base, "--group", "protocol")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range []string{"1/2", "2/2"} {
		out := csv("s" + sh[:1] + ".csv")
		if _, errOut, err := runCLI(t, append(base, "--shard", sh, "--csv", "-o", out)...); err != nil {
			t.Fatalf("%v\n%s", err, errOut)
		}
		b, _ := os.ReadFile(out)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if !strings.HasSuffix(lines[0], ",capture_warnings,shard") || len(lines) != 3 || !strings.HasSuffix(lines[1], ","+sh) {
			t.Errorf("shard %s: %q; want the header ending in shard and 2 rows of shard %s", sh, lines, sh)
		}
	}
	got, errOut, err := runCLI(t, "stats", csv("s1.csv"), csv("s2.csv"), "--group", "protocol")
	if err != nil || strings.Contains(errOut, "shard") || got != whole[strings.Index(whole, "\nGoodput per run"):] {
		t.Errorf("both shards: %v\n%s\n%s\nwant goodput's tables\n%s", err, got, errOut, whole)
	}
	_, errOut, _ = runCLI(t, "stats", csv("s1.csv"), "--group", "protocol")
	if want := "WARNING: shard 2/2 of 2 missing: the tables hold the runs of 1 of the campaign's 2 shards at most; merge every shard's CSV"; !strings.Contains(errOut, want) {
		t.Errorf("one shard: standard error lacks %q:\n%s", want, errOut)
	}
	b, _ := os.ReadFile(csv("s1.csv"))
	os.WriteFile(csv("copy.csv"), b, 0o644)
	_, errOut, _ = runCLI(t, "stats", csv("s1.csv"), csv("copy.csv"), csv("s2.csv"), "--group", "protocol")
	if want := "WARNING: shard 1/2 comes from " + csv("s1.csv") + " and from " + csv("copy.csv") + ": one part of the campaign given twice"; !strings.Contains(errOut, want) {
		t.Errorf("a shard twice: standard error lacks %q:\n%s", want, errOut)
	}
	header := strings.SplitN(string(b), "\n", 2)[0] + "\n"
	os.WriteFile(csv("empty.csv"), []byte(header), 0o644)
	_, errOut, _ = runCLI(t, "stats", csv("s1.csv"), csv("empty.csv"), "--group", "protocol")
	if want := "warning: shard 2/2 of 2 in no row: the input without rows (" + csv("empty.csv") + ") is probably it, if the shard's runs hold no flow"; !strings.Contains(errOut, want) {
		t.Errorf("an empty shard: standard error lacks %q:\n%s", want, errOut)
	}
}
