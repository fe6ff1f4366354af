package manet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeLog returns the prefixes the fake scenario simulated, in order.
func fakeLog(t *testing.T, p string) []string {
	t.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func TestCampaignResume(t *testing.T) {
	out := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	t.Setenv("FAKE_LOG", log)
	bin := writeFake(t)
	c := &Campaign{Scenario: DefaultScenario(), Protocols: []string{"aodv", "anthocnet"}, Seeds: []int{1, 2}, OutDir: out, Binary: bin, Jobs: 1, Resume: true}
	if _, err := c.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fakeLog(t, log); len(got) != 4 {
		t.Fatalf("first campaign simulated %q, want 4 runs", got)
	}

	// A run killed while its files moved in: config and pcap there, no
	// ground truth. And the work directory of a killed process.
	os.Remove(filepath.Join(out, "tcp-aodv-r2-groundtruth.csv"))
	stale := filepath.Join(out, ".run-tcp-aodv-r2-999999999-123")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	// Seed 1's anthocnet run was made with other knobs: redone.
	cfg := filepath.Join(out, "tcp-anthocnet-r1-config.txt")
	if err := os.WriteFile(cfg, []byte("campaign_key=0000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(log)
	res, err := c.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := fakeLog(t, log)
	slices.Sort(got)
	if want := []string{"tcp-anthocnet-r1", "tcp-aodv-r2"}; !slices.Equal(got, want) {
		t.Errorf("resumed campaign simulated %q, want %q", got, want)
	}
	var skipped []string
	for _, rr := range res.Runs {
		if rr.Skipped {
			skipped = append(skipped, rr.Prefix)
			if len(rr.Flows) != 1 || rr.DiskBytes == 0 {
				t.Errorf("%s skipped: Flows %v, DiskBytes %d", rr.Prefix, rr.Flows, rr.DiskBytes)
			}
		}
	}
	if want := []string{"tcp-aodv-r1", "tcp-anthocnet-r2"}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale work directory of a dead process not removed: %v", err)
	}
	if res.DiskBytes <= 0 {
		t.Errorf("DiskBytes = %d", res.DiskBytes)
	}
	all, err := ReadGroundTruth(filepath.Join(out, GroundTruthAllName))
	if err != nil || len(all) != 4 {
		t.Errorf("groundtruth-all: %d rows, %v; want 4", len(all), err)
	}

	// Different knobs: every run is redone.
	os.Remove(log)
	c.Scenario.Time = 50 * time.Second
	if _, err := c.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fakeLog(t, log); len(got) != 4 {
		t.Errorf("campaign with other knobs simulated %q, want all 4", got)
	}
}

func TestCampaignShard(t *testing.T) {
	seeds := []int{1, 2, 3, 4, 5}
	var union []string
	for i := range 2 {
		c := &Campaign{Protocols: []string{"anthocnet", "aodv"}, Seeds: seeds, Shard: i, Shards: 2}
		for _, r := range c.Runs() {
			union = append(union, fmt.Sprint(r.Seed, r.Protocol))
		}
	}
	want := []string{"1anthocnet", "1aodv", "3anthocnet", "3aodv", "5anthocnet", "5aodv", "2anthocnet", "2aodv", "4anthocnet", "4aodv"}
	if !slices.Equal(union, want) {
		t.Errorf("shards 1/2 + 2/2 run %q, want %q", union, want)
	}
	for in, want := range map[string][2]int{"1/1": {0, 1}, "3/4": {2, 4}} {
		i, n, err := ParseShard(in)
		if err != nil || i != want[0] || n != want[1] {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %v", in, i, n, err, want)
		}
	}
	for _, bad := range []string{"0/2", "3/2", "1", "a/b", "1/0", "1/2x"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) = nil error", bad)
		}
	}
}

func TestPresetScenario(t *testing.T) {
	s, err := PresetScenario(PresetPaperBase)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(s.Args(Run{"anthocnet", 3}), " ")
	want := "--protocol=anthocnet --transport=tcp --run=3 --nNodes=50 --areaX=1500 --areaY=300 --time=900 --speed=20 --pause=30 --flows=20 --pcap=1 --prefix=tcp-anthocnet-r3 --preset=paper-base --startMin=0 --startMax=180"
	if args != want {
		t.Errorf("paper-base args =\n %s\nwant\n %s", args, want)
	}
	u, _ := PresetScenario(PresetPaperBaseUDP)
	if u.Transport != "udp" || u.CBRRate != "512bps" || u.PktSize != 64 || u.Nodes != 50 {
		t.Errorf("paper-base-udp = %+v", u)
	}
	if _, err := PresetScenario("paper"); err == nil {
		t.Error("PresetScenario(paper) = nil error")
	}
}
