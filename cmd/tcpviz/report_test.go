package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// TestReportHTML writes the interactive report with 'report' and with -o
// x.html on every graph verb, and checks that each file is one
// self-contained page: uPlot and the data inside, nothing loaded from
// elsewhere.
func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	geo := "../../testdata/synthetic/geo-600ms-loss.pcap"
	sat := "../../testdata/sat/pep-%s_window-20KB/client.pcap"
	runs := map[string][]string{
		"report":  {"report", geo, "../../testdata/sat/pep-on_window-20KB/client.pcap"},
		"seq":     {"seq", geo},
		"rtt":     {"rtt", geo},
		"tput":    {"tput", geo},
		"window":  {"window", geo},
		"compare": {"compare", "nopep=" + strings.ReplaceAll(sat, "%s", "off"), "pep=" + strings.ReplaceAll(sat, "%s", "on")},
	}
	external := regexp.MustCompile(`(?i)<script[^>]+src=|<link[^>]+href=|@import|url\(http`)
	for name, args := range runs {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(dir, name+".html")
			stdout, _, err := runCLI(t, append(args, "-o", out)...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout, out) {
				t.Errorf("stdout = %q, want the path %s", stdout, out)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			for _, want := range []string{"<!DOCTYPE html>", "uPlot", "The MIT License", `id="meta"`, `id="blob"`} {
				if !strings.Contains(page, want) {
					t.Errorf("%s lacks %q", out, want)
				}
			}
			if m := external.FindString(page); m != "" {
				t.Errorf("%s loads something from elsewhere: %q", out, m)
			}
		})
	}
}

func TestReportErrors(t *testing.T) {
	geo := "../../testdata/synthetic/geo-600ms-loss.pcap"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", geo}, "needs -o"},
		{[]string{"report", geo, "-o", "x.png"}, ".html"},
		{[]string{"report", geo, "-o", "x.html", "--max-conns", "0"}, "--max-conns"},
		{[]string{"report", "no-such.pcap", "-o", filepath.Join(t.TempDir(), "x.html")}, "no-such.pcap"},
		{[]string{"report", "../../testdata/manet/tcp-aodv-r1-config.txt", "-o", filepath.Join(t.TempDir(), "x.html")}, "tcp-aodv-r1-config.txt"},
	} {
		_, _, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("tcpviz %v: error %v, want one mentioning %q", c.args, err, c.want)
		}
	}
}

// TestReportPartial: of two captures, the unreadable one is left out, the
// report is written and the exit status is 3.
func TestReportPartial(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.html")
	_, stderr, err := runCLI(t, "report", "../../testdata/synthetic/geo-600ms-loss.pcap", "../../testdata/manet/tcp-aodv-r1-config.txt", "-o", out)
	if exitCode(err) != 3 || !strings.Contains(err.Error(), "1 of 2 captures") {
		t.Errorf("report with one unreadable capture of two: %v (exit %d), want exit 3, partial", err, exitCode(err))
	}
	if !strings.Contains(stderr, "tcp-aodv-r1-config.txt") {
		t.Errorf("stderr = %q, want the unreadable capture named", stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the report of the readable capture was not written: %v", err)
	}
}

func TestReportNoTCP(t *testing.T) {
	empty := filepath.Join(sharedtest.Dir(t, "corpus"), "tcpdump-empty.pcapng")
	_, _, err := runCLI(t, "report", empty, "-o", filepath.Join(t.TempDir(), "x.html"))
	if err == nil || !strings.Contains(err.Error(), "no TCP connection") || exitCode(err) != 2 {
		t.Errorf("report of a capture without TCP: %v (exit %d), want exit 2 and \"no TCP connection\"", err, exitCode(err))
	}
}

// TestReportMaxPackets: with --max-packets 1 only the largest connection of
// the PEP capture keeps its series, and report says so.
func TestReportMaxPackets(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.html")
	_, stderr, err := runCLI(t, "report", "../../testdata/sat/pep-on_window-20KB/client.pcap", "-o", out, "--max-packets", "1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "series kept for the 1 largest of 2 connections (1441 packets"; !strings.Contains(stderr, want) {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
}

// reportMeta returns the metadata embedded in a report page (base64 of
// gzipped JSON in #meta).
func reportMeta(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	i := strings.Index(page, `id="meta">`)
	j := strings.Index(page[i:], "</script>")
	if i < 0 || j < 0 {
		t.Fatalf("%s has no metadata", path)
	}
	gz, err := base64.StdEncoding.DecodeString(page[i+len(`id="meta">`) : i+j])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.NewDecoder(zr).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDemoReport: demo's report lists each shipped capture with its own
// connections (the two 20 KB satellite runs differ: 185 381 payload bytes
// without the PEP, 1 664 717 with it), and compare-pep.html overlays them.
func TestDemoReport(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCLI(t, "demo", "--out", dir); err != nil {
		t.Fatal(err)
	}
	m := reportMeta(t, filepath.Join(dir, "report.html"))
	labels := map[float64]string{}
	for i, c := range m["captures"].([]any) {
		labels[float64(i)] = c.(map[string]any)["label"].(string)
	}
	got := map[string]float64{}
	for _, c := range m["conns"].([]any) {
		row := c.(map[string]any)
		if row["conn"].(float64) == 1 {
			got[labels[row["cap"].(float64)]] = row["bytes"].([]any)[0].(float64)
		}
	}
	for label, want := range map[string]float64{"sat/pep-off_window-20KB/client.pcap": 185381, "sat/pep-on_window-20KB/client.pcap": 1664717} {
		if got[label] != want {
			t.Errorf("demo report: %s conn 1 sent %v payload bytes, want %v", label, got[label], want)
		}
	}
	cmp := reportMeta(t, filepath.Join(dir, "compare-pep.html"))
	if runs, _ := cmp["compare"].([]any); len(runs) != 2 {
		t.Errorf("compare-pep.html compares %d runs, want 2", len(runs))
	}
}
