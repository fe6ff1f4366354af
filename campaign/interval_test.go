package campaign

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmePattern is the label pattern of the README's MANET command.
const readmePattern = "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap"

// groundTruthMeans are the per-protocol means over runs 1 and 2 of the
// per-run sums of ns-3's goodput_kbps (shared/ns3/README.md's table:
// aodv (1019.4+1178.9)/2, dsdv (1224.0+1428.8)/2, olsr (1107.5+1467.5)/2).
var groundTruthMeans = map[string]float64{"aodv": 1099.1, "dsdv": 1326.4, "olsr": 1287.5}

func means(t *testing.T, rows []FlowRow) map[string]float64 {
	t.Helper()
	runs, err := PerRun(rows, "sum")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Aggregate(runs, "protocol", "seed", 0.95)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, g := range tb.Groups {
		out[g.Label] = g.Mean
	}
	return out
}

// TestNS3ReadmeCommandUsesGroundTruth runs the README's MANET command
// (Sidecars on, as the command line does, --end 100) over shared/ns3: the
// intervals come from the PREFIX-groundtruth.csv files next to the
// captures, and the per-protocol means are within 1 % of the simulator's.
func TestNS3ReadmeCommandUsesGroundTruth(t *testing.T) {
	dir := sharedNS3(t)
	p, _ := ParsePattern(readmePattern)
	files, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, End: 100, Sidecars: true})
	if err != nil || len(res.Failed) > 0 {
		t.Fatalf("err %v, failed %v", err, res.Failed)
	}
	if len(res.Sidecars) != 6 || len(res.SidecarErrors) > 0 {
		t.Errorf("sidecars %v, errors %v; want the 6 TCP runs' ground truth", res.Sidecars, res.SidecarErrors)
	}
	tcp := res.Rows[:0:0]
	for _, r := range res.Rows {
		if r.Labels["transport"] == "tcp" {
			tcp = append(tcp, r)
		}
	}
	for _, r := range tcp {
		if r.Source != FromSidecar {
			t.Errorf("%s %s:%d: interval from %s, want %s", r.RunKey, r.Src, r.SPort, r.Source, FromSidecar)
		}
	}
	if len(tcp) != 24 {
		t.Errorf("%d TCP flows, want 24", len(tcp))
	}
	for g, m := range means(t, tcp) {
		want := groundTruthMeans[g]
		if math.Abs(m-want) > 0.01*want {
			t.Errorf("%s: mean %.1f kbit/s, ground truth %.1f (more than 1 %% off)", g, m, want)
		}
	}
	if len(res.Late) != 0 {
		t.Errorf("late flows reported although every start is known: %v", res.Late)
	}
}

// TestNS3LateFlowsWithoutGroundTruth runs the same campaign without any
// application start: the means are off (DSDV by +21 %), and the batch names
// exactly the two flows whose SYN reached the air late — dsdv r2 and olsr
// r2, 10.1.0.8:49152 → 10.1.0.19:9000, application start 12.87 s, first
// packet 57.87 s and 21.87 s.
func TestNS3LateFlowsWithoutGroundTruth(t *testing.T) {
	dir := sharedNS3(t)
	p, _ := ParsePattern(readmePattern)
	files, _ := Discover([]string{filepath.Join(dir, "tcp-*.pcap.gz")})
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, End: 100})
	if err != nil {
		t.Fatal(err)
	}
	if m := means(t, res.Rows)["dsdv"]; m < 1.2*groundTruthMeans["dsdv"] {
		t.Errorf("dsdv mean %.1f kbit/s from first packets; expected the +21 %% the late flow causes", m)
	}
	var got []string
	for _, l := range res.Late {
		got = append(got, filepath.Base(l.RunKey)+" "+l.Src+">"+l.Dst)
		if l.LateS <= 0 || l.Overstat <= LateFraction {
			t.Errorf("%+v: late by %.3f s, overstatement %.3f", l, l.LateS, l.Overstat)
		}
	}
	sort.Strings(got)
	// Without ground truth a rate starts at the receiving application's
	// first data (as compare's end-to-end goodput): four more flows whose
	// first data waited for a route after an on-time SYN are late too.
	want := []string{"tcp-aodv-r1 10.1.0.13>10.1.0.2", "tcp-dsdv-r1 10.1.0.13>10.1.0.2", "tcp-dsdv-r2 10.1.0.8>10.1.0.19",
		"tcp-olsr-r1 10.1.0.13>10.1.0.2", "tcp-olsr-r1 10.1.0.15>10.1.0.7", "tcp-olsr-r2 10.1.0.8>10.1.0.19"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("late flows %v, want %v", got, want)
	}
	for _, l := range res.Late {
		if strings.HasSuffix(l.RunKey, "dsdv-r2") && math.Abs(l.FirstS-57.901698) > 1e-3 {
			t.Errorf("dsdv r2 late flow first data %.6f, want 57.901698", l.FirstS)
		}
	}
}

