package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoSeeds copies testdata/manet's aodv run to a temporary directory as
// seeds 1 and 2 (the same captures, as ns-3 gives one flow table per
// seed: here both seeds hold 10.1.0.2:49152 → 10.1.0.6:9000 and
// 10.1.0.3:49153 → 10.1.0.7:9001) and returns the captures and the
// directory.
func twoSeeds(t *testing.T) ([]string, string) {
	t.Helper()
	src, _ := filepath.Glob("../testdata/manet/tcp-aodv-r1-*.pcap.gz")
	if len(src) == 0 {
		t.Fatal("no testdata/manet captures")
	}
	dir := t.TempDir()
	var files []string
	for _, f := range src {
		for _, seed := range []string{"r1", "r2"} {
			dst := filepath.Join(dir, strings.Replace(filepath.Base(f), "r1", seed, 1))
			copyFile(t, f, dst)
			files = append(files, dst)
		}
	}
	return files, dir
}

// writeStarts writes a starts CSV to dir/name and returns its path.
func writeStarts(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStartsRunColumn: a starts file whose column run (ns-3's
// groundtruth-all.csv) is no label would declare seed 1's flows in seed 2
// and back (the outside tester: 24 flows "in no capture", aodv 137.4
// instead of 274.8 kbit/s): an *OptionError naming the column and
// StartsRename run=seed, before any capture is read. With the rename,
// every flow is matched in its own run and none is declared absent.
func TestStartsRunColumn(t *testing.T) {
	files, dir := twoSeeds(t)
	p, _ := ParsePattern(readmePattern)
	body := "run,protocol,transport,src_ip,src_port,dst_ip,dst_port,start_s,stop_s\n" +
		"1,aodv,tcp,10.1.0.2,49152,10.1.0.6,9000,8.53157778,30\n" +
		"1,aodv,tcp,10.1.0.3,49153,10.1.0.7,9001,8.23514145,30\n" +
		"2,aodv,tcp,10.1.0.2,49152,10.1.0.6,9000,8.53157778,30\n" +
		"2,aodv,tcp,10.1.0.3,49153,10.1.0.7,9001,8.23514145,30\n"
	gt := writeStarts(t, dir, "gt.csv", body)
	// The rows repeat each flow with only run to tell them apart: the
	// duplicate is named when the file is read.
	_, err := ReadStarts(gt, nil, p.Names())
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != OptStartsRename ||
		!strings.Contains(err.Error(), "line 4: a second start for flow protocol=aodv transport=tcp 10.1.0.2:49152>10.1.0.6:9000 (line 2), differing only in columns that are no label (run): a row must match one run; if run names the run, make it a label: StartsRename run=seed") {
		t.Errorf("ReadStarts: %v; want an OptionError naming line 4, line 2 and StartsRename run=seed", err)
	}
	// Each seed's own flows (other endpoints per seed, as in shared/ns3):
	// no duplicate, but column run still tells the runs apart.
	body = strings.Replace(strings.Replace(body, "2,aodv,tcp,10.1.0.2,49152", "2,aodv,tcp,10.1.0.4,49152", 1), "2,aodv,tcp,10.1.0.3,49153", "2,aodv,tcp,10.1.0.5,49153", 1)
	gt = writeStarts(t, dir, "gt2.csv", body)
	st, err := ReadStarts(gt, nil, p.Names())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Goodput(context.Background(), files, Options{Labels: p.Match, Starts: st})
	if !errors.As(err, &oe) || !errors.Is(err, ErrOptionsConflict) ||
		err.Error() != "Starts "+gt+": column run names runs (values 1, 2) but is no label, so rows are matched on protocol, transport and endpoints only and every run would be declared the flows of the runs it shares them with (rows of 0 bytes where it does not hold them); a row must match one run: StartsRename run=seed" {
		t.Errorf("Goodput: %v; want the OptionError naming column run and StartsRename run=seed", err)
	}
	st, err = ReadStarts(gt, map[string]string{"run": "seed"}, p.Names())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, Starts: st})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if r.Vantage == Nowhere && r.Labels["seed"] == "1" {
			t.Errorf("seed 1 declared %s:%d → %s:%d absent: seed 2's flow in seed 1", r.Src, r.SPort, r.Dst, r.DPort)
		}
	}
}

// TestStartsAmbiguousRow: a row whose labels match two runs differing in
// seed, in a file whose column (here "batch", a name that says nothing)
// holds the seeds, is an *OptionError naming the line, the runs and
// StartsRename batch=seed. A file with no such column (one schedule for
// every run) is accepted.
func TestStartsAmbiguousRow(t *testing.T) {
	files, dir := twoSeeds(t)
	p, _ := ParsePattern(readmePattern)
	gt := writeStarts(t, dir, "gt.csv", "batch,protocol,src_ip,src_port,dst_ip,dst_port,start_s,stop_s\n"+
		"1,aodv,10.1.0.2,49152,10.1.0.6,9000,8.53157778,30\n"+
		"2,aodv,10.1.0.9,49152,10.1.0.6,9000,8.53157778,30\n")
	st, err := ReadStarts(gt, nil, p.Names())
	if err != nil {
		t.Fatal(err)
	}
	_, err = Goodput(context.Background(), files, Options{Labels: p.Match, Starts: st})
	if !errors.Is(err, ErrOptionsConflict) || !strings.Contains(err.Error(), "line 2 (flow 10.1.0.2:49152 → 10.1.0.6:9000) matches 2 runs (tcp-aodv-r1, tcp-aodv-r2) that differ in seed") ||
		!strings.HasSuffix(err.Error(), "if column batch (values 1, 2) names the run, StartsRename batch=seed") {
		t.Errorf("Goodput: %v; want the OptionError naming line 2, both runs and StartsRename batch=seed", err)
	}
	gt = writeStarts(t, dir, "every.csv", "protocol,src_ip,src_port,dst_ip,dst_port,start_s,stop_s\naodv,10.1.0.2,49152,10.1.0.6,9000,8.53157778,30\n")
	st, err = ReadStarts(gt, nil, p.Names())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, Starts: st})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range res.Rows {
		if r.Src == "10.1.0.2" && r.Source == FromStarts && r.Vantage != Nowhere {
			n++
		}
	}
	if n != 2 {
		t.Errorf("one schedule for both seeds: %d rows of 10.1.0.2 from the starts, want 2", n)
	}
}

func TestRunColumn(t *testing.T) {
	for name, want := range map[string]bool{"run": true, "Run_ID": true, "seed": true, "RngRun": true, "rep": true, "seed-no": true,
		"replication": true, "trial": true, "flow_id": false, "src_node": false, "start_s": false, "id": false, "protocol": false, "running": false} {
		if got := RunColumn(name); got != want {
			t.Errorf("RunColumn(%q) = %v, want %v", name, got, want)
		}
	}
}
