package manet

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// buildOrSkip compiles (or finds in the cache) the real scenario.
func buildOrSkip(t *testing.T, opts BuildOptions) string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration: -short")
	}
	if _, err := FindToolchain(opts); err != nil {
		t.Skipf("integration: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts.Logf = t.Logf
	bin, err := Build(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// csvRows reads a CSV file into maps keyed by the header.
func csvRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("number %q: %v", s, err)
	}
	return v
}

// chainCampaign runs protocols × seeds on a static chain (layout=chain) with
// one flow from the first to the last chain node.
func chainCampaign(t *testing.T, bin, transport string, nodes int, simTime time.Duration, protos []string, seeds []int, extra ...string) string {
	t.Helper()
	sc := DefaultScenario()
	sc.Transport, sc.Nodes, sc.Flows, sc.Time, sc.Pcap = transport, nodes, 1, simTime, false
	sc.Extra = append([]string{"--layout=chain"}, extra...)
	out := t.TempDir()
	c := &Campaign{Scenario: sc, Protocols: protos, Seeds: seeds, OutDir: out, Binary: bin}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := c.Execute(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAntHocNetChain: on a static 5-node chain (180 m spacing, ~250 m
// range, so 4 hops) AntHocNet delivers >= 99 % of a 100 kbit/s UDP CBR
// flow, and its control traffic is in the ground truth.
func TestAntHocNetChain(t *testing.T) {
	bin := buildOrSkip(t, BuildOptions{})
	out := chainCampaign(t, bin, "udp", 5, 40*time.Second, []string{"anthocnet"}, []int{1})
	gt := csvRows(t, filepath.Join(out, "udp-anthocnet-r1-groundtruth.csv"))[0]
	sent, rx := num(t, gt["fm_tx_packets"]), num(t, gt["sink_rx_bytes"])/1000
	t.Logf("anthocnet udp chain: %v of %v packets delivered, %v forwardings", rx, sent, gt["fm_times_forwarded"])
	if sent < 100 || rx/sent < 0.99 {
		t.Errorf("delivered %v of %v packets (%.2f %%), want >= 99 %%", rx, sent, 100*rx/sent)
	}
	// 4 hops: 3 forwardings per delivered packet (plus one per packet the
	// source deferred through loopback while the route was searched).
	if fwd := num(t, gt["fm_times_forwarded"]); fwd < 3*rx || fwd > 3*rx+10 {
		t.Errorf("fm_times_forwarded = %v, want about 3 × %v", fwd, rx)
	}

	ov := map[string]float64{}
	for _, r := range csvRows(t, filepath.Join(out, "udp-anthocnet-r1-overhead.csv")) {
		ov[r["kind"]] = num(t, r["tx_packets"])
	}
	sum := ov["anthocnet.hello"] + ov["anthocnet.fant_reactive"] + ov["anthocnet.fant_proactive"] +
		ov["anthocnet.fant_repair"] + ov["anthocnet.bant"] + ov["anthocnet.link_failure_notification"]
	t.Logf("overhead: %v", ov)
	// 5 nodes × 1 hello/s × 40 s.
	if h := ov["anthocnet.hello"]; h < 190 || h > 210 {
		t.Errorf("hellos = %v, want about 200", h)
	}
	if ov["routing"] != sum || ov["anthocnet.bant"] == 0 || ov["anthocnet.fant_proactive"] == 0 {
		t.Errorf("routing packets at the IP layer = %v, AntHocNet's own count = %v; want equal, with backward and proactive ants", ov["routing"], sum)
	}
	cfg, err := ReadConfig(filepath.Join(out, "udp-anthocnet-r1-config.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Values["anthocnet.Gamma"] != "0.7" || cfg.Values["anthocnet.THop"] != "+3e+06ns" || cfg.Values["routing_tx_packets"] == "" {
		t.Errorf("config lacks the AntHocNet parameters or the overhead: Gamma=%q THop=%q routing_tx_packets=%q",
			cfg.Values["anthocnet.Gamma"], cfg.Values["anthocnet.THop"], cfg.Values["routing_tx_packets"])
	}
}

// TestAntHocNetChainTCP: TCP goodput over the 5-node chain, AntHocNet
// against AODV, mean of three seeds: AntHocNet is not more than 10 %
// below AODV.
func TestAntHocNetChainTCP(t *testing.T) {
	bin := buildOrSkip(t, BuildOptions{})
	out := chainCampaign(t, bin, "tcp", 5, 60*time.Second, []string{"anthocnet", "aodv"}, []int{1, 2, 3})
	sum := map[string]float64{}
	for _, r := range csvRows(t, filepath.Join(out, GroundTruthAllName)) {
		sum[r["protocol"]] += num(t, r["goodput_kbps"]) / 3
		t.Logf("%s seed %s: %s kbit/s", r["protocol"], r["run"], r["goodput_kbps"])
	}
	if sum["anthocnet"] < 0.9*sum["aodv"] || sum["aodv"] <= 0 {
		t.Errorf("mean TCP goodput anthocnet %.1f, aodv %.1f kbit/s; want anthocnet >= 90 %% of aodv", sum["anthocnet"], sum["aodv"])
	}
}

// TestAntHocNetLinkBreak: chain of 5 plus a relay beside the middle node;
// at 25 s the middle node leaves. Delivery of the UDP flow resumes within
// 3 s and stays >= 90 % afterwards.
func TestAntHocNetLinkBreak(t *testing.T) {
	bin := buildOrSkip(t, BuildOptions{})
	const breakAt = 25
	out := chainCampaign(t, bin, "udp", 6, 45*time.Second, []string{"anthocnet"}, []int{1},
		"--altNode=1", "--breakAt=25")
	perSec := map[int]float64{}
	for _, r := range csvRows(t, filepath.Join(out, "udp-anthocnet-r1-goodput-ts.csv")) {
		perSec[int(num(t, r["second"]))] = num(t, r["rx_bytes"])
	}
	resumed := -1
	for s := breakAt + 1; s < 45; s++ {
		if perSec[s] > 0 {
			resumed = s
			break
		}
	}
	var after float64
	for s := breakAt + 3; s < 45; s++ {
		after += perSec[s]
	}
	want := 100e3 / 8 * float64(45-breakAt-3) // 100 kbit/s
	t.Logf("after the break at %d s: first delivery in second %d, %.0f of %.0f bytes in [%d, 45) s", breakAt, resumed, after, want, breakAt+3)
	if resumed < 0 || resumed > breakAt+3 {
		t.Errorf("delivery resumed in second %d, want by %d", resumed, breakAt+3)
	}
	if after < 0.9*want {
		t.Errorf("delivered %.0f bytes after the break, want >= 90 %% of %.0f", after, want)
	}
}

// TestNS3DirAndRoutingHook builds against the Debian tree given as an
// external one (--ns3-dir /usr) with a routing hook that knows
// "aodv_hooked", runs it, and checks that other names are refused.
func TestNS3DirAndRoutingHook(t *testing.T) {
	if _, err := os.Stat("/usr/include/ns3/core-module.h"); err != nil {
		t.Skip("integration: no Debian ns-3 under /usr")
	}
	hook := filepath.Join(t.TempDir(), "hook.cc")
	src := `#include "ns3/aodv-module.h"
#include <string>
ns3::Ipv4RoutingHelper* TcpvizRoutingHook(const std::string& name)
{
    if (name == "aodv_hooked")
    {
        return new ns3::AodvHelper();
    }
    return nullptr;
}
`
	if err := os.WriteFile(hook, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := BuildOptions{NS3Dir: "/usr", HookFile: hook}
	tc, err := FindToolchain(opts)
	if err == nil && (tc.IncludeDir != "/usr/include" || !strings.HasPrefix(tc.LibDir, "/usr/lib")) {
		t.Errorf("--ns3-dir /usr: include %s, lib %s", tc.IncludeDir, tc.LibDir)
	}
	bin := buildOrSkip(t, opts)
	sc := DefaultScenario()
	sc.Transport, sc.Nodes, sc.Flows, sc.Time, sc.Pcap = "udp", 3, 1, 20*time.Second, false
	sc.Extra = []string{"--layout=chain"}
	out := t.TempDir()
	c := &Campaign{Scenario: sc, Protocols: []string{"aodv_hooked", "nosuch"}, Seeds: []int{1}, OutDir: out, Binary: bin, HookProtocols: true}
	res, err := c.Execute(context.Background())
	if err == nil || len(res.Runs) != 2 {
		t.Fatalf("Execute = %v; want the nosuch run to fail", err)
	}
	if res.Runs[0].Err != nil || len(res.Runs[0].Flows) != 1 || res.Runs[0].Flows[0].SinkRxBytes == 0 {
		t.Errorf("aodv_hooked: %v, flows %+v", res.Runs[0].Err, res.Runs[0].Flows)
	}
	if res.Runs[1].Err == nil || !strings.Contains(res.Runs[1].Err.Error(), "unknown --protocol=nosuch") {
		t.Errorf("nosuch: err %v, want unknown protocol", res.Runs[1].Err)
	}
}

// TestPresetConfig runs paper-base cut down (6 nodes, 1 flow, 10 s, no
// pcaps) and checks that the preset's name and its values reach config.txt.
func TestPresetConfig(t *testing.T) {
	bin := buildOrSkip(t, BuildOptions{})
	sc, err := PresetScenario(PresetPaperBase)
	if err != nil {
		t.Fatal(err)
	}
	sc.Nodes, sc.Flows, sc.Time, sc.Pcap = 6, 1, 10*time.Second, false
	out := t.TempDir()
	c := &Campaign{Scenario: sc, Protocols: []string{"anthocnet"}, Seeds: []int{2}, OutDir: out, Binary: bin}
	if _, err := c.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg, err := ReadConfig(filepath.Join(out, "tcp-anthocnet-r2-config.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"preset": "paper-base", "nNodes": "6", "areaX": "1500", "areaY": "300", "time": "10",
		"speed": "20", "pause": "30", "flows": "1", "tcpType": "ns3::TcpCubic", "transport": "tcp",
		"start":                   "U[2.5,5]", // U[0,180] shrunk to [T/4, T/2]
		"campaign_key":            c.RunKey(Run{"anthocnet", 2}),
		"anthocnet.HelloInterval": "+1e+09ns",
	} {
		if got := cfg.Values[k]; got != want {
			t.Errorf("config %s = %q, want %q", k, got, want)
		}
	}
}

// TestAntHocNetLinkBreakTCP: the same break under a TCP flow (at 30 s of
// 60 s): the sink receives data in every second from the break on, except
// at most 2 seconds in a row.
func TestAntHocNetLinkBreakTCP(t *testing.T) {
	bin := buildOrSkip(t, BuildOptions{})
	const breakAt, end = 30, 60
	out := chainCampaign(t, bin, "tcp", 6, end*time.Second, []string{"anthocnet"}, []int{1},
		"--altNode=1", "--breakAt=30")
	perSec := map[int]float64{}
	for _, r := range csvRows(t, filepath.Join(out, "tcp-anthocnet-r1-goodput-ts.csv")) {
		perSec[int(num(t, r["second"]))] = num(t, r["rx_bytes"])
	}
	gap, longest := 0, 0
	for s := breakAt; s < end; s++ {
		if perSec[s] > 0 {
			gap = 0
			continue
		}
		gap++
		longest = max(longest, gap)
	}
	t.Logf("seconds %d-%d: %v", breakAt-1, breakAt+3, []float64{perSec[breakAt-1], perSec[breakAt], perSec[breakAt+1], perSec[breakAt+2], perSec[breakAt+3]})
	if longest > 2 {
		t.Errorf("TCP delivery stopped for %d s in a row after the break, want <= 2", longest)
	}
}
