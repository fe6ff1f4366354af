// Package sharedtest finds the team's shared test data (../shared beside
// the module) for tests, and skips the test with a one-line reason when it
// is absent. Test support only.
package sharedtest

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the absolute path of ../shared/sub (sub may be empty), or
// skips t when it does not exist.
func Dir(t testing.TB, sub string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	d := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", sub)
	if _, err := os.Stat(d); err != nil {
		t.Skipf("%s not present: test skipped", filepath.Join("../shared", sub))
	}
	abs, _ := filepath.Abs(d)
	return abs
}

// GunzipBytes returns the decompressed content of the gzip file gz; it
// fails t on an error.
func GunzipBytes(t testing.TB, gz string) []byte {
	t.Helper()
	f, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Gunzip writes the decompressed content of the gzip file gz to path (a
// plain pcap for a reader that needs one read in place) and returns path;
// it fails t on an error.
func Gunzip(t testing.TB, gz, path string) string {
	t.Helper()
	if err := os.WriteFile(path, GunzipBytes(t, gz), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
