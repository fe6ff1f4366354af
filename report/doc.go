// Package report writes the interactive HTML report: one self-contained
// file (uPlot, its licence, the page's script and every series embedded)
// that shows, per connection and data direction, the Stevens graph, RTT,
// throughput and goodput, window and bytes in flight, and an events lane,
// with linked x axes, box zoom and tooltips, and overlays several runs in
// compare mode.
//
// Series are stored at several resolutions (levels.go): the full series and
// coarser levels of min/max per bucket, so that the browser draws only what
// the visible range needs. Retransmission and out-of-order marks are never
// thinned. Every series comes from package query (query.ConnView: its
// records, metrics and intervals) through extract.go, so the report, the
// verbs and the figures share one definition of each series, one time base
// and one window rule. report computes no metric, and writes no note of
// its own: beside each panel it gives what the verb of the same series
// says about where the capture was taken (query.View.Caveats, the PEP verdict's note as pep.DetectIn gives it;
// vantage.go), and it draws each series in its figure's colour (plot's).
package report
