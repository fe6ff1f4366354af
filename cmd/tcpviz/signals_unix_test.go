//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMain lets TestSignals run this test binary as tcpviz itself.
func TestMain(m *testing.M) {
	if os.Getenv("TCPVIZ_AS_MAIN") == "1" {
		os.Args = append([]string{"tcpviz"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSignals runs tcpviz blocked on a FIFO and on standard input, sends
// SIGTERM or SIGINT, and checks the exit status, the time it took and that
// the standard-input spool file is gone.
func TestSignals(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.pcap")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tt := range []struct {
		name string
		args []string
		sig  syscall.Signal
		want int
	}{
		{"fifo-sigterm", []string{"flows", fifo}, syscall.SIGTERM, 143},
		{"stdin-sigint", []string{"seq", "-", "-o", filepath.Join(dir, "x.png")}, syscall.SIGINT, 130},
		{"stdin-sigterm-rtt", []string{"rtt", "-"}, syscall.SIGTERM, 143},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], tt.args...)
			cmd.Env = append(os.Environ(), "TCPVIZ_AS_MAIN=1", "TMPDIR="+dir)
			stdin, _ := cmd.StdinPipe() // never closed: a capture that never ends
			defer stdin.Close()
			stdin.Write(bytes.Repeat([]byte{0xd4, 0xc3, 0xb2, 0xa1}, 1000))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			cmd.Process.Signal(tt.sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 10 s after %v", tt.sig)
			}
			if c := cmd.ProcessState.ExitCode(); c != tt.want {
				t.Errorf("exit status %d, want %d", c, tt.want)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "tcpviz-stdin-*")); len(left) != 0 {
				t.Errorf("spool files left: %v", left)
			}
		})
	}
}
