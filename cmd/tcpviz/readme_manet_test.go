package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// shellWords splits a command line as a POSIX shell would for the README's
// examples: blanks separate words, single quotes protect.
func shellWords(s string) []string {
	var out []string
	var b strings.Builder
	in, quoted := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// TestReadmeManetCommand runs the README's MANET goodput command exactly
// as printed there (only ../shared/ns3 resolved and -o pointed at a
// temporary file) and checks the per-protocol means against ns-3's ground
// truth: within 1 % of aodv 1099.1, dsdv 1326.4, olsr 1287.5 kbit/s, with
// no late-flow warning (the ground truth next to the captures gives every
// application's start).
func TestReadmeManetCommand(t *testing.T) {
	ns3 := sharedtest.Dir(t, "ns3")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(readme), "\n") {
		if s := strings.TrimSpace(l); strings.HasPrefix(s, "$ tcpviz goodput ../shared/ns3 ") {
			line = strings.TrimPrefix(s, "$ tcpviz ")
			break
		}
	}
	if line == "" {
		t.Fatal("README has no '$ tcpviz goodput ../shared/ns3 ...' command")
	}
	args := shellWords(line)
	for i, a := range args {
		switch {
		case a == "../shared/ns3":
			args[i] = ns3
		case i > 0 && (args[i-1] == "-o" || args[i-1] == "--output"):
			args[i] = filepath.Join(t.TempDir(), a)
		}
	}
	out, errOut, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("tcpviz %s: %v\n%s", line, err, errOut)
	}
	if strings.Contains(errOut, "warning") {
		t.Errorf("warnings on the README's command:\n%s", errOut)
	}
	want := map[string]float64{"aodv": 1099.1, "dsdv": 1326.4, "olsr": 1287.5}
	got := map[string]float64{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Split(l, "|")
		if len(f) < 5 {
			continue
		}
		g := strings.TrimSpace(f[1])
		if _, ok := want[g]; !ok {
			continue
		}
		if v, err := strconv.ParseFloat(strings.Fields(f[3])[0], 64); err == nil {
			got[g] = v
		}
	}
	for g, w := range want {
		v, ok := got[g]
		if !ok || math.Abs(v-w) > 0.01*w {
			t.Errorf("%s: mean %.1f kbit/s (found %v), ground truth %.1f", g, v, ok, w)
		}
	}
}
