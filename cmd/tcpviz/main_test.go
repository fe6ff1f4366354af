package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from current output")

const synth = "../../testdata/synthetic/geo-600ms-loss.pcap"

const manetLabels = "{transport}-{protocol}-r{seed}-{node}-{dev}.pcap"

// tcpviz runs the CLI in-process and returns stdout, stderr and the error.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if err != nil {
		return 1
	}
	return 0
}

func TestHelpOnEveryCommand(t *testing.T) {
	e := &env{ctx: context.Background(), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	root := newRoot(e)
	var walk func(path []string, cmds []string)
	_ = walk
	for _, c := range root.Commands() {
		names := [][]string{{c.Name()}}
		for _, sub := range c.Commands() {
			names = append(names, []string{c.Name(), sub.Name()})
		}
		for _, n := range names {
			out, _, err := runCLI(t, append(n, "--help")...)
			if err != nil || !strings.Contains(out, "Usage:") {
				t.Errorf("tcpviz %s --help: err %v, output %q", strings.Join(n, " "), err, out)
			}
		}
	}
}

// TestGolden checks the text outputs on the project's synthetic 600 ms-RTT
// capture (one fast retransmission and one RTO per loss, by construction).
// Run 'go test ./cmd/tcpviz -update' to rewrite them, then review the diff.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"flows", []string{"flows", synth}},
		{"flows-csv", []string{"flows", "--csv", synth}},
		{"rtt", []string{"rtt", synth}},
		{"retrans", []string{"retrans", synth}},
		{"retrans-csv", []string{"retrans", synth, "--csv"}},
		{"tput", []string{"tput", synth, "--bytes", "100000"}},
		{"window", []string{"window", synth}},
		// The satellite testbed's client captures, 20 KB window, without and
		// with the PEP: the study's comparison.
		{"compare-pep", []string{"compare", "nopep=../../testdata/sat/pep-off_window-20KB/client.pcap", "pep=../../testdata/sat/pep-on_window-20KB/client.pcap"}},
		// The shipped ns-3 MANET runs (AODV and OLSR, seed 1): per-flow
		// rows and the study's tables.
		{"goodput", []string{"goodput", "../../testdata/manet", "--labels", manetLabels, "--group", "protocol", "--pair", "seed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := runCLI(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Errorf("tcpviz %s differs from %s; run 'go test ./cmd/tcpviz -update' and review the diff\ngot:\n%s", strings.Join(c.args, " "), golden, out)
			}
		})
	}
}

func TestSyntheticKnownValues(t *testing.T) {
	out, _, err := runCLI(t, "retrans", synth, "--csv")
	if err != nil {
		t.Fatal(err)
	}
	// Segment 45 (seq 65161) lost once: fast retransmit; the RTO timer,
	// not restarted, fires again before its ACK: spurious, as the first ACK
	// covering it echoes the fast retransmission's TSval (Eifel, RFC 3522).
	// Segment 210 (seq 304081) lost twice: fast retransmit, lost again,
	// then the RTO.
	for _, want := range []string{"108,fast,65161,1448,61", "138,spurious,65161,1448,61", "368,fast,304081,1448,340", "381,rto,304081,1448,340"} {
		if !strings.Contains(out, want) {
			t.Errorf("retrans --csv lacks %q", want)
		}
	}
	out, _, _ = runCLI(t, "rtt", synth, "--method", "ack", "--csv")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		f := strings.Split(line, ",")
		var v float64
		fmt.Sscan(f[5], &v)
		if f[2] == "ack" && v != 600 && v != 640 {
			t.Errorf("ACK RTT sample %s ms: the path is 600 ms, the receiver holds ACKs 40 ms at most", f[5])
			break
		}
	}
}

func TestBadInputExitStatus(t *testing.T) {
	dir := t.TempDir()
	notCap := filepath.Join(dir, "notes.txt")
	os.WriteFile(notCap, []byte("hello, this is not a capture\n"), 0o644)
	for _, args := range [][]string{
		{"flows", notCap},
		{"flows", filepath.Join(dir, "missing.pcap")},
		{"seq", notCap},
		{"rtt", notCap},
	} {
		_, _, err := runCLI(t, args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), filepath.Base(args[1])) {
			t.Errorf("tcpviz %v: exit %d, error %v; want exit 2 naming the file", args, exitCode(err), err)
		}
	}
	// Flags after the file, as users type them.
	if _, _, err := runCLI(t, "flows", synth, "--csv"); err != nil {
		t.Errorf("flags after the file: %v", err)
	}
}

