package prefault

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestTouchKeepsBytes: Touch changes no byte, inside or outside the range
// it is given, whatever the range's alignment and length (n < 4 included).
func TestTouchKeepsBytes(t *testing.T) {
	buf := make([]byte, 3*pageSize+64)
	for i := range buf {
		buf[i] = byte(i*7 + 1)
	}
	want := bytes.Clone(buf)
	for _, off := range []int{0, 1, 2, 3, 5, 4093, 4095, 4096} {
		for _, n := range []int{0, 1, 3, 4, 5, 7, 8, 4095, 4096, 4097, 2*pageSize + 3} {
			if off+n > len(buf) {
				continue
			}
			Touch(unsafe.Pointer(&buf[off]), uintptr(n))
			if !bytes.Equal(buf, want) {
				t.Fatalf("Touch(off %d, n %d) changed the buffer", off, n)
			}
		}
	}
	s := Slice(make([]uint64, 0, 1000))
	if len(s) != 0 || cap(s) != 1000 {
		t.Fatalf("Slice: len %d cap %d, want 0 1000", len(s), cap(s))
	}
	type big struct{ a [5000]byte }
	x := New(&big{})
	for _, b := range x.a {
		if b != 0 {
			t.Fatal("New changed a new object")
		}
	}
}
