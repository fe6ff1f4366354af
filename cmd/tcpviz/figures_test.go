package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// TestFigureFlags: --size and --dpi set the PNG's pixels (8.5 cm at 300 dpi
// is 1004 px), and a bad value is refused before any capture is read.
func TestFigureFlags(t *testing.T) {
	dir := t.TempDir()
	for _, verb := range []string{"seq", "rtt", "retrans", "window", "tput"} {
		out := filepath.Join(dir, verb+".png")
		if _, _, err := runCLI(t, verb, synth, "-o", out, "--size", "8.5x6cm", "--dpi", "300", "--font-size", "8"); err != nil {
			t.Fatalf("%s: %v", verb, err)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Width != 1004 || cfg.Height != 709 {
			t.Errorf("%s --size 8.5x6cm --dpi 300: %d × %d px, want 1004 × 709", verb, cfg.Width, cfg.Height)
		}
	}
	for _, bad := range [][]string{{"--size", "8.5"}, {"--dpi", "5"}, {"--font-size", "100"}} {
		_, _, err := runCLI(t, append([]string{"seq", "/nonexistent.pcap", "-o", filepath.Join(dir, "x.png")}, bad...)...)
		if err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("seq %v: error %v, want one naming %s (before reading the capture)", bad, err, bad[0])
		}
	}
}

// TestGoodputStudyOutputs runs the MANET study's outputs on ../shared/ns3
// (runs 1-2 × aodv, olsr, dsdv) with the applications' start times: the
// LaTeX and CSV tables match their goldens, whose group means equal the
// ground truth's (sum of goodput_kbps per run, mean over runs: olsr
// 1287.5, dsdv 1326.4, aodv 1099.1 kbps), and both figures are written.
func TestGoodputStudyOutputs(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	dir := t.TempDir()
	fig := filepath.Join(dir, "goodput.pdf")
	out, _, err := runCLI(t, "goodput", ns3, "--labels", "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap",
		"--group", "protocol", "--pair", "seed", "--end", "100", "--starts", filepath.Join(ns3, "groundtruth-all.csv"),
		"--starts-rename", "run=seed", "--order", "olsr,dsdv,aodv", "--pairs", "olsr:aodv,dsdv:aodv,olsr:dsdv", "--csv", "-o", filepath.Join(dir, "flows.csv"),
		"--tables", filepath.Join(dir, "tables.md"), "--tables-csv", filepath.Join(dir, "tables"),
		"--tables-tex", filepath.Join(dir, "tables.tex"), "--plot", fig, "--size", "8.5x6cm", "--label", "ns-3 MANET, 20 nodes")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fig, filepath.Join(dir, "goodput.pairs.pdf")} {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte("%PDF")) {
			t.Errorf("%s: not a PDF (%v)", p, err)
		}
		if !strings.Contains(out, p) {
			t.Errorf("the path %s was not printed", p)
		}
	}
	for _, name := range []string{"tables.tex", "tables.groups.csv", "tables.pairs.csv"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "goodput-study."+name+".golden")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s; run 'go test -update' and review the diff\ngot:\n%s", name, golden, got)
		}
	}
	_, _, err = runCLI(t, "goodput", ns3, "--labels", "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap",
		"--group", "protocol", "--order", "anthocnet,aodv")
	if err == nil || !strings.Contains(err.Error(), "anthocnet") {
		t.Errorf("--order with a group no run has: error %v, want one naming it", err)
	}
}
