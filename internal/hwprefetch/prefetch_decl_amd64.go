package hwprefetch

import "unsafe"

// Read prefetches the 320 bytes at p for reading into every cache level
// (x86 PREFETCHT0).
//
//go:noescape
func Read(p unsafe.Pointer)
