package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// TestCompareConflicts: compare refuses, before reading any capture,
// --align and --ref naming different points (trial13 B4), a label given
// twice and one run given twice (B5); --align alone, or equal to --ref,
// is the reference point.
func TestCompareConflicts(t *testing.T) {
	never := filepath.Join(t.TempDir(), "never-read.pcap")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "a=" + never, "--align", "data", "--ref", "bulk"}, "--align data and --ref bulk: --align is another name for --ref; give one"},
		{[]string{"compare", "a=" + never, "a=" + never}, "duplicate run: label \"a\" names"},
		{[]string{"compare", "a=" + never, "b=" + never}, "are the same run"},
	} {
		_, _, err := runCLI(t, c.args...)
		if exitCode(err) != 1 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("tcpviz %s: exit %d, %v; want exit 1 with %q", strings.Join(c.args, " "), exitCode(err), err, c.want)
		}
	}
	for _, a := range [][]string{{"--align", "data"}, {"--align", "data", "--ref", "data"}} {
		out, _, err := runCLI(t, append([]string{"compare", "a=" + synth}, a...)...)
		if err != nil || !strings.Contains(out, "aligned at the first data segment") {
			t.Errorf("compare %v: %v; output %q, want aligned at the first data segment", a, err, out)
		}
	}
}

// TestStatsAlias: 'goodput stats CSV' is the old name of 'tcpviz stats'
// only while nothing named stats exists; a path that exists is a path,
// and the user is told (trial13 B8).
func TestStatsAlias(t *testing.T) {
	t.Chdir(t.TempDir())
	if alias, note := statsAlias([]string{"stats", "flows.csv"}); !alias || !strings.Contains(note, "is now 'tcpviz stats'") {
		t.Errorf("no file named stats: alias %v, note %q; want the alias", alias, note)
	}
	if alias, note := statsAlias([]string{"runs", "stats"}); alias || note != "" {
		t.Errorf("stats as second path: alias %v, note %q", alias, note)
	}
	if err := os.WriteFile("stats", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if alias, note := statsAlias([]string{"stats", "flows.csv"}); alias || !strings.Contains(note, "'stats' is read as a path") {
		t.Errorf("a file named stats: alias %v, note %q; want a path with a note", alias, note)
	}
	_, stderr, _ := runCLI(t, "goodput", "stats")
	if !strings.Contains(stderr, "'stats' is read as a path") {
		t.Errorf("goodput stats with a file named stats: stderr %q lacks the note", stderr)
	}
}

// TestGoodputGroupChecked: --group and --pair are checked against the
// label names of --labels before any capture is read, and nothing is
// written (trial13 B3).
func TestGoodputGroupChecked(t *testing.T) {
	dir := t.TempDir()
	never := filepath.Join(dir, "never-read")
	out := filepath.Join(dir, "flows.csv")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--labels", manetLabels, "--group", "protcol"}, "--group protcol: not a label of --labels " + manetLabels + " (its labels: transport, protocol, seed, node, dev)"},
		{[]string{"--group", "protocol"}, "--group protocol: the runs have no labels; name them with --labels PATTERN"},
		{[]string{"--labels", manetLabels, "--group", "protocol", "--pair", "sed"}, "--pair sed: not a label of"},
		{[]string{"--labels", manetLabels, "--group", "protocol", "--pair", "protocol"}, "--pair protocol: the pairing label must differ from --group"},
	} {
		_, _, err := runCLI(t, append([]string{"goodput", never, "-o", out}, c.args...)...)
		if exitCode(err) != 1 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("goodput %v: exit %d, %v; want exit 1 with %q", c.args, exitCode(err), err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("goodput %v wrote %s", c.args, out)
		}
	}
	// Knowable from the file names: refused before a capture is read
	// (trial14 B5; trial14_test.go), and -o is not written.
	stdout, _, err := runCLI(t, "goodput", "../../testdata/manet", "--labels", manetLabels, "--group", "protocol", "--order", "aodv,foo", "-o", out)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "--order names protocol=foo, but no capture's name gives it") || stdout != "" {
		t.Errorf("goodput --order aodv,foo: exit %d, %v, stdout %q", exitCode(err), err, stdout)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("goodput --order aodv,foo wrote %s", out)
	}
}

// TestStatsReproducesGoodput: 'tcpviz stats' of goodput's CSV prints
// goodput's tables digit for digit (trial13 A7: the olsr CI's upper end
// 3574.852 printed 3574.8 from the 3-decimal rates), and the CSV given
// twice is counted once with a warning, not doubled (A5: aodv 2198.3 =
// 2 × 1099.1).
func TestStatsReproducesGoodput(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	csv := filepath.Join(t.TempDir(), "flows.csv")
	want, _, err := runCLI(t, "goodput", ns3, "--labels", manetLabels, "--group", "protocol", "--pair", "seed", "-o", csv)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"| aodv | 2 | 1099.1 [85.7, 2112.6] |", "| olsr | 2 | 1287.5 [−999.8, 3574.9] |"} {
		if !strings.Contains(want, line) {
			t.Errorf("goodput tables lack %q:\n%s", line, want)
		}
	}
	got, _, err := runCLI(t, "stats", csv, "--group", "protocol", "--pair", "seed")
	if err != nil || got != want {
		t.Errorf("stats flows.csv: %v\n%s\nwant goodput's tables\n%s", err, got, want)
	}
	got, stderr, err := runCLI(t, "stats", csv, csv, "--group", "protocol", "--pair", "seed")
	if err != nil || got != want {
		t.Errorf("stats flows.csv flows.csv: %v\n%s\nwant goodput's tables\n%s", err, got, want)
	}
	if w := "warning: 24 flows given twice (same file, run, flow and labels, same numbers) counted once, e.g. " + csv + " (argument 2) line 2 repeats " + csv + " (argument 1) line 2"; !strings.Contains(stderr, w) {
		t.Errorf("stats flows.csv flows.csv: stderr %q lacks %q", stderr, w)
	}
}