// TestAbsentFlowIsAZeroRow declares, next to the testbed's small aodv run,
// a third flow that no capture holds: it becomes a row with 0 bytes and
// vantage none, and the run's per-flow mean includes it.
func TestAbsentFlowIsAZeroRow(t *testing.T) {
	tmp := t.TempDir()
	src, _ := filepath.Glob("../testdata/manet/tcp-aodv-r1-*.pcap.gz")
	if len(src) == 0 {
		t.Fatal("no testdata/manet captures")
	}
	for _, f := range src {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(tmp, filepath.Base(f)), b, 0o644)
	}
	gt := "run,protocol,transport,flow_id,src_ip,src_port,dst_ip,dst_port,start_s,stop_s\n" +
		"1,aodv,tcp,0,10.1.0.2,49152,10.1.0.6,9000,8.53157778,30\n" +
		"1,aodv,tcp,1,10.1.0.3,49153,10.1.0.7,9001,8.23514145,30\n" +
		"1,aodv,tcp,2,10.1.0.4,49154,10.1.0.8,9002,9,30\n"
	os.WriteFile(filepath.Join(tmp, "tcp-aodv-r1-groundtruth.csv"), []byte(gt), 0o644)
	p, _ := ParsePattern(readmePattern)
	files, _ := Discover([]string{tmp})
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, Sidecars: true})
	if err != nil || len(res.Failed) > 0 {
		t.Fatalf("err %v, failed %v", err, res.Failed)
	}
	if len(res.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(res.Rows))
	}
	var absent *FlowRow
	for i := range res.Rows {
		if res.Rows[i].Src == "10.1.0.4" {
			absent = &res.Rows[i]
		}
	}
	if absent == nil || absent.Vantage != Nowhere || absent.Bytes != 0 || absent.Kbps != 0 || absent.IntervalS != 21 ||
		absent.Labels["protocol"] != "aodv" || absent.Labels["seed"] != "1" || absent.Labels["node"] != "" {
		t.Fatalf("absent flow row %+v", absent)
	}
	// Stop from the ground truth (30 s): 2612192 B × 8 / (30 − 8.53157778) s.
	for _, r := range res.Rows {
		if r.Src == "10.1.0.2" && math.Abs(r.Kbps-2612192*8/(30-8.53157778)/1000) > 1e-6 {
			t.Errorf("flow 0: %.3f kbit/s", r.Kbps)
		}
	}
	runs, _ := PerRun(res.Rows, "mean")
	want := (2612192*8/(30-8.53157778)/1000 + 557480*8/(30-8.23514145)/1000 + 0) / 3
	if len(runs) != 1 || runs[0].Flows != 3 || math.Abs(runs[0].Kbps-want) > 1e-6 {
		t.Errorf("per-run mean %+v, want 3 flows, %.3f kbit/s", runs, want)
	}
}

// TestIntervalOverridesAll gives one window for every flow.
func TestIntervalOverridesAll(t *testing.T) {
	p, _ := ParsePattern(readmePattern)
	files, _ := Discover([]string{"../testdata/manet"})
	iv, err := ParseInterval("10:30")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, Sidecars: true, End: 99, Interval: &iv})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if r.Source != FromInterval || r.FirstS != 10 || r.IntervalS != 20 || r.Kbps != float64(r.Bytes)*8/20/1000 {
			t.Errorf("%+v: want interval [10, 30]", r)
		}
	}
	for _, bad := range []string{"10", "30:10", "a:b", "5:5"} {
		if _, err := ParseInterval(bad); err == nil {
			t.Errorf("ParseInterval(%q): no error", bad)
		}
	}
}