func TestSeqOutputsAtomic(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range []string{".png", ".svg", ".pdf", ".csv", ".json"} {
		out := filepath.Join(dir, "seq"+ext)
		if _, _, err := runCLI(t, "seq", synth, "-o", out); err != nil {
			t.Fatalf("seq -o %s: %v", ext, err)
		}
		if st, err := os.Stat(out); err != nil || st.Size() == 0 {
			t.Errorf("seq -o %s: no output", ext)
		}
	}
	bad := filepath.Join(dir, "seq.xyz")
	if _, _, err := runCLI(t, "seq", synth, "-o", bad); err == nil {
		t.Errorf("seq -o .xyz: no error")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if _, err := os.Stat(bad); err == nil || len(left) > 0 {
		t.Errorf("a failed output left files behind: %v", left)
	}
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runCLI(t, "demo", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.Fields(out)
	pngs := 0
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("demo printed %s, which does not exist", p)
		}
		if strings.HasSuffix(p, ".png") {
			pngs++
		}
	}
	if pngs < 10 {
		t.Errorf("demo wrote %d figures, want one per shipped capture (≥ 10)", pngs)
	}
	// The goodput rows name the shipped captures, not demo's temporary copies.
	b, err := os.ReadFile(filepath.Join(dir, "manet.goodput.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 5 {
		t.Fatalf("manet.goodput.csv: %d lines, want a header and 4 flows", len(lines))
	}
	for _, l := range lines[1:] {
		file := strings.Split(l, ",")[0]
		if _, err := os.Stat(filepath.Join("../..", file)); err != nil || !strings.HasPrefix(file, "testdata/manet/tcp-") || !strings.Contains(l, ",testdata/manet/tcp-") {
			t.Errorf("manet.goodput.csv row names %q (and its run) not as the shipped testdata/manet/… capture: %s", file, l)
		}
	}
}

// TestComparePEP checks the satellite study's qualitative results on the
// shipped testbed captures: with the PEP the sender's RTT is the short local
// one, slow start ends sooner, and many times more bytes are acknowledged
// 1 s after the bulk transfer starts.
func TestComparePEP(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runCLI(t, "compare", "nopep=../../testdata/sat/pep-off_window-20KB/client.pcap",
		"pep=../../testdata/sat/pep-on_window-20KB/client.pcap", "-o", filepath.Join(dir, "seq.png"))
	if err != nil {
		t.Fatal(err)
	}
	val := func(metric string) (a, b float64) {
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) >= 5 && strings.Join(f[:len(f)-4], " ") == metric {
				fmt.Sscan(f[len(f)-3], &a)
				fmt.Sscan(f[len(f)-2], &b)
			}
		}
		return
	}
	if a, b := val("RTT ack p50"); a < 590 || a > 700 || b > 50 {
		t.Errorf("ACK RTT p50: %v ms without PEP (want ≈ 600), %v ms with (want < 50)", a, b)
	}
	if a, b := val("acked after 1 s"); b < 20*a {
		t.Errorf("acked after 1 s: %v without PEP, %v with; want many times more with the PEP", a, b)
	}
	if a, b := val("slow start ended"); !(b < a) {
		t.Errorf("slow start ended at %v s without PEP, %v s with; want sooner with the PEP", a, b)
	}
}

// TestStatsGolden merges a per-flow CSV written by 'goodput --csv' with
// 'tcpviz stats'; the old 'goodput stats' still works, with a note.
func TestStatsGolden(t *testing.T) {
	rows := filepath.Join(t.TempDir(), "flows.csv")
	if _, _, err := runCLI(t, "goodput", "../../testdata/manet", "--labels", manetLabels, "--csv", "-o", rows); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "stats", rows, "--group", "protocol", "--pair", "seed")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "stats.golden")
	if *update {
		os.WriteFile(golden, []byte(out), 0o644)
	}
	if want, _ := os.ReadFile(golden); out != string(want) {
		t.Errorf("tcpviz stats differs from %s (-update rewrites it)\ngot:\n%s", golden, out)
	}
	old, errOut, err := runCLI(t, "goodput", "stats", rows, "--group", "protocol", "--pair", "seed")
	if err != nil || old != out || !strings.Contains(errOut, "now 'tcpviz stats'") {
		t.Errorf("goodput stats: %v, note %q, output equal to stats: %v", err, errOut, old == out)
	}
}
