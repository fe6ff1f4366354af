package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/figures"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/plot"
	"github.com/tcpviz/tcpviz/query"
)

// Findings of the second fresh-user trial (notes/trial14.md), each
// checked with real values.

// A2: the handshake rows are the connection's whatever --ref without a
// window (docs/schema.md#selection): 613.098 ms ab, 0.073 ms ba on the
// PEP-off data connection, 613.515 / 0.080 ms on its control connection.
// A --from/--to window given leaves them out as any sample outside it
// (trial s10: --from 500 drew them on an empty figure), and rtt notes the
// values it left out.
func TestRTTHandshakeWhateverRef(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"rtt", satOff, "--conn", "1", "--ref", "bulk"}, []string{`1\s+ab\s+bulk\s+handshake\s+1\s+613\.098`, `1\s+ba\s+bulk\s+handshake\s+1\s+0\.073`}},
		{[]string{"rtt", satOff, "--conn", "0", "--ref", "data"}, []string{`0\s+ab\s+data\s+handshake\s+1\s+613\.515`, `0\s+ba\s+data\s+handshake\s+1\s+0\.080`}},
	} {
		out, _, err := runCLI(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		for _, w := range c.want {
			if !regexp.MustCompile(w).MatchString(out) {
				t.Errorf("%v: no row %q in\n%s", c.args, w, out)
			}
		}
	}
	out, _, err := runCLI(t, "rtt", satOff, "--ref", "bulk", "--from", "2", "--to", "4", "--csv")
	if err != nil {
		t.Fatal(err)
	}
	col, rows := readCSV(t, out)
	hs := map[string]string{}
	for _, r := range rows {
		if r[col["method"]] == "handshake" {
			hs[r[col["dir"]]] = r[col["rtt_ms"]]
		}
	}
	if len(hs) != 0 {
		t.Errorf("handshake rows with --ref bulk --from 2 --to 4: %v, want none (taken before the window)", hs)
	}
	out, errOut, err := runCLI(t, "rtt", satOff, "--conn", "1", "--from", "2", "--to", "6")
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`handshake\s+1`).MatchString(out) {
		t.Errorf("--from 2 --to 6: a handshake row in\n%s", out)
	}
	if !strings.Contains(errOut, "the handshake RTT (ab 613.098 ms") || !strings.Contains(errOut, "ba 0.073 ms") {
		t.Errorf("--from 2 --to 6: no note of the handshake RTT left out in\n%s", errOut)
	}
}

// A1: compare mode's picker gives start_s as flows does (seconds since
// the capture's first frame): the 20 KB pair runs' data connections start
// 1.835723 (client side) / 1.835306 (server side) without the PEP and
// 1.837751 / 1.840429 with it.
func TestCompareReportStart(t *testing.T) {
	const p = "../../testdata/sat-pair/"
	out := filepath.Join(t.TempDir(), "cmp.html")
	if _, _, err := runCLI(t, "compare", "nopep="+p+"pep-off_window-20KB/client.pcap.gz+"+p+"pep-off_window-20KB/server.pcap.gz",
		"pep="+p+"pep-on_window-20KB/client.pcap.gz+"+p+"pep-on_window-20KB/server.pcap.gz", "-o", out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range reportMeta(t, out)["conns"].([]any) {
		got = append(got, fmt.Sprintf("%.6f", c.(map[string]any)["start_s"].(float64)))
	}
	if want := []string{"1.835723", "1.835306", "1.837751", "1.840429"}; !slices.Equal(got, want) {
		t.Errorf("picker start_s %v, want %v (flows')", got, want)
	}
}

// A3: summary rows that are the whole connection's say so when a window
// is given: slow start ended 1.226 s after the bulk start, outside
// [2, 6]; the pair's per-leg RTTs (13.3, 603.1 ms) and held bytes
// (1682360) are whole-connection numbers.
func TestSummaryRowsOutsideWindow(t *testing.T) {
	const p = "../../testdata/sat-pair/"
	out, _, err := runCLI(t, "tput", p+"pep-off_window-20KB/client.pcap.gz", "--from", "2", "--to", "6")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "1.226 s after the reference point (rule: growth, frame 59); outside the window") {
		t.Errorf("tput --from 2 --to 6: slow-start row not marked outside the window:\n%s", out)
	}
	out, _, err = runCLI(t, "tput", p+"pep-off_window-20KB/client.pcap.gz", "--from", "1", "--to", "6")
	if err != nil || strings.Contains(out, "outside the window") {
		t.Errorf("tput --from 1 --to 6 (slow start ends inside): %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "compare", "nopep="+p+"pep-off_window-20KB/client.pcap.gz+"+p+"pep-off_window-20KB/server.pcap.gz",
		"pep="+p+"pep-on_window-20KB/client.pcap.gz+"+p+"pep-on_window-20KB/server.pcap.gz", "--from", "2", "--to", "6")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`slow start ended \(whole connection\)\s+s\s+1\.226\s+0\.021`, `RTT client↔PEP \(whole connection\)\s+ms\s+–\s+13\.3`,
		`RTT PEP↔server \(whole connection\)\s+ms\s+–\s+603\.1`, `held in PEP max \(whole connection\)\s+bytes\s+–\s+1682360`} {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("compare --from 2 --to 6: no row %q in\n%s", w, out)
		}
	}
}

