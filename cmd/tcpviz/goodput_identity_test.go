package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// copyTree copies the regular files of src (not its subdirectories) into
// dst; with gunzip, .gz files are written decompressed (other bytes, the
// same capture).
func copyTree(t *testing.T, src, dst string, gunzip bool) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = in
		name := e.Name()
		if gunzip && strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(in)
			if err != nil {
				t.Fatal(err)
			}
			r, name = zr, strings.TrimSuffix(name, ".gz")
		}
		b, err := io.ReadAll(r)
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGoodputOneCapturePerFile is the outside tester's case on
// shared/ns3: the campaign given as ns3 and as its absolute path (144
// paths) is 72 captures in 6 runs, aodv n = 2 with the CI of the README
// ([85.7, 2112.6]; 4 runs and [952.6, 1245.7] before), and the paired
// table is filled (it was empty, with a note on a duplicate key).
func TestGoodputOneCapturePerFile(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	t.Chdir(filepath.Dir(ns3))
	out, errOut, err := runCLI(t, "goodput", "ns3", ns3, "--labels", manetLabels, "--group", "protocol", "--pair", "seed")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, want := range []string{"; 6 runs.", "| aodv | 2 | 1099.1 [85.7, 2112.6] |", "| aodv − dsdv | 2 | −227.3 [−515.0, +60.4] | 0.50 | 0/2 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"goodput: 72 captures, 72 used",
		"note: " + filepath.Join(ns3, "tcp-aodv-r1-1-0.pcap.gz") + " is the same file as ns3/tcp-aodv-r1-1-0.pcap.gz: one capture, analysed once",
		"note: 72 paths left out as captures already listed (72 the same file by another path"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("standard error lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out, "duplicate key") {
		t.Errorf("paired table left empty:\n%s", out)
	}
}

// TestGoodputCopiesAndSpellings runs testdata/manet's campaign given once,
// and given again by its absolute path, through a folder of symlinks and
// as a byte-identical copy: the tables are the same, with a note per
// spelling; copies labelled differently are an error naming both.
func TestGoodputCopiesAndSpellings(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../testdata/manet", filepath.Join(dir, "a"), false)
	copyTree(t, filepath.Join(dir, "a"), filepath.Join(dir, "copy"), false)
	os.MkdirAll(filepath.Join(dir, "links"), 0o755)
	caps, _ := filepath.Glob(filepath.Join(dir, "a", "*.pcap.gz"))
	for _, c := range caps {
		if err := os.Symlink(c, filepath.Join(dir, "links", filepath.Base(c))); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	t.Chdir(dir)
	tables := func(out string) string { return out[strings.Index(out, "\nGoodput per run"):] }
	base, errOut, err := runCLI(t, "goodput", "a", "--labels", manetLabels, "--group", "protocol")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(base, "| aodv | 1 | 1178.3 [n/a] |") {
		t.Fatalf("base tables:\n%s", base)
	}
	out, errOut, err := runCLI(t, "goodput", "a", filepath.Join(dir, "a"), "links", "copy", "--labels", manetLabels, "--group", "protocol")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if tables(out) != tables(base) {
		t.Errorf("tables differ:\n%s\nwant\n%s", tables(out), tables(base))
	}
	for _, want := range []string{"goodput: 8 captures", "note: 24 paths left out as captures already listed (16 the same file by another path",
		"; 8 byte-identical copies at another inode)", "note: " + filepath.Join(dir, "a", "tcp-aodv-r1-1-0.pcap.gz") + " is the same file as a/tcp-aodv-r1-1-0.pcap.gz"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("standard error lacks %q:\n%s", want, errOut)
		}
	}
	// The copy under another protocol's name: one capture, two labels.
	os.Rename(filepath.Join("copy", "tcp-aodv-r1-1-0.pcap.gz"), filepath.Join("copy", "tcp-dsdv-r1-1-0.pcap.gz"))
	_, errOut, err = runCLI(t, "goodput", "a", "copy", "--labels", manetLabels, "--group", "protocol")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "a/tcp-aodv-r1-1-0.pcap.gz and copy/tcp-dsdv-r1-1-0.pcap.gz are byte-identical copies, but their labels differ (protocol=aodv vs protocol=dsdv)") {
		t.Errorf("exit %d, %v; want 2 naming both files and the labels\n%s", exitCode(err), err, errOut)
	}
}

// TestGoodputRunsNoLabelTellsApart: the campaign and a decompressed copy
// of it (other bytes, the same labels) are two runs per protocol and seed:
// with --pair an error (exit 2) naming the group, the seed and the runs;
// without, the tables with a WARNING on standard error and under them.
func TestGoodputRunsNoLabelTellsApart(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../testdata/manet", filepath.Join(dir, "a"), false)
	copyTree(t, filepath.Join(dir, "a"), filepath.Join(dir, "raw"), true)
	t.Chdir(dir)
	_, errOut, err := runCLI(t, "goodput", "a", "raw", "--labels", manetLabels, "--group", "protocol", "--pair", "seed")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "protocol=aodv holds 2 runs with seed=1 (a/tcp-aodv-r1, raw/tcp-aodv-r1)") {
		t.Errorf("exit %d, %v; want 2 naming aodv, seed 1 and both runs\n%s", exitCode(err), err, errOut)
	}
	if !strings.Contains(errOut, "WARNING: 16 captures get the same labels as another capture, e.g. a/tcp-aodv-r1-1-0.pcap.gz and raw/tcp-aodv-r1-1-0.pcap (dev=0 node=1 protocol=aodv seed=1 transport=tcp)") {
		t.Errorf("standard error lacks the captures' warning:\n%s", errOut)
	}
	out, errOut, err := runCLI(t, "goodput", "a", "raw", "--labels", manetLabels, "--group", "protocol")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	want := "WARNING: a/tcp-aodv-r1, raw/tcp-aodv-r1 have the same labels (dev=0 protocol=aodv seed=1 transport=tcp)"
	if !strings.Contains(errOut, want) || !strings.Contains(out, want) || !strings.Contains(out, "| aodv | 2 |") {
		t.Errorf("want %q on standard error and under the tables (aodv n = 2):\n%s\n%s", want, out, errOut)
	}
}
