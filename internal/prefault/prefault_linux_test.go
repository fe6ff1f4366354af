package prefault

import (
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

// TestTouchFaultsEveryPage: on a large new allocation, whose pages the
// process has not used yet, Touch makes the kernel map each of them (one
// minor fault a page), so that no later first read maps the zero page.
func TestTouchFaultsEveryPage(t *testing.T) {
	const n = 32 << 20
	b := make([]byte, n) // a large object: fresh pages from the OS
	var before, after syscall.Rusage
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	syscall.Getrusage(syscall.RUSAGE_THREAD, &before)
	Touch(unsafe.Pointer(&b[0]), n)
	syscall.Getrusage(syscall.RUSAGE_THREAD, &after)
	pages := int64(n / pageSize)
	got := after.Minflt - before.Minflt
	t.Logf("Touch of %d fresh pages: %d minor faults", pages, got)
	if got < pages*9/10 {
		t.Errorf("Touch of %d fresh pages: %d minor faults, want about one a page", pages, got)
	}
	runtime.KeepAlive(b)
}
