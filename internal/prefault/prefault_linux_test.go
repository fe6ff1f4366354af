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

// TestAheadMapsPages: writing every page of a large new array faults
// once a page; after Ahead's populate, the goroutine that writes them
// takes none of those faults (the race detector's shadow pages fault
// still), and the contents are what it wrote (populate writes nothing).
func TestAheadMapsPages(t *testing.T) {
	const n = 32 << 20
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// write writes a byte in every page of b and returns the minor faults
	// this thread took meanwhile.
	write := func(b []byte) int64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_THREAD, &ru)
		before := ru.Minflt
		for i := 0; i < n; i += pageSize {
			b[i] = byte(i / pageSize)
		}
		syscall.Getrusage(syscall.RUSAGE_THREAD, &ru)
		return ru.Minflt - before
	}
	pages := int64(n / pageSize)
	control := write(make([]byte, n))
	if control < pages*9/10 {
		t.Skipf("a new %d-page array took %d faults when written: not fresh pages here", pages, control)
	}
	b := make([]byte, 0, n)
	if pagesOf(b[:0:1<<20-1]) != nil || pagesOf(b) == nil {
		t.Fatal("pagesOf: want nil under 1 MiB only")
	}
	populate(pagesOf(b)) // what Ahead runs on its goroutine
	b = b[:n]
	got := write(b)
	t.Logf("writing %d new pages: %d minor faults; after populate: %d", pages, control, got)
	if got > control-pages*9/10 {
		t.Errorf("writing %d pages after populate: %d minor faults on the writer, want %d less than without (%d)", pages, got, pages*9/10, control)
	}
	for i := 0; i < n; i += pageSize {
		if b[i] != byte(i/pageSize) || b[i+1] != 0 {
			t.Fatalf("page %d holds %d %d, want %d 0", i/pageSize, b[i], b[i+1], byte(i/pageSize))
		}
	}
	Ahead(make([]int64, 0, 1<<20)) // and on a goroutine: no race, nothing to wait for
}
