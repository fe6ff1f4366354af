package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTputTitle: the figure tput draws names "1 s intervals" in its title.
func TestTputTitle(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.svg")
	if _, _, err := runCLI(t, "tput", satOff, "--interval", "1s", "-o", out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "10.77.2.2:5201, 1 s intervals<") {
		t.Errorf("tput figure title does not end in %q", ", 1 s intervals")
	}
}

// TestMessageWords: counts agree with their nouns, connection lists read
// as prose, and "the rest" appears only when there is one (study.someOf).
func TestMessageWords(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{count(1, "file"), "1 file"},
		{count(0, "file"), "0 files"},
		{count(24, "flow"), "24 flows"},
		{connList([]int{0, 1, 2, 3, 4}, false), "connections 0, 1, 2, 3, 4"},
		{connList([]int{3}, false), "connection 3"},
		{connList([]int{0, 1, 2}, true), "connections 0, 1, 2, …"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	// End to end: the shipped MANET campaign's 4 flows all start from the
	// ground truth of its 2 runs; stats merges 1 file.
	dir := t.TempDir()
	rows := filepath.Join(dir, "rows.csv")
	_, errOut, err := runCLI(t, "goodput", "../../testdata/manet", "-o", rows)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "goodput: 8 captures, 8 used, 0 failed; 4 flows") || !strings.Contains(errOut, "ground truth next to the captures, 2 files (all 4 flows) to") || strings.Contains(errOut, "the rest") {
		t.Errorf("goodput summary line:\n%s", errOut)
	}
	_, errOut, _ = runCLI(t, "stats", rows, "--group", "vantage")
	if !strings.Contains(errOut, "stats: 4 flows from 1 file\n") {
		t.Errorf("stats: %q; want \"stats: 4 flows from 1 file\"", errOut)
	}
}
