package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// writeCapture writes a small valid capture (one bulk transfer) to path:
// the same bytes at every path (writeCaptureSeed 1).
func writeCapture(t *testing.T, path string) { writeCaptureSeed(t, path, 1) }

// writeCaptureSeed writes a small valid capture (one bulk transfer,
// pcaptest.GenOptions.Seed seed) to path: other seeds, other bytes.
func writeCaptureSeed(t *testing.T, path string, seed int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pcaptest.WriteBulk(f, pcaptest.GenOptions{Packets: 200, Flows: 1, Seed: seed}); err != nil {
		t.Fatal(err)
	}
}

// copyFile copies src to dst (a new inode with the same bytes).
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// symlink makes link point to target, or skips t where links cannot be
// made.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlink: %v", err)
	}
}

// TestListOneCapturePerFile: a capture reached by a relative and an
// absolute path, through a symlinked directory, through a symlink to the
// file, by a path with "..", or as a byte-identical copy in another folder
// is listed once, as the first path found; the others are in Same with
// how they are the same. A file of the same size with other bytes is a
// capture of its own.
func TestListOneCapturePerFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("run", 0o755)
	os.MkdirAll("other", 0o755)
	writeCaptureSeed(t, "run/a.pcap", 1)
	writeCaptureSeed(t, "run/b.pcap", 2)
	symlink(t, "run", "links")
	symlink(t, "a.pcap", "run/c.pcap") // a second name of a.pcap
	copyFile(t, "run/a.pcap", "copy/a.pcap")
	writeCaptureSeed(t, "other/a.pcap", 3) // same size, other bytes
	if a, o := fileSize(t, "run/a.pcap"), fileSize(t, "other/a.pcap"); a != o {
		t.Fatalf("sizes %d and %d: the test needs equal sizes", a, o)
	}
	abs := filepath.Join(dir, "run")
	l, err := List([]string{"run", abs, "links", "copy", "run/../run/a.pcap", "other"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"other/a.pcap", "run/a.pcap", "run/b.pcap"}; !slices.Equal(l.Files, want) {
		t.Errorf("Files = %q, want %q", l.Files, want)
	}
	got := map[string]string{}
	for _, s := range l.Same {
		got[s.Path] = s.Kept + " " + s.How.String()
	}
	want := map[string]string{
		"run/c.pcap":                 "run/a.pcap the same file",
		filepath.Join(abs, "a.pcap"): "run/a.pcap the same file",
		filepath.Join(abs, "b.pcap"): "run/b.pcap the same file",
		filepath.Join(abs, "c.pcap"): "run/a.pcap the same file",
		"links/a.pcap":               "run/a.pcap the same file",
		"links/b.pcap":               "run/b.pcap the same file",
		"links/c.pcap":               "run/a.pcap the same file",
		"copy/a.pcap":                "run/a.pcap a byte-identical copy",
	}
	if len(got) != len(want) || len(l.Same) != len(want) {
		t.Errorf("Same = %v, want %d paths: %v", l.Same, len(want), want)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("Same[%s] = %q, want %q", p, got[p], w)
		}
	}
	if s := (SamePath{Kept: "a", Path: "b", How: SameBytes}).String(); s != "b is a byte-identical copy of a" {
		t.Errorf("String = %q", s)
	}
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestListSameCaptureLabels: two paths of one capture whose labels differ
// are an error naming both and the labels; a path the labels reject yields
// to one they accept, even when found first.
func TestListSameCaptureLabels(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("1", 0o755)
	writeCaptureSeed(t, "1/x-3.pcap", 1)
	copyFile(t, "1/x-3.pcap", "2/x-3.pcap")
	p, err := ParsePattern("{seed}/x-{node}.pcap")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ListWith([]string{"1", "2"}, ListOptions{Labels: p.Match})
	if !errors.Is(err, ErrSameCapture) || !strings.Contains(err.Error(), "1/x-3.pcap and 2/x-3.pcap are byte-identical copies") ||
		!strings.Contains(err.Error(), "seed=1 vs seed=2") {
		t.Errorf("err = %v, want ErrSameCapture naming 1/x-3.pcap, 2/x-3.pcap and seed=1 vs seed=2", err)
	}
	os.MkdirAll("data", 0o755)
	writeCaptureSeed(t, "data/h.pcap", 2)
	os.MkdirAll("3", 0o755)
	symlink(t, "../data/h.pcap", "3/x-4.pcap")
	l, err := ListWith([]string{"data", "3"}, ListOptions{Labels: p.Match})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Files, []string{"3/x-4.pcap"}) || len(l.Same) != 1 || l.Same[0].Path != "data/h.pcap" || l.Same[0].How != SameFile {
		t.Errorf("Files %q, Same %v: want 3/x-4.pcap kept (the labelled name), data/h.pcap the same file", l.Files, l.Same)
	}
}

