// Package campaign turns many captures of an experiment campaign (runs ×
// seeds × protocols) into per-flow goodput rows and the study's tables: per
// group the mean with a t-based 95 % CI, and paired per-seed comparisons.
//
// It finds captures (files, directories, globs), reads labels from paths
// (Pattern) or a manifest, analyses files in parallel with bounded memory,
// counts each flow once when several captures of a run hold it (preferring
// the receiver's; docs/metrics.md#vantage), takes each flow's rate over its
// application's interval — from Options.Interval, Options.Starts or the
// testbed's ground truth next to the captures, else from its first packet,
// reporting flows that started late (docs/metrics.md#interval) — and
// aggregates with package stats. It draws nothing.
package campaign
