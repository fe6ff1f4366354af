package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/sharedtest"
)

// TestOutputCheckedFirst: a bad --output fails before any capture is read.
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"flows", "-o", filepath.Join(dir, "missing", "x.csv"), "no-such.pcap"}, "directory " + filepath.Join(dir, "missing")},
		{[]string{"rtt", "-o", filepath.Join(dir, "x.xlsx"), "no-such.pcap"}, `unknown ending ".xlsx"`},
		{[]string{"flows", "-o", dir, "no-such.pcap"}, "is a directory"},
	} {
		_, _, err := runCLI(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "no-such.pcap") {
			t.Errorf("tcpviz %s: err = %v, want %q before reading the capture", strings.Join(tt.args, " "), err, tt.want)
		}
	}
}

// TestHostileFilesCLI: the verbs that panicked on ../shared/hostile files.
func TestHostileFilesCLI(t *testing.T) {
	dir := sharedtest.Dir(t, "hostile")
	f := filepath.Join(dir, "tput-ts-overflow-min.pcapng")
	for _, args := range [][]string{{"tput", f}, {"flows", f}, {"compare", "--metric", "tput", "a=" + f}} {
		_, errOut, err := runCLI(t, args...)
		if c := exitCode(err); c != 0 && c != 2 {
			t.Errorf("tcpviz %s: exit %d (%v)", strings.Join(args, " "), c, err)
		}
		if !strings.Contains(errOut, "frame 2: timestamp") {
			t.Errorf("tcpviz %s: stderr %q does not name the frame", strings.Join(args, " "), errOut)
		}
	}
}
