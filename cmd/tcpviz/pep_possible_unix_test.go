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
// once, so the verdicts that a second look would check (the link layer,
// the connection's detail) rest on the first pass, and a note says so;
// lan4's data connection is still marked PEP?.
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
	if err != nil || !strings.Contains(errOut, "is read once: the split-TCP PEP verdicts of 2 connections rest on the first pass") || !strings.Contains(out, "2233.1 PEP?") {
		t.Errorf("flows FIFO: %v\n%s\n%s", err, out, errOut)
	}
}
