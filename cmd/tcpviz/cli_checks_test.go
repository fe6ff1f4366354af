package main

import (
	"path/filepath"
	"strings"
	"testing"
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
