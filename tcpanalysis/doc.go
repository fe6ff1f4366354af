// Package tcpanalysis derives per-connection metrics and series from the
// segments of a capture in one streaming pass: the time-sequence (Stevens)
// series, byte and packet counts, unique and retransmitted bytes, throughput
// and goodput. Every metric is defined in docs/metrics.md; the code cites
// the section.
//
// It consumes capture.Segments through a flows.Tracker and keeps only
// per-connection state; full per-packet series are kept only for the
// connections Options.Keep selects. It does no plotting and no I/O beyond
// reading captures (see AnalyzeFile).
package tcpanalysis
