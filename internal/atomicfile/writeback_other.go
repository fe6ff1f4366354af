//go:build !linux

package atomicfile

import "os"

// startWriteback is a no-op where sync_file_range(2) is not available:
// the fsync before the rename writes everything.
func startWriteback(*os.File) (stop func()) { return func() {} }
