// Package hwprefetch asks the processor to bring memory into its caches
// ahead of use, without waiting for it: for the capture.Segment batches
// that the reading goroutine fills on one core and the analysis shards
// read on another (docs/performance.md, session 8). Each call covers the
// Span bytes from p, the five cache lines a capture.Segment can span. A
// prefetch never faults, so p may point anywhere; it is only a hint, and a
// no-op on architectures without an implementation here.
package hwprefetch

// Span is how many bytes from p a call covers: five 64-byte cache lines,
// enough for a capture.Segment (264 bytes) at any alignment.
const Span = 5 * 64