// TestDocsDSDVWithoutGroundTruth: docs/metrics.md#interval's DSDV mean
// without the ground truth is the one goodput prints (trial13 B15: the
// docs said 1816.3, the tool 1816.4; 1816.3 is with --end 100, checked by
// TestGoodputLateWarning).
func TestDocsDSDVWithoutGroundTruth(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	doc, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), "puts the DSDV mean at 1816.4 kbit/s (`goodput --no-groundtruth`; 1816.3 with `--end 100`") {
		t.Error("docs/metrics.md no longer gives the DSDV mean without ground truth as 1816.4 (1816.3 with --end 100)")
	}
	out, _, err := runCLI(t, "goodput", ns3, "--labels", manetLabels, "--group", "protocol", "--no-groundtruth", "-o", filepath.Join(t.TempDir(), "f.csv"))
	if err != nil || !strings.Contains(out, "| dsdv | 2 | 1816.4 ") {
		t.Errorf("goodput --no-groundtruth: %v\n%s\nwant dsdv mean 1816.4", err, out)
	}
}

// TestCompareHTMLPairs: compare -o x.html of the README's client/server
// pairs (trial13 B11) holds each pair's server side as its own run,
// aligned where its client side is and drawn in its colour (with), and
// shows each run's end-to-end goodput as the CLI table prints it (nopep
// 283.8, pep 290.3 kbit/s), while the picker's column says it is over the
// whole connection.
func TestCompareHTMLPairs(t *testing.T) {
	const p = "../../testdata/sat-pair/"
	out := filepath.Join(t.TempDir(), "cmp.html")
	table, _, err := runCLI(t, "compare",
		"nopep="+p+"pep-off_window-20KB/client.pcap.gz+"+p+"pep-off_window-20KB/server.pcap.gz",
		"pep="+p+"pep-on_window-20KB/client.pcap.gz+"+p+"pep-on_window-20KB/server.pcap.gz", "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(table), " "), "goodput end to end kbit/s 283.8 290.3") {
		t.Fatalf("table lacks 'goodput end to end 283.8 290.3':\n%s", table)
	}
	m := reportMeta(t, out)
	runs, _ := m["compare"].([]any)
	if len(runs) != 4 {
		t.Fatalf("%d compare runs, want 4 (two pairs, each with its server side)", len(runs))
	}
	run := func(i int) map[string]any { return runs[i].(map[string]any) }
	for i, want := range []struct {
		label string
		e2e   string
	}{{"nopep", "283.8"}, {"nopep server side (delivered end to end)", ""}, {"pep", "290.3"}, {"pep server side (delivered end to end)", ""}} {
		r := run(i)
		e2e := ""
		if k, ok := r["e2e_kbps"].(float64); ok {
			e2e = strconv.FormatFloat(k, 'f', 1, 64)
		}
		if r["label"] != want.label || e2e != want.e2e {
			t.Errorf("run %d: label %q, end-to-end %q kbit/s; want %q, %q", i, r["label"], e2e, want.label, want.e2e)
		}
		if i%2 == 1 {
			if r["with"] != run(i - 1)["view"] || r["ref_us"] == nil {
				t.Errorf("run %d (server side): with %v ref_us %v; want with = view %v and its own alignment", i, r["with"], r["ref_us"], run(i - 1)["view"])
			}
		}
	}
	page, _ := os.ReadFile(out)
	if !strings.Contains(string(page), "goodput a→b (whole conn.)") {
		t.Error("the picker's goodput column does not say it is over the whole connection")
	}
}

// TestStatsGroupChecked: stats checks --group and --pair against the
// label columns of its CSVs before any table is written (trial13 B3).
func TestStatsGroupChecked(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "flows.csv")
	if _, _, err := runCLI(t, "goodput", "../../testdata/manet", "--labels", manetLabels, "-o", csv); err != nil {
		t.Fatal(err)
	}
	tables := filepath.Join(dir, "t")
	out, _, err := runCLI(t, "stats", csv, "--group", "protcol", "--tables-csv", tables)
	if want := "--group protcol: not a label of " + csv + " (its labels: dev, node, protocol, seed, transport)"; exitCode(err) != 1 || !strings.Contains(err.Error(), want) {
		t.Errorf("stats --group protcol: exit %d, %v; want exit 1 with %q", exitCode(err), err, want)
	}
	if _, serr := os.Stat(tables + ".groups.csv"); out != "" || serr == nil {
		t.Errorf("stats --group protcol wrote tables: stdout %q", out)
	}
}
