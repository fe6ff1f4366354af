//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// B6: compare a=X+X (one capture as both sides) is refused before it is
// read, exit 1 (it used to block on a FIFO): as the same path and as two
// paths of one file. A FIFO is never opened.
func TestCompareSameFileBothSides(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "both.pcap")
	runs := []string{"a=" + satOff + "+" + satOff, "a=" + satOff + "+./" + satOff}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Logf("mkfifo: %v: the FIFO case is skipped", err)
	} else {
		runs = append(runs, "a="+fifo+"+"+fifo+"#1")
	}
	for _, run := range runs {
		_, _, err := runCLI(t, "compare", run)
		if exitCode(err) != 1 || err == nil || !strings.Contains(err.Error(), "is given as both the client and the server side") {
			t.Errorf("compare %s: exit %d, %v; want exit 1, refused", run, exitCode(err), err)
		}
	}
}
