package campaign

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIntervalClipsBytes measures shared/ns3 over --interval 50:100: the
// bytes are those delivered in the window, not the flows' totals, so the
// per-protocol means of the per-run sums match ns-3's PacketSink counts
// of seconds 50–99 (*-goodput-ts.csv: aodv 1181.5, dsdv 1431.2, olsr
// 1442.9 kbit/s) to within the receivers' delayed ACKs at 50 s (< 0.05 %).
// Before the fix every flow's total was divided by 50 s (aodv 1871.0).
func TestIntervalClipsBytes(t *testing.T) {
	dir := sharedNS3(t)
	p, _ := ParsePattern(readmePattern)
	files, _ := Discover([]string{filepath.Join(dir, "tcp-*.pcap.gz")})
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, Interval: &Interval{50, 100}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"aodv": 1181.5, "dsdv": 1431.2, "olsr": 1442.9}
	for g, m := range means(t, res.Rows) {
		if math.Abs(m-want[g]) > 0.0005*want[g] {
			t.Errorf("%s: mean %.1f kbit/s over [50, 100), ns-3 %.1f", g, m, want[g])
		}
	}
	if len(res.IntervalWarnings) != 0 {
		t.Errorf("warnings %v for an interval inside the captures", res.IntervalWarnings)
	}
}

// TestEndClipsBytes: --end 50 on aodv r1 counts flow 10.1.0.3 → 10.1.0.11's
// bytes delivered before 50 s (ns-3: 2966952) over [14.765, 50): 673.6
// kbit/s, not its 100-s total over 35 s.
func TestEndClipsBytes(t *testing.T) {
	dir := sharedNS3(t)
	p, _ := ParsePattern(readmePattern)
	files, _ := Discover([]string{filepath.Join(dir, "tcp-aodv-r1-*.pcap.gz")})
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, End: 50, Sidecars: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res.Rows {
		if r.Src == "10.1.0.3" && r.Dst == "10.1.0.11" {
			found = true
			if r.Bytes != 2966952 || math.Abs(r.Kbps-673.6) > 0.05 {
				t.Errorf("bytes %d, %.3f kbit/s; want 2966952, 673.6", r.Bytes, r.Kbps)
			}
		}
	}
	if !found {
		t.Fatal("flow 10.1.0.3 → 10.1.0.11 missing")
	}
}

// TestIntervalOutsideCaptures: an interval that starts after every
// capture ended is refused; one that ends after them is warned about.
func TestIntervalOutsideCaptures(t *testing.T) {
	dir := sharedNS3(t)
	p, _ := ParsePattern(readmePattern)
	files, _ := Discover([]string{filepath.Join(dir, "tcp-aodv-r1-*.pcap.gz")})
	_, err := Goodput(context.Background(), files, Options{Labels: p.Match, Interval: &Interval{200, 300}})
	if !errors.Is(err, ErrOutsideCaptures) {
		t.Errorf("interval 200:300 on a 100-s run: err %v, want ErrOutsideCaptures", err)
	}
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, Interval: &Interval{50, 150}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.IntervalWarnings) != 1 || !strings.Contains(res.IntervalWarnings[0].String(), "counted as 0") {
		t.Errorf("interval 50:150: warnings %q, want one saying bytes after the capture are unknown", res.IntervalWarnings)
	}
	if _, err := ParseInterval("-5:10"); err == nil {
		t.Error("ParseInterval(-5:10): no error")
	}
}

