package query

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/internal/atomicfile"
)

// TestSpoolTracked: the spool of standard input is registered for removal
// from its creation, so a signal that stops the run while standard input is
// still being copied (atomicfile.RemoveTracked) leaves no file behind; a
// finished spool's cleanup removes it; a read error removes it too.
func TestSpoolTracked(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	spools := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "tcpviz-stdin-*.pcap"))
		return m
	}

	// Interrupted while copying: the writer never closes its end.
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, _, err := Spool(pr)
		done <- err
	}()
	pw.Write([]byte("not yet a capture"))
	if n := len(spools()); n != 1 {
		t.Fatalf("%d spool files while copying, want 1", n)
	}
	atomicfile.RemoveTracked() // what the signal handler does
	if left := spools(); len(left) != 0 {
		t.Errorf("after RemoveTracked: %v left", left)
	}
	pw.CloseWithError(errors.New("stopped"))
	if err := <-done; err == nil || err.Error() != "read standard input: stopped" {
		t.Errorf("Spool of a broken reader: err = %v", err)
	}

	// A complete spool holds the bytes; cleanup removes it.
	p, cleanup, err := Spool(strings.NewReader("abc"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "abc" {
		t.Errorf("spool holds %q, want %q", b, "abc")
	}
	cleanup()
	if left := spools(); len(left) != 0 {
		t.Errorf("after cleanup: %v left", left)
	}
}