// TestReceiverVantageNotRelay: dsdv r1's flow 10.1.0.15 → 10.1.0.7:9001 is
// in relay node 1's capture, which hears the sink's ACKs with their
// initial TTL; the row must come from the sink's own capture (node 6), and
// node 1's capture alone gives vantage relay.
func TestReceiverVantageNotRelay(t *testing.T) {
	dir := sharedNS3(t)
	files, _ := Discover([]string{filepath.Join(dir, "tcp-dsdv-r1-*.pcap.gz")})
	res, err := Goodput(context.Background(), files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res.Rows {
		if r.Src == "10.1.0.15" && r.DPort == 9001 {
			found = true
			if filepath.Base(r.File) != "tcp-dsdv-r1-6-0.pcap.gz" || r.Vantage != AtReceiver || r.Bytes != 4344 {
				t.Errorf("flow 14→6 from %s as %s, %d bytes; want tcp-dsdv-r1-6-0.pcap.gz as receiver, 4344", filepath.Base(r.File), r.Vantage, r.Bytes)
			}
		}
	}
	if !found {
		t.Fatal("flow 10.1.0.15 → 10.1.0.7:9001 missing")
	}
	res, err = Goodput(context.Background(), []string{filepath.Join(dir, "tcp-dsdv-r1-1-0.pcap.gz")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rows {
		if r.Src == "10.1.0.15" && r.DPort == 9001 && r.Vantage != Relay {
			t.Errorf("relay node 1's capture: vantage %s, want %s", r.Vantage, Relay)
		}
	}
	// Every row of a whole campaign comes from its receiver's own node when
	// that node's capture holds the flow's ACKs.
	files, _ = Discover([]string{filepath.Join(dir, "tcp-*.pcap.gz")})
	res, _ = Goodput(context.Background(), files, Options{})
	for _, r := range res.Rows {
		if r.Vantage == AtReceiver {
			// ns-3: node n has IP 10.1.0.(n+1); its capture is PREFIX-n-0.
			var ip, node int
			_, e1 := fmt.Sscanf(r.Dst, "10.1.0.%d", &ip)
			m := ns3Suffix.FindStringSubmatch(filepath.Base(r.File))
			if m != nil {
				node, _ = strconv.Atoi(m[2])
			}
			if e1 == nil && m != nil && ip != node+1 {
				t.Errorf("%s: %s → %s read as receiver from node %d", r.RunKey, r.Src, r.Dst, node)
			}
		}
	}
}

// TestStartsDeclareAbsentFlow: a --starts CSV (with stop_s) that lists a
// flow no capture holds gives a 0-byte row with vantage none in the run
// its labels name, and intervals from start_s to stop_s for the others.
func TestStartsDeclareAbsentFlow(t *testing.T) {
	tmp := t.TempDir()
	csvPath := filepath.Join(tmp, "starts.csv")
	os.WriteFile(csvPath, []byte("seed,protocol,src_ip,src_port,dst_ip,dst_port,start_s,stop_s\n"+
		"1,aodv,10.1.0.2,49152,10.1.0.6,9000,8.5,30\n"+
		"1,aodv,10.1.0.3,49153,10.1.0.7,9001,8.2,30\n"+
		"1,aodv,10.1.0.9,49160,10.1.0.10,9009,12,30\n"+
		"7,aodv,10.1.0.9,49160,10.1.0.10,9009,12,30\n"), 0o644)
	p, _ := ParsePattern(readmePattern)
	st, err := ReadStarts(csvPath, nil, p.Names())
	if err != nil {
		t.Fatal(err)
	}
	files, _ := Discover([]string{"../testdata/manet/tcp-aodv-r1-*.pcap.gz"})
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, Starts: st, Sidecars: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || len(res.Sidecars) != 0 {
		t.Fatalf("%d rows (want 3: seed 7 is not analysed), sidecars %v (want none: --starts wins)", len(res.Rows), res.Sidecars)
	}
	for _, r := range res.Rows {
		switch r.Src {
		case "10.1.0.9":
			if r.Vantage != Nowhere || r.Bytes != 0 || r.IntervalS != 18 || r.Source != FromStarts {
				t.Errorf("absent flow %+v", r)
			}
		case "10.1.0.2":
			if r.Source != FromStarts || r.FirstS != 8.5 || r.IntervalS != 21.5 {
				t.Errorf("flow 0 interval [%g, +%g] from %s, want [8.5, +21.5] from starts", r.FirstS, r.IntervalS, r.Source)
			}
		}
	}
}

// TestSidecarFromConfigOrAll: a run with only its PREFIX-config.txt next to
// the captures (held-back runs may come so), or only groundtruth-all.csv,
// still gets the applications' intervals: dsdv r2's sum is within 1 % of
// ns-3's 1428.8 kbit/s (from first packets it is 1977.8).
func TestSidecarFromConfigOrAll(t *testing.T) {
	dir := sharedNS3(t)
	caps, _ := filepath.Glob(filepath.Join(dir, "tcp-dsdv-r2-*-0.pcap.gz"))
	for _, side := range []string{"tcp-dsdv-r2-config.txt", "groundtruth-all.csv"} {
		tmp := t.TempDir()
		for _, f := range append(caps, filepath.Join(dir, side)) {
			if err := os.Symlink(f, filepath.Join(tmp, filepath.Base(f))); err != nil {
				t.Fatal(err)
			}
		}
		files, _ := Discover([]string{tmp})
		res, err := Goodput(context.Background(), files, Options{End: 100, Sidecars: true})
		if err != nil || len(res.Sidecars) != 1 || filepath.Base(res.Sidecars[0]) != side {
			t.Fatalf("%s: err %v, sidecars %v", side, err, res.Sidecars)
		}
		sum := 0.0
		for _, r := range res.Rows {
			sum += r.Kbps
			if r.Source != FromSidecar {
				t.Errorf("%s: %s:%d interval from %s", side, r.Src, r.SPort, r.Source)
			}
		}
		if math.Abs(sum-1428.8) > 0.01*1428.8 || len(res.Late) != 0 {
			t.Errorf("%s: dsdv r2 sum %.1f kbit/s, want 1428.8 ± 1 %%; late %v", side, sum, res.Late)
		}
	}
}

// TestProxiedRowsMarked: in the satellite testbed's captures the client
// side of a PEP run is acknowledged by the PEP (vantage pep, its bytes the
// PEP accepted) when the PEP closed its window, and may be (vantage pep?)
// when it never did (pep-on_lan-4Mbit: one capture cannot tell it from an
// on-link server); the server side and the runs without a PEP are neither.
// With the path RTT (2 × 305 ms) every PEP run's client side is pep.
func TestProxiedRowsMarked(t *testing.T) {
	files, err := Discover([]string{"../testdata/sat-pair", "../testdata/sat"})
	if err != nil {
		t.Fatal(err)
	}
	for _, pathRTT := range []time.Duration{0, 610 * time.Millisecond} {
		res, err := Goodput(context.Background(), files, Options{MinBytes: 100000, PathRTT: pathRTT})
		if err != nil || len(res.Failed) > 0 {
			t.Fatalf("err %v, failed %v", err, res.Failed)
		}
		n := map[Vantage]int{}
		for _, r := range res.Rows {
			pepRun := strings.Contains(r.File, "pep-on")
			clientSide := strings.Contains(filepath.Base(r.File), "client")
			want := NoVantage
			switch {
			case pepRun && clientSide && strings.Contains(r.File, "lan-4Mbit") && pathRTT == 0:
				want = AtProxyPossible
			case pepRun && clientSide:
				want = AtProxy
			}
			if got := r.Vantage; got.Proxied() != (want != NoVantage) || (want != NoVantage && got != want) {
				t.Errorf("path RTT %v: %s conn %d: vantage %s, want %s", pathRTT, r.File, r.Conn, got, want)
			}
			n[r.Vantage]++
		}
		// testdata/sat-pair's 20 KB run, testdata/sat's 20 KB and default
		// runs; pep-on_lan-4Mbit's possible, or proven by the path RTT.
		if want := map[bool][2]int{true: {3, 1}, false: {4, 0}}[pathRTT == 0]; n[AtProxy] != want[0] || n[AtProxyPossible] != want[1] {
			t.Errorf("path RTT %v: %d pep and %d pep? rows, want %v", pathRTT, n[AtProxy], n[AtProxyPossible], want)
		}
	}
}
