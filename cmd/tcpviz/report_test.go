package main

import (
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
