package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// selVerbs are the verbs that choose one connection through package query,
// each as a function of the capture path.
var selVerbs = []struct {
	name string
	args func(file string) []string
}{
	{"rtt", func(f string) []string { return []string{"rtt", f} }},
	{"retrans", func(f string) []string { return []string{"retrans", f} }},
	{"window", func(f string) []string { return []string{"window", f} }},
	{"tput", func(f string) []string { return []string{"tput", f} }},
	{"seq", func(f string) []string { return []string{"seq", f} }},
	{"compare", func(f string) []string { return []string{"compare", "a=" + f} }},
}

// TestSeams checks that the seams of issue #11 behave the same in every
// verb: a selection that matches nothing is an error (exit 2) whatever the
// output; --dir takes the same vocabulary; --ref (compare: --align) takes
// any case and a bad value is refused before the capture is read (exit 1,
// one line); a bad time range too.
func TestSeams(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "never-read.pcap")
	for _, v := range selVerbs {
		t.Run(v.name, func(t *testing.T) {
			// 1. --conn 0 --port 1 matches nothing: the same error for the
			// table and for a figure.
			for _, out := range [][]string{nil, {"-o", filepath.Join(dir, v.name+".png")}} {
				args := append(v.args(synth), "--port", "1")
				if v.name != "compare" {
					args = append(args, "--conn", "0")
				}
				_, _, err := runCLI(t, append(args, out...)...)
				if exitCode(err) != 2 || !strings.Contains(err.Error(), "no TCP connection matches") {
					t.Errorf("%v: exit %d, %v; want exit 2, no TCP connection matches", args, exitCode(err), err)
				}
			}
			// 2. One direction vocabulary, and every output kind.
			for _, ext := range []string{".csv", ".json", ".png", ".html"} {
				if v.name == "compare" && ext == ".json" {
					continue // compare writes its series as CSV
				}
				out := filepath.Join(dir, v.name+"-out"+ext)
				if _, _, err := runCLI(t, append(v.args(synth), "-o", out)...); err != nil {
					t.Errorf("%s -o %s: %v", v.name, ext, err)
				} else if st, err := os.Stat(out); err != nil || st.Size() < 100 {
					t.Errorf("%s -o %s: no output", v.name, ext)
				}
			}
			for _, d := range []string{"ab", "a2b", "AB", "ba", "b2a", "BA", "auto"} {
				args := append(v.args(synth), "--dir", d, "-o", filepath.Join(dir, v.name+"-"+d+".csv"))
				if _, _, err := runCLI(t, args...); err != nil {
					t.Errorf("%v: %v", args, err)
				}
			}
			// 3. Usage errors are found before the capture is read: the
			// capture does not exist, yet the error is about the flag.
			for _, bad := range [][]string{
				{"--dir", "a→b"},
				{"--ref", "first"},
				{"--from", "5", "--to", "2"},
				{"--from", "-1"},
				{"--conn", "-3"},
				{"--host", "10.0.0"},
				{"--port", "70000"},
				{"-o", filepath.Join(dir, "x.bmp")},
				{"--csv", "--json"},
				{"--wscale", "15"},
			} {
				args := append(v.args(missing), bad...)
				_, _, err := runCLI(t, args...)
				if v.name == "compare" && (bad[0] == "--conn" || bad[0] == "--csv") {
					continue // compare takes the connection as LABEL=FILE#N; no --csv
				}
				if v.name == "seq" && bad[0] == "--csv" {
					continue // seq writes rows with -o x.csv only
				}
				if exitCode(err) != 1 || strings.Contains(err.Error(), "never-read") || strings.Contains(err.Error(), "\n") {
					t.Errorf("%v: exit %d, %v; want exit 1 with one line about the flag", bad, exitCode(err), err)
				}
			}
			// 4. The reference point in any case.
			flag := "--ref"
			if v.name == "compare" {
				flag = "--align"
			}
			if _, _, err := runCLI(t, append(v.args(synth), flag, "SYN", "-o", filepath.Join(dir, v.name+"-syn.csv"))...); err != nil {
				t.Errorf("%s SYN: %v", flag, err)
			}
		})
	}
}

