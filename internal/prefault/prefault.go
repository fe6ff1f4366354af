// Package prefault makes the first touch of newly allocated memory a write.
//
// A page of the Go heap that the process has not used yet is mapped by the
// kernel on its first touch. When that touch is a read (a new object's
// field tested before any is set, the garbage collector scanning it),
// Linux maps its shared zero page there, and the first write faults again:
// the kernel copies the page and, the process having run on other cores,
// flushes their TLBs with interprocessor interrupts, which in a virtual
// machine exit to the hypervisor and wait for every other core. On this
// project's 2-core virtual machine these shootdowns took 3.5 % of
// `flows`' time on the short benchmark (docs/performance.md, session 14).
// A write as the first touch costs one fault and no interrupt.
package prefault

import (
	"sync/atomic"
	"unsafe"
)

// pageSize is the smallest page size of the platforms Go supports; on a
// platform with larger pages a few words more are touched, to no effect.
const pageSize = 4096

// Touch makes sure that every page the n bytes at p cover has been
// written: it adds 0, atomically, to one aligned 32-bit word of each of
// them within the n bytes (a read-modify-write, which the processor
// faults as a write). The bytes are left as they are, whatever they hold
// and whoever else reads or writes them. p must point to n bytes of one
// Go object (a pointer from new, make or &T{}); n < 4 does nothing.
func Touch(p unsafe.Pointer, n uintptr) {
	a := uintptr(p)
	first := (a + 3) &^ 3 // the first aligned word within the object
	if n < 4 || first+4 > a+n {
		return
	}
	end := a + n - 4 // the last start of a word within the object
	touch(unsafe.Add(p, first-a))
	for q := (a | (pageSize - 1)) + 1; q <= end; q += pageSize {
		touch(unsafe.Add(p, q-a))
	}
}

func touch(w unsafe.Pointer) { atomic.AddUint32((*uint32)(w), 0) }

// New returns x, a newly allocated *T, with every page it covers written
// (Touch).
func New[T any](x *T) *T {
	Touch(unsafe.Pointer(x), unsafe.Sizeof(*x))
	return x
}

// Slice returns s with every page of its backing array, up to its
// capacity, written (Touch).
func Slice[E any](s []E) []E {
	if cap(s) > 0 {
		var e E
		Touch(unsafe.Pointer(unsafe.SliceData(s)), uintptr(cap(s))*unsafe.Sizeof(e))
	}
	return s
}