// B5: goodput's --order/--pairs repeats, groups no file name gives, and
// a bad or lone --starts-rename are usage errors (exit 1) found before a
// capture is read: the captures here are not captures at all (each with
// its own bytes: byte-identical copies with other labels are an error of
// their own).
func TestGoodputStudyFlagsUpFront(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"tcp-aodv-r1-0-0.pcap", "tcp-olsr-r1-0-0.pcap", "tcp-aodv-r2-0-0.pcap"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("not a capture: "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"goodput", dir, "--labels", manetLabels, "--group", "protocol", "--pair", "seed"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--order", "aodv,aodv"}, "--order names aodv twice"},
		{[]string{"--order", "aodv,foo"}, "--order names protocol=foo, but no capture's name gives it (groups: aodv, olsr)"},
		{[]string{"--pairs", "aodv:foo"}, "--pairs aodv:foo names protocol=foo, but no capture's name gives it (groups: aodv, olsr)"},
		{[]string{"--pairs", "aodv:olsr,aodv:olsr"}, "--pairs names aodv:olsr twice"},
		{[]string{"--starts-rename", "run=seed"}, "--starts-rename renames columns of --starts FILE: give --starts too"},
		{[]string{"--starts", filepath.Join(dir, "none.csv"), "--starts-rename", "run"}, `--starts-rename "run": want OLD=NEW`},
	} {
		_, _, err := runCLI(t, append(base, c.args...)...)
		if exitCode(err) != 1 || err == nil || err.Error() != c.want {
			t.Errorf("%v: exit %d, %v; want exit 1, %q", c.args, exitCode(err), err, c.want)
		}
	}
}

// B7: an explicit --conn N still says which connection and data
// direction every verb reads.
func TestExplicitConnNote(t *testing.T) {
	const want = "client.pcap: using conn 0 (10.77.1.2:34704 ↔ 10.77.2.2:5201, 823 payload bytes; as --conn 0 asks), data ab"
	for _, v := range []string{"rtt", "retrans", "window", "tput"} {
		_, errb, err := runCLI(t, v, satOff, "--conn", "0")
		if err != nil || !strings.Contains(errb, want) {
			t.Errorf("%s --conn 0: %v; stderr lacks %q:\n%s", v, err, want, errb)
		}
	}
	_, errb, err := runCLI(t, "seq", satOff, "--conn", "0", "--dir", "ba", "-o", filepath.Join(t.TempDir(), "s.csv"))
	if err != nil || !strings.Contains(errb, "as --conn 0 asks), data ba") {
		t.Errorf("seq --conn 0 --dir ba: %v\n%s", err, errb)
	}
	// compare has no --conn: its runs name a connection as FILE#N.
	_, errb, err = runCLI(t, "compare", "x="+satOff+"#0", "y="+satOn)
	if err != nil || !strings.Contains(errb, "823 payload bytes; as FILE#0 asks), data ab") || !strings.Contains(errb, "the largest of 2 matching; FILE#N picks another), data ab") {
		t.Errorf("compare x=FILE#0 y=FILE: %v\n%s", err, errb)
	}
}

