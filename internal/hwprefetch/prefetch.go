// Package hwprefetch asks the processor to bring memory into its caches
// ahead of use, without waiting for it: for the capture.Segment batches
// that the reading goroutine fills on one core and the analysis shards
// read on another (docs/performance.md, session 8). Each call covers the
// 320 bytes from p: five 64-byte cache lines, enough for a capture.Segment
// (264 bytes) at any alignment. A prefetch never faults, so p may point
// anywhere; it is only a hint, and a no-op on architectures without an
// implementation here.
package hwprefetch
