//go:build unix

package main

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPossiblePEPStream: flows on a FIFO (as on standard input) reads it
// once; the link layer is read in that pass, so lan4's data connection is
// marked PEP? with its link address named, as from the file, and no note
// says that a second look was missed (none was needed: no zero window).
func TestPossiblePEPStream(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "lan4.pcap")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.Open(lan4 + "client.pcap.gz")
		if err != nil {
			return
		}
		defer f.Close()
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		if zr, err := gzip.NewReader(f); err == nil {
			io.Copy(w, zr)
		}
	}()
	out, errOut, err := runCLI(t, "flows", fifo)
	if err != nil || strings.Contains(errOut, "is read once") || !strings.Contains(out, "2233.1 PEP?") || !strings.Contains(out, "02:77:00:01:00:01 never announced the receiver's address") {
		t.Errorf("flows FIFO: %v\n%s\n%s", err, out, errOut)
	}
}
