//go:build unix

package interrupt

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestLiveFirstSignal: during a live capture the first signal only
// cancels the context; the run is not marked interrupted. (A signal that
// interrupts the run exits the process: cmd/tcpviz's TestSignals checks
// that in a child process.)
func TestLiveFirstSignal(t *testing.T) {
	Live.Store(true)
	defer Live.Store(false)
	ctx, stop := Notify(io.Discard)
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Skipf("kill: %v", err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("context not cancelled 5 s after SIGINT")
	}
	if Code() != 0 || Signal() != 0 {
		t.Errorf("Code %d, Signal %v after a live capture's first signal; want 0", Code(), Signal())
	}
}
