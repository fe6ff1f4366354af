package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWrite checks what the atomic writer keeps and refuses.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) error {
		return Write(p, func(f *os.File) error { _, err := f.WriteString(s); return err })
	}
	t.Run("new-file-0644", func(t *testing.T) {
		p := filepath.Join(dir, "new.csv")
		if err := write(p, "x"); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(p); st.Mode().Perm()&^0o022 != 0o644&^0o022 {
			t.Errorf("mode %v, want 0644 less the umask", st.Mode())
		}
	})
	t.Run("permissions-kept", func(t *testing.T) {
		p := filepath.Join(dir, "private.csv")
		os.WriteFile(p, []byte("old"), 0o600)
		if err := write(p, "new"); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(p)
		b, _ := os.ReadFile(p)
		if st.Mode().Perm() != 0o600 || string(b) != "new" {
			t.Errorf("mode %v, content %q; want 0600, new", st.Mode(), b)
		}
	})
	t.Run("symlink-followed", func(t *testing.T) {
		real := filepath.Join(dir, "real.csv")
		link := filepath.Join(dir, "link.csv")
		os.WriteFile(real, []byte("old"), 0o644)
		os.Symlink("real.csv", link)
		if err := write(link, "new"); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced by a file")
		}
		if b, _ := os.ReadFile(real); string(b) != "new" {
			t.Errorf("target holds %q, want new", b)
		}
	})
	t.Run("read-only-refused", func(t *testing.T) {
		p := filepath.Join(dir, "ro.csv")
		os.WriteFile(p, []byte("old"), 0o444)
		err := write(p, "new")
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("err = %v, want read-only naming %s", err, p)
		}
		if b, _ := os.ReadFile(p); string(b) != "old" {
			t.Errorf("read-only file now holds %q", b)
		}
	})
	t.Run("error-names-user-path", func(t *testing.T) {
		p := filepath.Join(dir, "fail.csv")
		err := Write(p, func(f *os.File) error {
			return &fs.PathError{Op: "write", Path: f.Name(), Err: errors.New("disk full")}
		})
		if err == nil || err.Error() != "write "+p+": disk full" {
			t.Errorf("err = %v, want it to name %s and not the temporary file", err, p)
		}
		// An error of write's own (reading the input, say) goes out as is:
		// it is no write error of p's.
		in := errors.New("in.pcap: frame 3: unsupported link type")
		if err := Write(p, func(*os.File) error { return in }); err != in {
			t.Errorf("err = %v, want %v as is", err, in)
		}
		left, _ := filepath.Glob(filepath.Join(dir, ".fail.csv*"))
		if len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}
	})
}

// TestCheckDir: a missing directory, a file, and a writable directory.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	os.WriteFile(f, nil, 0o644)
	if err := CheckDir(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing: %v", err)
	}
	if err := CheckDir(f); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("file: %v", err)
	}
	if err := CheckDir(dir); err != nil {
		t.Errorf("writable: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tcpviz-probe-*")); len(left) != 0 {
		t.Errorf("probe left: %v", left)
	}
}

// TestWriteSlowLarge writes a few megabytes over several writeback
// periods, so that startWriteback's loop runs while the file is written
// and is stopped before it is closed: the output is what was written,
// whole, and Write returns (a loop that never stopped would hang it).
// That the writeback shortens the fsync is measured, not tested
// (docs/performance.md, session 16).
func TestWriteSlowLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.csv")
	var want bytes.Buffer
	err := Write(path, func(f *os.File) error {
		line := bytes.Repeat([]byte("0123456789,"), 9)
		for i := range 40000 {
			b := fmt.Appendf(nil, "%d,%s\n", i, line)
			want.Write(b)
			if _, err := f.Write(b); err != nil {
				return err
			}
			if i%10000 == 0 {
				time.Sleep(2 * writebackEvery)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("output differs: %d bytes, want %d", len(got), want.Len())
	}
}

// TestInterruptOrdersReplaces: outputs written while another goroutine
// calls Interrupt. Every Write that returned nil replaced its target with
// the new data and is in Replaced; every other kept the old data; none is
// replaced after Interrupt returned (a signal between an output's fsync
// and its rename leaves it written, and the exit message says so).
func TestInterruptOrdersReplaces(t *testing.T) {
	defer func() { // the package's state back for the other tests
		commitMu.Lock()
		interrupted.Store(false)
		replaced = nil
		commitMu.Unlock()
	}()
	dir := t.TempDir()
	const n = 200
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("out%d.csv", i))
		if err := os.WriteFile(paths[i], []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	errs := make([]error, n)
	stopped := make(chan struct{})
	go func() {
		time.Sleep(5 * time.Millisecond)
		Interrupt()
		close(stopped)
	}()
	after := -1 // the first Write begun after Interrupt returned
	for i, p := range paths {
		select {
		case <-stopped:
			if after < 0 {
				after = i
			}
		default:
		}
		errs[i] = Write(p, func(f *os.File) error {
			_, err := f.Write(bytes.Repeat([]byte("new,row\n"), 4096))
			return err
		})
	}
	<-stopped
	in := map[string]bool{}
	for _, p := range Replaced() {
		in[p] = true
	}
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case errs[i] == nil && (!in[p] || !bytes.HasPrefix(b, []byte("new,row\n"))):
			t.Errorf("%s: written (nil) but listed %v, holding %q…", p, in[p], b[:4])
		case errs[i] != nil && (!errors.Is(errs[i], ErrInterrupted) || in[p] || string(b) != "old\n"):
			t.Errorf("%s: %v, listed %v, holding %q…; want ErrInterrupted, unlisted, the old data", p, errs[i], in[p], b[:4])
		case after >= 0 && i >= after && errs[i] == nil:
			t.Errorf("%s: replaced after Interrupt returned", p)
		}
	}
	if after < 0 || errs[n-1] == nil {
		t.Fatalf("Interrupt came after every write (first after it: %d): make the writes longer", after)
	}
	t.Logf("%d of %d outputs written before the interrupt", len(in), n)
}
