//go:build unix

package capture

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestOpenFifoNoPrescan: a named pipe opened by path is read once, as a
// stream: the pre-scan must not take its first frames away.
func TestOpenFifoNoPrescan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	base := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkEthernet})
	const n = 50
	for i := range n {
		f.Add(base.Add(time.Duration(i)*time.Millisecond+3*time.Microsecond), 0, pcaptest.Ethernet(ip4))
	}
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		_, err = w.Write(f.Bytes())
		w.Close()
		done <- err
	}()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := 0
	var s Segment
	for r.Next(&s) == nil {
		got++
		if !s.FineTime {
			t.Errorf("frame %d: FineTime = false, want true (stamps 3 µs off)", got)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Errorf("read %d segments from the pipe, want %d", got, n)
	}
}
