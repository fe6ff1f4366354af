package prefault

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Ahead maps, on a goroutine of its own, every page of s's backing array
// up to its capacity that the process has not used yet, writable
// (madvise(2) MADV_POPULATE_WRITE, Linux 5.14 and later; on an older
// kernel nothing happens). The contents are left as they are: unlike
// Touch, no byte of s is read or written, so the caller may append to s
// meanwhile. A series array of a million points that one goroutine fills
// then takes its page faults on the other core, not in the loop that
// fills it (the window series of the bulk benchmark's largest connection:
// 60 MB, about 15 000 faults, 0.06 s of the second pass;
// docs/performance.md, session 16). Arrays under 1 MiB are left alone.
func Ahead[E any](s []E) {
	if b := pagesOf(s); b != nil {
		go populate(b)
	}
}

// pagesOf is the whole pages of s's backing array up to its capacity, as
// bytes, or nil under 1 MiB.
func pagesOf[E any](s []E) []byte {
	var e E
	n := uintptr(cap(s)) * unsafe.Sizeof(e)
	if n < 1<<20 {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	lo := (uintptr(p) + pageSize - 1) &^ (pageSize - 1)
	hi := (uintptr(p) + n) &^ (pageSize - 1)
	if hi <= lo {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(p, lo-uintptr(p))), hi-lo)
}

// populate maps the pages of b writable without touching them (b keeps
// its array alive until the call ends).
func populate(b []byte) { _ = unix.Madvise(b, unix.MADV_POPULATE_WRITE) }
