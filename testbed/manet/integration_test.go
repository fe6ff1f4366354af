package manet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

// TestIntegrationTinyCampaign builds the real scenario (cached in
// DefaultCacheDir, so only the first run compiles) and runs AntHocNet and
// AODV at seed 1 with 8 nodes in 300 × 300 m for 15 simulated seconds.
func TestIntegrationTinyCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: -short")
	}
	if _, err := FindToolchain(BuildOptions{}); err != nil {
		t.Skipf("integration: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	bin, err := Build(ctx, BuildOptions{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scenario binary %s ready after %v", bin, time.Since(start).Round(time.Millisecond))

	sc := DefaultScenario()
	sc.Nodes, sc.AreaX, sc.AreaY, sc.Time, sc.Flows = 8, 300, 300, 15*time.Second, 2
	out := t.TempDir()
	c := &Campaign{Scenario: sc, Protocols: []string{"anthocnet", "aodv"}, Seeds: []int{1}, OutDir: out, Binary: bin, Gzip: true}
	res, err := c.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}

	pcapName := regexp.MustCompile(`^tcp-(anthocnet|aodv)-r1-\d+-0\.pcap\.gz$`)
	var fingerprints, flowTables []string
	anyBytes := false
	for _, rr := range res.Runs {
		t.Logf("%s: %v wall, pcaps %d B raw, %d B gzipped", rr.Prefix, rr.Wall.Round(time.Millisecond), rr.PcapRawBytes, rr.PcapGzBytes)
		for _, suffix := range []string{"-groundtruth.csv", "-config.txt", "-goodput-ts.csv", "-tcp-events.csv", "-stdout.txt", "-overhead.csv"} {
			if !slices.Contains(rr.Files, rr.Prefix+suffix) {
				t.Errorf("%s: no %s%s in %q", rr.Prefix, rr.Prefix, suffix, rr.Files)
			}
		}
		cfg, err := ReadConfig(filepath.Join(out, rr.Prefix+"-config.txt"))
		if err != nil {
			t.Fatal(err)
		}
		// One pcap per flow endpoint (4 distinct nodes for 2 flows among 8).
		if len(cfg.PcapFiles) != 2*sc.Flows {
			t.Errorf("%s: %d pcap files in config, want %d", rr.Prefix, len(cfg.PcapFiles), 2*sc.Flows)
		}
		for _, p := range cfg.PcapFiles {
			if !pcapName.MatchString(p+".gz") || !slices.Contains(rr.Files, p+".gz") {
				t.Errorf("%s: pcap %s.gz missing or misnamed (files %q)", rr.Prefix, p, rr.Files)
			}
		}
		fingerprints = append(fingerprints, cfg.Fingerprint())
		flowTables = append(flowTables, fmt.Sprint(cfg.Flows))
		if len(rr.Flows) != sc.Flows {
			t.Errorf("%s: %d ground-truth rows, want %d", rr.Prefix, len(rr.Flows), sc.Flows)
		}
		for _, f := range rr.Flows {
			t.Logf("%s flow %d %d->%d: sink %d B, %.1f kbps, %d retx", rr.Prefix, f.FlowID, f.SrcNode, f.DstNode, f.SinkRxBytes, f.GoodputKbps, f.TCPRetxSegs)
			anyBytes = anyBytes || f.SinkRxBytes > 0
		}
	}
	if fingerprints[0] == "" || fingerprints[0] != fingerprints[1] {
		t.Errorf("mobility fingerprints differ across protocols of run 1: %q", fingerprints)
	}
	if flowTables[0] != flowTables[1] {
		t.Errorf("flow tables differ across protocols of run 1:\n %s\n %s", flowTables[0], flowTables[1])
	}
	if !anyBytes {
		t.Errorf("no flow delivered any byte")
	}
	all, err := ReadGroundTruth(filepath.Join(out, GroundTruthAllName))
	if err != nil || len(all) != 2*sc.Flows {
		t.Errorf("groundtruth-all.csv: %d rows, %v; want %d", len(all), err, 2*sc.Flows)
	}
	if _, err := os.Stat(filepath.Join(out, RuntimesName)); err != nil {
		t.Error(err)
	}
}

// TestDemoSample checks the committed sample in testdata/manet: naming,
// shared realisation across protocols, and delivered bytes.
func TestDemoSample(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "manet")
	all, err := ReadGroundTruth(filepath.Join(dir, GroundTruthAllName))
	if err != nil {
		t.Skipf("no demo sample: %v", err)
	}
	var fp []string
	for _, p := range []string{"tcp-aodv-r1", "tcp-olsr-r1"} {
		cfg, err := ReadConfig(filepath.Join(dir, p+"-config.txt"))
		if err != nil {
			t.Fatal(err)
		}
		fp = append(fp, cfg.Fingerprint()+" "+fmt.Sprint(cfg.Flows))
		for _, pc := range cfg.PcapFiles {
			if _, err := os.Stat(filepath.Join(dir, pc+".gz")); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	}
	if fp[0] != fp[1] {
		t.Errorf("demo realisations differ:\n %s\n %s", fp[0], fp[1])
	}
	for _, f := range all {
		if f.SinkRxBytes <= 0 {
			t.Errorf("demo %s flow %d delivered no bytes", f.Protocol, f.FlowID)
		}
	}
}
