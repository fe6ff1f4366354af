//go:build !amd64

package hwprefetch

import "unsafe"

// Read does nothing on this architecture.
func Read(p unsafe.Pointer) {}