// TestSatelliteApplicationInterval: without ground truth a flow's interval
// is its receiving application's (first data to the receiver's close, as
// compare's end-to-end goodput), so testdata/sat's PEP-off runs give
// compare's 260.0 and 3711.5 kbit/s (iperf3: 260.0, 3713.9), not 195.7 and
// 2712.1 from the SYN to the last packet; --min-bytes drops iperf3's
// control connection.
func TestSatelliteApplicationInterval(t *testing.T) {
	p, _ := ParsePattern("{pep}_window-{window}/client.pcap")
	files, err := Discover([]string{"../testdata/sat"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, MinBytes: 1024, MinBytesClosed: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dropped) != 4 {
		t.Errorf("%d flows dropped, want the 4 control connections", len(res.Dropped))
	}
	want := map[string]float64{"20KB": 260.0, "default": 3711.5}
	n := 0
	for _, r := range res.Rows {
		if r.Labels["pep"] != "pep-off" {
			if r.Vantage != AtProxy {
				t.Errorf("%s: vantage %s, want pep", r.File, r.Vantage)
			}
			continue
		}
		n++
		if w := want[r.Labels["window"]]; math.Abs(r.Kbps-w) > 0.05 {
			t.Errorf("pep-off %s: %.2f kbit/s, want %.1f", r.Labels["window"], r.Kbps, w)
		}
	}
	if n != 2 {
		t.Errorf("%d pep-off rows, want 2", n)
	}
}

// TestPatternMisfit: a pattern that does not fit the names lets a
// placeholder swallow its separator and gives one run's captures
// different labels; both are detected. A pattern without labels is
// refused.
func TestPatternMisfit(t *testing.T) {
	p, err := ParsePattern("{protocol}-{seed}.pcap")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.Match("x/tcp-aodv-r1-10-0.pcap.gz")
	b, _ := p.Match("x/tcp-aodv-r1-2-0.pcap.gz")
	if got := p.Swallowed(a); len(got) != 1 || got[0] != "protocol=tcp-aodv-r1-10" {
		t.Errorf("Swallowed = %q, want [protocol=tcp-aodv-r1-10]", got)
	}
	rows := []FlowRow{{File: "x/tcp-aodv-r1-10-0.pcap.gz", RunKey: "x/tcp-aodv-r1", Labels: a}, {File: "x/tcp-aodv-r1-2-0.pcap.gz", RunKey: "x/tcp-aodv-r1", Labels: b}}
	if got := LabelConflicts(rows, []string{"protocol", "seed"}); len(got) != 1 || !strings.Contains(got[0], `"tcp-aodv-r1-10", "tcp-aodv-r1-2"`) {
		t.Errorf("LabelConflicts = %q", got)
	}
	good, _ := ParsePattern(readmePattern)
	l, _ := good.Match("x/tcp-aodv-r1-10-0.pcap.gz")
	if got := good.Swallowed(l); len(got) != 0 {
		t.Errorf("README pattern: Swallowed = %q, want none", got)
	}
	if _, err := ParsePattern("garbage"); err == nil {
		t.Error("ParsePattern(garbage): no error for a pattern without labels")
	}
}

// TestRejectedCapturesDeclareNothing: captures the labels reject do not
// turn their run's ground truth into rows of flows in no capture.
func TestRejectedCapturesDeclareNothing(t *testing.T) {
	dir := sharedNS3(t)
	files, _ := Discover([]string{filepath.Join(dir, "tcp-aodv-r1-*.pcap.gz")})
	res, err := Goodput(context.Background(), files, Options{Labels: func(string) (map[string]string, bool) { return nil, false }, Sidecars: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != len(files) || len(res.Rows) != 0 {
		t.Errorf("%d failed of %d, %d rows; want all rejected and no row", len(res.Failed), len(files), len(res.Rows))
	}
}

// TestStartsStopClipsBytes: a --starts stop_s before the end of the
// capture clips the bytes to [start_s, stop_s): aodv r1's 10.1.0.3 →
// 10.1.0.11 delivered 2966952 B before 50 s (ns-3's goodput-ts.csv), not
// its 8688000 in all.
func TestStartsStopClipsBytes(t *testing.T) {
	dir := sharedNS3(t)
	csvPath := filepath.Join(t.TempDir(), "starts.csv")
	os.WriteFile(csvPath, []byte("seed,protocol,src_ip,src_port,dst_ip,dst_port,start_s,stop_s\n1,aodv,10.1.0.3,49152,10.1.0.11,9000,14.7650152,50\n"), 0o644)
	p, _ := ParsePattern(readmePattern)
	st, err := ReadStarts(csvPath, nil, p.Names())
	if err != nil {
		t.Fatal(err)
	}
	files, _ := Discover([]string{filepath.Join(dir, "tcp-aodv-r1-*.pcap.gz")})
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match, Starts: st})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 {
		t.Errorf("%d rows, want aodv r1's 4 flows", len(res.Rows))
	}
	for _, r := range res.Rows {
		if r.Src == "10.1.0.3" && (r.Bytes != 2966952 || r.TotalBytes != 8688000 || r.Source != FromStarts) {
			t.Errorf("bytes %d of %d from %s; want 2966952 of 8688000 from starts", r.Bytes, r.TotalBytes, r.Source)
		}
	}
}

// TestEarlyEndRunsToRunEnd: without ground truth or --end, a flow that did
// not close ends at its run's end (the last frame of any capture of the
// run), not at its own last packet: olsr r2's 10.1.0.14 → 10.1.0.13 sends
// its last packet at 79.75 s of a 100-s run; ended there its rate was
// overstated by a quarter.
func TestEarlyEndRunsToRunEnd(t *testing.T) {
	dir := sharedNS3(t)
	p, _ := ParsePattern(readmePattern)
	files, _ := Discover([]string{filepath.Join(dir, "tcp-olsr-r2-*.pcap.gz")})
	res, err := Goodput(context.Background(), files, Options{Labels: p.Match})
	if err != nil {
		t.Fatal(err)
	}
	end := res.RunEnd[filepath.Join(dir, "tcp-olsr-r2")]
	if end < 99.9 || end > 100 {
		t.Fatalf("run end %.3f, want just under 100 s", end)
	}
	found := false
	for _, r := range res.Rows {
		if r.Src != "10.1.0.14" {
			continue
		}
		found = true
		if r.LastS > 80 || math.Abs(r.FirstS+r.IntervalS-end) > 1e-9 || r.Bytes != 405440 {
			t.Errorf("last packet %.3f, interval ends %.3f (run end %.3f), %d bytes", r.LastS, r.FirstS+r.IntervalS, end, r.Bytes)
		}
	}
	if !found {
		t.Error("flow 10.1.0.14 → 10.1.0.13 missing")
	}
}

// TestMinBytesKeepsStalledFlows: with MinBytesClosed a small flow is
// dropped only when its connection was closed (a control connection); a
// flow that never delivered and never closed is a result and stays, and so
// does a small declared flow.
func TestMinBytesKeepsStalledFlows(t *testing.T) {
	rows := []FlowRow{
		{Src: "control", TotalBytes: 487, closed: true, Source: FromPackets},
		{Src: "stalled", TotalBytes: 0, Source: FromPackets},
		{Src: "declared", TotalBytes: 10, closed: true, Source: FromSidecar},
		{Src: "bulk", TotalBytes: 1 << 20, closed: true, Source: FromPackets},
	}
	declared := func(r FlowRow) bool { return r.Source == FromSidecar }
	kept, dropped := dropSmall(rows, Options{MinBytes: 1024, MinBytesClosed: true}, declared)
	if len(dropped) != 1 || dropped[0].Src != "control" || len(kept) != 3 {
		t.Errorf("auto: kept %v, dropped %v", kept, dropped)
	}
	kept, dropped = dropSmall(rows, Options{MinBytes: 1024}, declared)
	if len(dropped) != 2 || len(kept) != 2 {
		t.Errorf("--min-bytes 1024: kept %d, dropped %d; want 2, 2", len(kept), len(dropped))
	}
}

// TestCutCaptureYieldsToCompleteOne: aodv r1's sink capture of 10.1.0.15 →
// 10.1.0.7 (node 6) cut mid-record at a fifth of its length: its rows
// carry the reader's warning, and the flow is taken from the sender's
// complete capture (24616 B, ns-3's PacketSink count), not from the
// receiver's cut one (0 B).
func TestCutCaptureYieldsToCompleteOne(t *testing.T) {
	dir := sharedNS3(t)
	tmp := t.TempDir()
	files, _ := Discover([]string{filepath.Join(dir, "tcp-aodv-r1-*.pcap.gz")})
	var use []string
	for _, f := range files {
		if strings.HasSuffix(f, "-6-0.pcap.gz") {
			b, err := readGz(f)
			if err != nil {
				t.Fatal(err)
			}
			cut := filepath.Join(tmp, "tcp-aodv-r1-6-0.pcap")
			os.WriteFile(cut, b[:len(b)/5], 0o644)
			use = append(use, cut)
			continue
		}
		l := filepath.Join(tmp, filepath.Base(f))
		if err := os.Symlink(f, l); err != nil {
			t.Skip("no symlinks:", err)
		}
		use = append(use, l)
	}
	p, _ := ParsePattern(readmePattern)
	res, err := Goodput(context.Background(), use, Options{Labels: p.Match})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(strings.Join(res.Warnings[0].Warnings, " "), "cut mid-record") {
		t.Errorf("warnings %v, want one capture cut mid-record", res.Warnings)
	}
	for _, r := range res.Rows {
		if r.Src == "10.1.0.15" && (r.Bytes != 24616 || r.Vantage != AtSender) {
			t.Errorf("10.1.0.15 → 10.1.0.7: %d bytes from %s (%s), want 24616 from the sender's capture", r.Bytes, filepath.Base(r.File), r.Vantage)
		}
	}
}

func readGz(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}
