package main

import (
	"strings"
	"testing"
)

// TestTestbedManetBadFlags: wrong presets, shards and protocol names are
// refused with exit status 1 (usage) before anything is built, as are
// NaN, negative or zero numbers in the string knobs (--time, --pause,
// --area, --start).
func TestTestbedManetBadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--preset", "paper"}, "paper-base"},
		{[]string{"--preset", "paper-base", "--shard", "3/2", "--out", "x"}, "shard"},
		{[]string{"--protocols", "anthocnet,myrouting", "--out", "x"}, "--routing-hook"},
		{[]string{"--preset", "paper-base-udp", "--start", "5", "--out", "x"}, "--start"},
		{[]string{"--time", "NaN", "--out", "x"}, "--time"},
		{[]string{"--time", "0", "--out", "x"}, "time 0s: want > 0"},
		{[]string{"--pause", "-3", "--out", "x"}, "--pause"},
		{[]string{"--area", "NaNx300", "--out", "x"}, "--area"},
		{[]string{"--start", "NaN,5", "--out", "x"}, "--start"},
	} {
		_, _, err := runCLI(t, append([]string{"testbed", "manet"}, tt.args...)...)
		if exitCode(err) != 1 || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("testbed manet %q: err %v (exit %d), want exit 1 mentioning %q", tt.args, err, exitCode(err), tt.want)
		}
	}
}

// TestTestbedManetPresetOverride: flags given with a preset override it;
// the others keep the preset's values; --shard picks every n-th seed.
func TestTestbedManetPresetOverride(t *testing.T) {
	out, _, err := runCLI(t, "testbed", "manet", "--dry-run", "--preset", "paper-base", "--time", "80s",
		"--nodes", "30", "--protocols", "anthocnet,aodv", "--seeds", "1-4", "--shard", "2/2")
	if err != nil {
		t.Fatal(err)
	}
	want := "manet-tcp --protocol=anthocnet --transport=tcp --run=2 --nNodes=30 --areaX=1500 --areaY=300 --time=80 --speed=20 --pause=30 --flows=20 --pcap=1 --prefix=tcp-anthocnet-r2 --preset=paper-base --startMin=0 --startMax=180\n" +
		"manet-tcp --protocol=aodv --transport=tcp --run=2 --nNodes=30 --areaX=1500 --areaY=300 --time=80 --speed=20 --pause=30 --flows=20 --pcap=1 --prefix=tcp-aodv-r2 --preset=paper-base --startMin=0 --startMax=180\n"
	if lines := strings.SplitAfter(out, "\n"); len(lines) != 5 || strings.Join(lines[:2], "") != want {
		t.Errorf("dry run =\n%s\nwant 4 lines starting\n%s", out, want)
	}
	out, _, err = runCLI(t, "testbed", "manet", "--dry-run", "--preset", "paper-base-udp", "--cbr-rate", "2kbps", "--protocols", "olsr")
	if err != nil || !strings.Contains(out, "--transport=udp") || !strings.Contains(out, "--cbrRate=2kbps --pktSize=64") || !strings.Contains(out, "--time=900") {
		t.Errorf("paper-base-udp dry run = %q, %v", out, err)
	}
}