// TestRunKeysSpelling: the captures of one run given by relative and
// absolute paths, and through a symlinked directory, are one run named by
// the first path in sorted order, and one shard whatever the spelling.
func TestRunKeysSpelling(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("ns/x", 0o755)
	for _, n := range []string{"tcp-aodv-r1-1-0.pcap", "tcp-aodv-r1-2-0.pcap", "tcp-aodv-r2-1-0.pcap"} {
		writeCaptureSeed(t, filepath.Join("ns", n), 1)
	}
	writeCaptureSeed(t, "ns/x/client.pcap", 1)
	symlink(t, "ns", "link")
	files := []string{"ns/tcp-aodv-r1-1-0.pcap", filepath.Join(dir, "ns", "tcp-aodv-r1-2-0.pcap"), "link/tcp-aodv-r2-1-0.pcap",
		"ns/tcp-aodv-r2-1-0.pcap", "ns/x/client.pcap", filepath.Join(dir, "link", "x", "client.pcap")}
	keys := RunKeys(files)
	want := map[string]string{
		files[0]: filepath.Join(dir, "ns", "tcp-aodv-r1"), files[1]: filepath.Join(dir, "ns", "tcp-aodv-r1"),
		files[2]: "link/tcp-aodv-r2", files[3]: "link/tcp-aodv-r2",
		files[4]: filepath.Join(dir, "link", "x"), files[5]: filepath.Join(dir, "link", "x"),
	}
	for f, w := range want {
		if keys[f] != w {
			t.Errorf("RunKeys[%s] = %q, want %q", f, keys[f], w)
		}
	}
	for n := 2; n <= 7; n++ {
		for _, pair := range [][2]string{{files[0], files[1]}, {files[2], files[3]}, {files[4], files[5]}} {
			for i := 0; i < n; i++ {
				if InShard(pair[0], i, n) != InShard(pair[1], i, n) {
					t.Errorf("InShard(%s) and InShard(%s) differ for shard %d/%d", pair[0], pair[1], i+1, n)
				}
			}
		}
	}
	if got := shardName(files[2]); got != "ns/tcp-aodv-r2" {
		t.Errorf("shardName(%s) = %q, want ns/tcp-aodv-r2", files[2], got)
	}
}

