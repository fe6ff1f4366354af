// Package sharedtest finds the team's shared test data (../shared beside
// the module) for tests, and skips the test with a one-line reason when it
// is absent. Test support only.
package sharedtest

import (
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
