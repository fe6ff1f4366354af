// Package query is the one place that decides what to analyse: which
// connection of a capture, which data direction, which time range and which
// reference point, and which series to draw from it.
//
// The verbs of cmd/tcpviz and compare (and whatever else draws a
// connection: a report, a figure) take the same three steps:
//
//	sel := query.All()                           // every connection, direction auto
//	err := sel.Validate()                        // before any file is read
//	v, err := query.Analyze(path, sel, query.Options{}) // one or two passes over the file
//	s := v.Series(query.MetricSeq)               // points of v.Conn in v.Dir
//	x, y := s.X(v.Ref), s.Y()                    // seconds since --ref, values in MetricSeq.Unit()
//
// FromReport gives the same View of a report analysed elsewhere (a live
// capture), ConnView the View of a whole connection (the report's).
//
// Everything a View gives is limited to one window, [ref + From, ref + To]
// with both ends in it (InWindow): the series (Series, Points), the
// throughput and goodput intervals (Intervals, laid from the reference
// point by tcpanalysis.BinsFrom) and the analyzer's records behind them,
// for outputs that draw more than a value per point (Segs, Acks, SACKs,
// WindowPoints, RTTSamples, Events, ZeroWindows).
//
// A Selection has one matching rule (Selection.Match: connection index,
// port and host, all that are set) and one rule for choosing a connection
// when none is named (Selection.Pick: the matching connection with the most
// payload bytes). A direction left Auto is the one that delivered more
// bytes (DataDirection). Times in a Series are capture timestamps; View
// turns them into seconds since the capture's first frame (the t_s column
// of every output, docs/schema.md), since the connection's first packet
// (conn_t_s), or since the reference point (figures and compare).
//
// Adding a metric means adding one Metric constant, its entry in the
// metrics table (name, unit, label) and one case in View.SeriesOf; compare
// --metric (figure and CSV) then offers it with no change to cmd/tcpviz.
//
// Errors are sentinel values wrapped with %w (ErrDirection, ErrRef,
// ErrRange, ErrNoMatch, ErrNoConn, ErrMetric); they never name a
// command-line flag, so callers add that context.
package query
