package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFloatFlagsFinite: NaN, ±Inf, and negative values where none is
// meaningful, are usage errors (exit 1) for every float flag, given before
// any capture is read (the capture named does not exist).
func TestFloatFlagsFinite(t *testing.T) {
	never := filepath.Join(t.TempDir(), "never-read.pcap")
	for _, c := range [][]string{
		{"seq", never, "-o", "x.png", "--font-size", "NaN"},
		{"seq", never, "-o", "x.png", "--font-size", "Inf"},
		{"seq", never, "--from", "NaN"},
		{"seq", never, "--to", "+Inf"},
		{"rtt", never, "--to", "-Inf"},
		{"tput", never, "--at", "1,NaN"},
		{"compare", "a=" + never, "--at", "Inf"},
		{"compare", "a=" + never, "--from", "-1"},
		{"goodput", never, "--level", "NaN"},
		{"goodput", never, "--end", "Inf"},
		{"goodput", never, "--end", "-1"},
		{"stats", never, "--group", "protocol", "--level", "NaN"},
		{"stats", never, "--group", "protocol", "--font-size", "-Inf"},
		{"testbed", "manet", "--speed", "NaN", "--out", t.TempDir()},
		{"testbed", "manet", "--speed", "-3", "--out", t.TempDir()},
	} {
		_, _, err := runCLI(t, c...)
		if exitCode(err) != 1 || strings.Contains(err.Error(), "never-read") || !strings.Contains(err.Error(), "want") {
			t.Errorf("tcpviz %v: exit %d, %v; want a usage error naming the flag", c, exitCode(err), err)
		}
	}
}

// TestOutputChecked: the files of -o, --plot, --tables-csv, --tables-tex
// are checked (directory exists, ending known) before any capture is read,
// for goodput as for the graph verbs.
func TestOutputChecked(t *testing.T) {
	dir := t.TempDir()
	never := filepath.Join(dir, "never-read.pcap")
	missing := filepath.Join(dir, "no-such-dir")
	for _, c := range [][]string{
		{"goodput", never, "-o", filepath.Join(missing, "x.csv")},
		{"goodput", never, "-o", filepath.Join(dir, "x.foo")},
		{"goodput", never, "--group", "protocol", "--plot", filepath.Join(missing, "g.png")},
		{"goodput", never, "--group", "protocol", "--tables-csv", filepath.Join(missing, "t")},
		{"goodput", never, "--group", "protocol", "--tables-tex", filepath.Join(missing, "t.tex")},
		{"goodput", never, "--parquet", filepath.Join(missing, "x.parquet")},
		{"stats", never, "--group", "protocol", "--tables", filepath.Join(missing, "t.md")},
		{"seq", never, "-o", filepath.Join(missing, "x.png")},
		{"flows", never, "-o", filepath.Join(missing, "x.csv")},
		{"report", never, "-o", filepath.Join(missing, "x.html")},
	} {
		_, _, err := runCLI(t, c...)
		if exitCode(err) != 1 || strings.Contains(err.Error(), "never-read") {
			t.Errorf("tcpviz %v: exit %d, %v; want a usage error before reading", c, exitCode(err), err)
		}
	}
	// goodput -o x.csv writes CSV (the ending chooses, as for flows).
	out := filepath.Join(dir, "flows.csv")
	if _, _, err := runCLI(t, "goodput", "../../testdata/manet", "-o", out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if first := strings.SplitN(string(b), "\n", 2)[0]; !strings.HasPrefix(first, "file,conn,src,sport,dst,dport,") {
		t.Errorf("goodput -o flows.csv: first line %q is not the CSV header", first)
	}
}
