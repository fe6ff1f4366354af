package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIntervalLabel: the tput figure's title names its interval in the
// units a reader writes, not as a Go duration ("100ms", "1s").
func TestIntervalLabel(t *testing.T) {
	for w, want := range map[time.Duration]string{
		100 * time.Millisecond:  "100 ms",
		time.Second:             "1 s",
		2500 * time.Millisecond: "2.5 s",
		250 * time.Microsecond:  "250 µs",
		20 * time.Millisecond:   "20 ms",
		10 * time.Second:        "10 s",
	} {
		if got := intervalLabel(w); got != want {
			t.Errorf("intervalLabel(%v) = %q, want %q", w, got, want)
		}
	}
}

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