// TestGoodputSpelling: the per-node captures of one run given half by
// relative and half by absolute paths are deduplicated as one run (each
// flow once, from its receiver's capture), as with one spelling:
// testdata/manet's aodv run, 2 flows, PacketSink 2 612 192 and 557 480 B.
func TestGoodputSpelling(t *testing.T) {
	src, _ := filepath.Glob("../testdata/manet/tcp-aodv-r1-*")
	if len(src) == 0 {
		t.Fatal("no testdata/manet captures")
	}
	dir := t.TempDir()
	for _, f := range src {
		copyFile(t, f, filepath.Join(dir, "m", filepath.Base(f)))
	}
	t.Chdir(dir)
	one, err := Discover([]string{"m"})
	if err != nil || len(one) != 4 {
		t.Fatalf("Discover = %v, %v: want 4 captures", one, err)
	}
	mixed := []string{one[0], filepath.Join(dir, one[1]), one[2], filepath.Join(dir, one[3])}
	for _, files := range [][]string{one, mixed} {
		res, err := Goodput(context.Background(), files, Options{Sidecars: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res.Rows {
			got = append(got, fmt.Sprintf("%s %s:%d %d %s", filepath.Base(r.RunKey), r.Src, r.SPort, r.Bytes, r.Vantage))
		}
		want := []string{"tcp-aodv-r1 10.1.0.3:49153 557480 receiver", "tcp-aodv-r1 10.1.0.2:49152 2612192 receiver"}
		if !slices.Equal(got, want) {
			t.Errorf("%v: rows %q, want %q", files, got, want)
		}
		if len(res.RunEnd) != 1 {
			t.Errorf("%v: %d runs, want 1", files, len(res.RunEnd))
		}
	}
}

// TestManifestSpelling: a manifest's capture is found by its file when
// the path is spelled otherwise; one file listed twice with other labels
// is an error naming the lines.
func TestManifestSpelling(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll("d", 0o755)
	writeCaptureSeed(t, "d/a.pcap", 1)
	symlink(t, "a.pcap", "d/alias.pcap")
	os.WriteFile("m.csv", []byte("file,seed\nd/a.pcap,1\nd/a.pcap,1\n"), 0o644)
	m, err := ReadManifest("m.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"d/a.pcap", filepath.Join(dir, "d", "a.pcap"), "d/alias.pcap", "d/../d/a.pcap"} {
		if l, ok := m.Labels(p); !ok || l["seed"] != "1" {
			t.Errorf("Labels(%s) = %v, %v; want seed 1", p, l, ok)
		}
	}
	os.WriteFile("m2.csv", []byte("file,seed\nd/a.pcap,1\nd/alias.pcap,2\n"), 0o644)
	if _, err := ReadManifest("m2.csv"); err == nil || !strings.Contains(err.Error(), "line 3: d/alias.pcap is the file of line 2") ||
		!strings.Contains(err.Error(), "seed=1 vs seed=2") {
		t.Errorf("err = %v, want line 3 named as line 2's file with seed=1 vs seed=2", err)
	}
	os.WriteFile("m3.csv", []byte("file,seed\nd/a.pcap,1\nd/a.pcap,2\n"), 0o644)
	if _, err := ReadManifest("m3.csv"); err == nil || !strings.Contains(err.Error(), "line 3: d/a.pcap again") {
		t.Errorf("err = %v, want line 3 named", err)
	}
}

// TestDuplicatePairKeys: a group holding two runs with one pairing key is
// an error naming the group, the key and the runs (ErrDuplicateRuns);
// without a pairing label the tables are made, and SameLabelRuns names the
// runs no label tells apart (node and dev, which differ within a run, left
// out).
func TestDuplicatePairKeys(t *testing.T) {
	var rows []FlowRow
	add := func(run, proto, seed, node string, kbps float64) {
		rows = append(rows, FlowRow{File: run + "-" + node + ".pcap", RunKey: run, Kbps: kbps,
			Labels: map[string]string{"protocol": proto, "seed": seed, "node": node, "dev": "0"}})
	}
	add("a/aodv-r1", "aodv", "1", "1", 10)
	add("a/aodv-r1", "aodv", "1", "2", 20)
	add("b/aodv-r1", "aodv", "1", "1", 10) // the same run again, elsewhere
	add("a/aodv-r2", "aodv", "2", "1", 40)
	add("a/olsr-r1", "olsr", "1", "1", 50)
	add("a/olsr-r2", "olsr", "2", "1", 60)
	runs, err := PerRun(rows, "sum")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Aggregate(runs, "protocol", "seed", 0.95)
	if !errors.Is(err, ErrDuplicateRuns) || !strings.Contains(err.Error(), "protocol=aodv holds 2 runs with seed=1 (a/aodv-r1, b/aodv-r1); 2 runs in all") {
		t.Errorf("err = %v, want ErrDuplicateRuns naming aodv, seed 1 and both runs", err)
	}
	tb, err := Aggregate(runs, "protocol", "", 0.95)
	if err != nil || tb.Groups[0].N != 3 {
		t.Errorf("without a pairing label: %v, %+v; want aodv n = 3", err, tb)
	}
	same := SameLabelRuns(rows)
	if len(same) != 1 || !slices.Equal(same[0].Runs, []string{"a/aodv-r1", "b/aodv-r1"}) || same[0].Labels != "dev=0 protocol=aodv seed=1" {
		t.Errorf("SameLabelRuns = %+v, want a/aodv-r1 and b/aodv-r1 with dev=0 protocol=aodv seed=1", same)
	}
}