// C11: seq names the ACK line of a direction a split-TCP PEP acknowledged
// as the PEP's, in the figure's legend; without a PEP it stays the
// cumulative ACK.
func TestSeqPEPAckLegend(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{satOn, "ACK, likely from a PEP (accepted, not end-to-end)"},
		{satOff, "cumulative ACK"},
	} {
		v, err := query.Analyze(c.file, query.All(), query.PlanSeq(query.Want{Figure: true}, false))
		if err != nil {
			t.Fatal(err)
		}
		f, err := plot.TimeSeq(v.Conn, figures.SeqOptions(v, "run"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range f.Legend {
			names = append(names, e.Name)
		}
		if !slices.Contains(names, c.want) {
			t.Errorf("%s: legend %q lacks %q", c.file, names, c.want)
		}
	}
}

// B8: --interval takes plain seconds as --from/--to do (3 = 3s, 0.7 =
// 700ms); the first row of --from 2.3 --interval 0.7 is cut to 0.5 s
// (the grid is laid from the reference point: docs/schema.md#tput).
func TestIntervalPlainSeconds(t *testing.T) {
	first := func(args ...string) []string {
		t.Helper()
		out, _, err := runCLI(t, append([]string{"tput", satOff, "--csv"}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		col, rows := readCSV(t, out)
		return []string{rows[0][col["interval_s"]], rows[0][col["t_s"]]}
	}
	for _, c := range []struct{ a, b string }{{"3", "3s"}, {"0.7", "700ms"}} {
		if x, y := first("--interval", c.a), first("--interval", c.b); !slices.Equal(x, y) || x[0] != map[string]string{"3": "3.000000", "0.7": "0.700000"}[c.a] {
			t.Errorf("--interval %s: first row %v; --interval %s: %v", c.a, x, c.b, y)
		}
	}
	if got := first("--from", "2.3", "--interval", "0.7"); got[0] != "0.500000" {
		t.Errorf("--from 2.3 --interval 0.7: first interval_s %s, want 0.500000", got[0])
	}
	_, _, err := runCLI(t, "tput", satOff, "--interval", "abc")
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "want seconds (e.g. 0.5) or a duration (e.g. 500ms)") {
		t.Errorf("--interval abc: exit %d, %v", exitCode(err), err)
	}
}

// B9: goodput --parquet x.csv is refused (Parquet under a CSV name),
// exit 1, nothing written; x.parquet is accepted.
func TestParquetName(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.csv")
	_, _, err := runCLI(t, "goodput", "../../testdata/manet", "--parquet", out)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "the file would hold Parquet under a .csv name") {
		t.Errorf("--parquet x.csv: exit %d, %v", exitCode(err), err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--parquet x.csv wrote %s", out)
	}
	if err := (&goodputFlags{parquetOut: "x.parquet"}).checkParquetName(); err != nil {
		t.Errorf("x.parquet: %v", err)
	}
}

// C13: a one-capture report is titled with the run folder, as figure
// titles are (report and a graph verb's -o x.html).
func TestReportTitleNamesRun(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"report", satOn}, {"seq", satOn}} {
		out := filepath.Join(dir, args[0]+".html")
		if _, _, err := runCLI(t, append(args, "-o", out)...); err != nil {
			t.Fatal(err)
		}
		if got := reportMeta(t, out)["title"]; got != "tcpviz report: pep-on_window-20KB/client.pcap" {
			t.Errorf("%s -o x.html: title %q, want the run folder named", args[0], got)
		}
	}
}

// A pair given server side first (LABEL=SERVER+CLIENT) is put back in
// order for its series too, not only for its summary: the seq rows are
// those of the pair given in order (they came from the server-side
// capture: 423 rows instead of 1557).
func TestSwappedPairSeries(t *testing.T) {
	const p = "../../testdata/sat-pair/pep-on_window-20KB/"
	dir := t.TempDir()
	var got [2]string
	for i, run := range []string{"a=" + p + "client.pcap.gz+" + p + "server.pcap.gz", "a=" + p + "server.pcap.gz+" + p + "client.pcap.gz"} {
		out := filepath.Join(dir, fmt.Sprintf("%d.csv", i))
		if _, _, err := runCLI(t, "compare", run, "--metric", "seq", "-o", out); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		got[i] = string(b)
	}
	if n := strings.Count(got[0], "\n"); got[1] != got[0] || n != 1558 {
		t.Errorf("seq rows: %d in order, %d swapped (want the same 1557 rows and header)", n, strings.Count(got[1], "\n"))
	}
}

// C12: a compare figure names each run's reference point when some fell
// back (the control connection has no bulk segment: its first data
// segment, 0.611 s after its SYN), in the PNG's x label (compare
// TestRefLabel) and in the HTML report's run labels.
func TestCompareFallbackNamed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.html")
	if _, _, err := runCLI(t, "compare", "x=../../testdata/sat-pair/pep-off_window-20KB/client.pcap.gz#0", "y="+synth, "-o", out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range reportMeta(t, out)["compare"].([]any) {
		m := c.(map[string]any)
		got = append(got, fmt.Sprintf("%s %v", m["label"], m["ref_us"]))
	}
	if want := []string{"x (aligned at the first data segment) 611432", "y 600000"}; !slices.Equal(got, want) {
		t.Errorf("compare runs %q, want %q", got, want)
	}
}

