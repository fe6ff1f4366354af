//go:build unix

package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestList checks literal names with glob characters, an unreadable
// directory, a symlink loop and a FIFO named like a capture.
func TestList(t *testing.T) {
	dir := t.TempDir()
	lit := filepath.Join(dir, "run[1]*.pcap") // a real file whose name is a glob
	writeCaptureSeed(t, lit, 1)
	writeCaptureSeed(t, filepath.Join(dir, "run1a.pcap"), 2) // what the glob would match
	tree := filepath.Join(dir, "tree")
	os.MkdirAll(filepath.Join(tree, "locked"), 0o755)
	writeCaptureSeed(t, filepath.Join(tree, "ok.pcap"), 3)
	os.Symlink("loop2.pcap", filepath.Join(tree, "loop1.pcap"))
	os.Symlink("loop1.pcap", filepath.Join(tree, "loop2.pcap"))
	if err := syscall.Mkfifo(filepath.Join(tree, "fifo.pcap"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	locked := filepath.Join(tree, "locked")
	os.Chmod(locked, 0)
	defer os.Chmod(locked, 0o755)

	l, err := List([]string{lit, tree})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{lit, filepath.Join(tree, "ok.pcap")}
	if strings.Join(l.Files, "|") != strings.Join(want, "|") {
		t.Errorf("Files = %q, want %q", l.Files, want)
	}
	failed := map[string]bool{}
	for _, f := range l.Failed {
		failed[filepath.Base(f.File)] = true
	}
	if !failed["loop1.pcap"] || !failed["loop2.pcap"] {
		t.Errorf("Failed = %v, want both loop links", l.Failed)
	}
	if os.Geteuid() != 0 && !failed["locked"] { // root reads any directory
		t.Errorf("Failed = %v, want the unreadable directory", l.Failed)
	}
	if len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "fifo.pcap: skipped: not a regular file") {
		t.Errorf("Notes = %q, want the FIFO skipped", l.Notes)
	}
	// A path that does not exist is a pattern.
	l, err = List([]string{filepath.Join(dir, "run1?.pcap")})
	if err != nil || len(l.Files) != 1 || filepath.Base(l.Files[0]) != "run1a.pcap" {
		t.Errorf("List(glob) = %v, %v, want run1a.pcap", l, err)
	}
}

// TestListSymlinkedDir: a directory given through a symlink is walked
// (trial14 B4); a link inside it back to an ancestor is skipped, so no
// loop.
func TestListSymlinkedDir(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.MkdirAll(filepath.Join(real, "sub"), 0o755)
	writeCaptureSeed(t, filepath.Join(real, "a.pcap"), 1)
	writeCaptureSeed(t, filepath.Join(real, "sub", "b.pcap"), 2)
	os.Symlink("..", filepath.Join(real, "sub", "up.pcap")) // a loop if followed
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	l, err := List([]string{link})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(link, "a.pcap"), filepath.Join(link, "sub", "b.pcap")}
	if strings.Join(l.Files, "|") != strings.Join(want, "|") {
		t.Errorf("Files = %q, want %q", l.Files, want)
	}
	if len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "up.pcap: skipped: a link to a directory") {
		t.Errorf("Notes = %q, want the link to a directory skipped", l.Notes)
	}
}

// TestWorkerPanic: a capture whose analysis panics is a failed capture and
// the others are still analysed.
func TestWorkerPanic(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, n := range []string{"a.pcap", "b.pcap", "c.pcap"} {
		files = append(files, filepath.Join(dir, n))
		writeCapture(t, files[len(files)-1])
	}
	beforeFile = func(p string) {
		if filepath.Base(p) == "b.pcap" {
			panic("boom")
		}
	}
	defer func() { beforeFile = nil }()
	res, err := Goodput(context.Background(), files, Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Failed[0].File != files[1] || !errors.Is(res.Failed[0].Err, ErrInternal) {
		t.Fatalf("Failed = %v, want b.pcap with ErrInternal", res.Failed)
	}
	if len(res.Rows) != 1 { // a and c hold the same flow of one run: one row
		t.Errorf("%d rows, want 1", len(res.Rows))
	}
}