// TestGoodputSeams: goodput takes the same --dir vocabulary, refuses bad
// options before reading, accepts a directory named stats, and exits 2 when
// every capture failed (3 only when some did).
func TestGoodputSeams(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, bad := range [][]string{
		{"--dir", "a→b"},
		{"--labels", "{protocol"},
		{"--per-run", "median"},
		{"--shard", "3/2"},
		{"--pair", "seed"},
	} {
		_, _, err := runCLI(t, append([]string{"goodput", "never-read"}, bad...)...)
		if exitCode(err) != 1 || strings.Contains(err.Error(), "never-read") {
			t.Errorf("goodput %v: exit %d, %v; want exit 1 about the flag", bad, exitCode(err), err)
		}
	}
	// A directory named stats holding one capture.
	os.Mkdir("stats", 0o755)
	b, err := os.ReadFile(filepath.Join(wd(t), synth))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join("stats", "run.pcap"), b, 0o644)
	for _, d := range []string{"ab", "a2b", "AB", "auto"} {
		out, _, err := runCLI(t, "goodput", "stats", "--csv", "--dir", d)
		if err != nil || !strings.Contains(out, "stats/run.pcap") {
			t.Errorf("goodput stats/ --dir %s: %v\n%s", d, err, out)
		}
	}
	// Every capture broken: exit 2; one of two: exit 3.
	os.Mkdir("bad", 0o755)
	os.WriteFile(filepath.Join("bad", "a.pcap"), []byte("not a capture"), 0o644)
	if _, _, err := runCLI(t, "goodput", "bad"); exitCode(err) != 2 {
		t.Errorf("goodput with every capture broken: exit %d (%v), want 2", exitCode(err), err)
	}
	if _, _, err := runCLI(t, "goodput", "bad", "stats"); exitCode(err) != 3 {
		t.Errorf("goodput with one capture of two broken: exit %d (%v), want 3", exitCode(err), err)
	}
}

var startDir, _ = os.Getwd()

func wd(t *testing.T) string { return startDir }

// TestOneTimeBase joins rtt, window and seq rows on the frame number: the
// same frame has the same t_s in every output (seconds since the capture's
// first frame), and the same conn_t_s.
func TestOneTimeBase(t *testing.T) {
	dir := t.TempDir()
	read := func(args ...string) map[string][2]string {
		out := filepath.Join(dir, args[0]+".csv")
		if _, _, err := runCLI(t, append(args, "-o", out)...); err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(out)
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		m := map[string][2]string{}
		for _, r := range recs[1:] {
			m[r[col["frame"]]] = [2]string{r[col["t_s"]], r[col["conn_t_s"]]}
		}
		return m
	}
	// The PEP-off satellite capture: the connection starts well after the
	// capture's first frame, so the two columns differ.
	const cap = "../../testdata/sat/pep-off_window-20KB/client.pcap"
	rtt, win, seq := read("rtt", cap), read("window", cap), read("seq", cap)
	joined := 0
	for frame, a := range rtt {
		for _, other := range []map[string][2]string{win, seq} {
			if b, ok := other[frame]; ok {
				joined++
				if a != b {
					t.Errorf("frame %s: rtt t_s, conn_t_s = %v, other output %v", frame, a, b)
				}
			}
		}
	}
	if joined < 10 {
		t.Errorf("only %d frames joined", joined)
	}
	if a := win["14"]; a[0] == a[1] {
		t.Errorf("frame 14: t_s %s = conn_t_s %s; the connection does not start at the capture's first frame", a[0], a[1])
	}
}

// TestRangeEveryVerb: --ref bulk --from 0 --to 2 keeps, in every verb's
// rows, exactly what lies 0-2 s after the first bulk segment (0.600 s after
// the SYN of the synthetic capture): conn_t_s in [0.6, 2.6].
func TestRangeEveryVerb(t *testing.T) {
	dir := t.TempDir()
	for _, verb := range []string{"seq", "rtt", "retrans", "window", "tput"} {
		out := filepath.Join(dir, verb+".csv")
		if _, _, err := runCLI(t, verb, synth, "--ref", "bulk", "--from", "0", "--to", "2", "-o", out); err != nil {
			t.Fatalf("%s: %v", verb, err)
		}
		f, _ := os.Open(out)
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		col := -1
		for i, h := range recs[0] {
			if h == "conn_t_s" {
				col = i
			}
		}
		if col < 0 {
			t.Fatalf("%s: no conn_t_s column in %v", verb, recs[0])
		}
		if verb != "retrans" && len(recs) < 3 {
			t.Errorf("%s: %d rows in the range", verb, len(recs)-1)
		}
		for _, r := range recs[1:] {
			v, _ := strconv.ParseFloat(r[col], 64)
			if v < 0.6-1e-9 || v > 2.6+1e-9 {
				t.Errorf("%s: row %v outside [0.6, 2.6] s after the SYN", verb, r)
				break
			}
		}
	}
}