// Trial s10: a window that lasts no time (zeek-tcp-options: --ref data
// falls back to its one data segment, the connection's last packet) has
// one interval of width 0: its rates are empty, not 0.000, and the summary
// says there is no rate instead of "the rows add up to it".
func TestTputInstantWindow(t *testing.T) {
	p := filepath.Join(sharedtest.Dir(t, "corpus"), "zeek-tcp-options.pcap")
	out, _, err := runCLI(t, "tput", p, "--csv")
	if err != nil {
		t.Fatal(err)
	}
	if want := "0,ab,0.191119,0.191119,0.000000,,,0,receiver\n"; !strings.HasSuffix(out, want) {
		t.Errorf("rows:\n%s\nwant the last %q", out, want)
	}
	out, _, err = runCLI(t, "tput", p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "104 payload bytes (retransmissions included) in a window that lasts no time: no rate") {
		t.Errorf("summary:\n%s", out)
	}
}

// Trial s9: flows and goodput -o x.md wrote the aligned text table as it
// is, which Markdown renders as one paragraph: it is now fenced.
func TestMarkdownOutputFenced(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "f.md")
	if _, _, err := runCLI(t, "flows", satOff, "-o", md); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(md)
	if s := string(b); !strings.HasPrefix(s, "```text\n") || !strings.HasSuffix(s, "\n```\n") || !strings.Contains(s, "handshake") {
		t.Errorf("flows -o f.md:\n%s", s)
	}
	txt := filepath.Join(dir, "f.txt")
	if _, _, err := runCLI(t, "flows", satOff, "-o", txt); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(txt); strings.Contains(string(b), "```") {
		t.Errorf("flows -o f.txt fenced:\n%s", b)
	}
}

// Trial s10: the README's paper setting (8.5 × 6 cm, 8 pt) draws the RTT
// figure of the satellite testbed's runs: its upper panel's x axis is
// unlabelled (the stack shares the one under the last panel), which gives
// the two panels the room the size check asks for.
func TestPaperSizeRTT(t *testing.T) {
	for _, f := range []string{"../../testdata/sat/pep-off_window-default/client.pcap.gz", "../../testdata/sat/pep-on_window-default/client.pcap.gz"} {
		out := filepath.Join(t.TempDir(), "r.png")
		if _, _, err := runCLI(t, "rtt", f, "--size", "8.5x6cm", "--font-size", "8", "-o", out); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// Trial s10: flows takes --port and --host as the other verbs do, and
// keeps the capture's connection indexes (ns-3 aodv r1 node 10: port 9001
// is conn 2, port 9000 conn 1) in the table, CSV and JSON; rows after a
// left-out connection are not held back.
func TestFlowsPortHost(t *testing.T) {
	f := filepath.Join(sharedtest.Dir(t, "ns3"), "tcp-aodv-r1-10-0.pcap.gz")
	out, _, err := runCLI(t, "flows", f, "--port", "9001", "--csv")
	if err != nil {
		t.Fatal(err)
	}
	col, rows := readCSV(t, out)
	if len(rows) != 1 || rows[0][col["conn"]] != "2" || rows[0][col["b_port"]] != "9001" {
		t.Errorf("--port 9001 --csv: %v", rows)
	}
	out, _, err = runCLI(t, "flows", f, "--host", "10.1.0.3")
	if err != nil || !regexp.MustCompile(`(?m)^\s+1\s+10\.1\.0\.3:49152\s+10\.1\.0\.11:9000`).MatchString(out) || strings.Contains(out, "10.1.0.15") {
		t.Errorf("--host 10.1.0.3: err %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "flows", f, "--port", "9003", "--json")
	if err != nil || !strings.Contains(out, `"conn": 3`) || strings.Contains(out, `"conn": 0`) {
		t.Errorf("--port 9003 --json: err %v\n%s", err, out)
	}
}

// Trial s10: goodput --plot draws both figures before writing either: the
// pairs figure, too small for its labels at 6x12cm, wrote the groups
// figure and printed its path before failing.
func TestGoodputPlotAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	fig := filepath.Join(dir, "g.png")
	_, _, err := runCLI(t, "goodput", sharedtest.Dir(t, "ns3"), "--labels", "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap", "--group", "protocol", "--pair", "seed", "--end", "100", "--size", "6x12cm", "--plot", fig)
	if err == nil || !strings.Contains(err.Error(), "g.pairs.png: figure too small") {
		t.Errorf("err %v, want the pairs figure refused", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files written: %v", ents)
	}
}

// Trial s10: a compare grid names its panels instead of a legend; it drew
// every run and still warned that it drew nothing.
func TestCompareGridNotEmpty(t *testing.T) {
	const p = "../../testdata/sat-pair/"
	out := filepath.Join(t.TempDir(), "g.png")
	_, errs, err := runCLI(t, "compare", "nopep="+p+"pep-off_window-20KB/client.pcap.gz", "pep="+p+"pep-on_window-20KB/client.pcap.gz", "--layout", "grid", "-o", out)
	if err != nil || strings.Contains(errs, "draws nothing") {
		t.Errorf("err %v, stderr:\n%s", err, errs)
	}
}
