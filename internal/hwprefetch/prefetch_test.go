package hwprefetch

import (
	"testing"
	"unsafe"
)

// TestReadAnywhere: a prefetch is a hint that never faults, whatever the
// alignment and wherever its 320 bytes end (here past the end of a
// small allocation), and changes nothing it covers.
func TestReadAnywhere(t *testing.T) {
	b := make([]byte, 3)
	b[0], b[1], b[2] = 1, 2, 3
	for i := range b {
		Read(unsafe.Pointer(&b[i]))
	}
	if b[0] != 1 || b[1] != 2 || b[2] != 3 {
		t.Fatalf("bytes changed: %v", b)
	}
}
