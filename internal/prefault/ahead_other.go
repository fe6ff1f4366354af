//go:build !linux

package prefault

// Ahead does nothing where madvise(MADV_POPULATE_WRITE) is not available:
// the pages of s are mapped as they are first written.
func Ahead[E any](s []E) {}
