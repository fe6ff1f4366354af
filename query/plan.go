package query

import (
	"errors"
	"fmt"
	"time"

	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Want is what a caller writes of a View, which decides what Analyze must
// keep (the Plan functions): the rows (CSV or JSON, to a file or standard
// output), a figure of the chosen connection, or the interactive report
// (every connection with every part). None of them set means the summary
// table only.
type Want struct {
	Rows, Figure, Report bool
}

// any reports whether anything beyond the summary table is wanted.
func (w Want) any() bool { return w.Rows || w.Figure || w.Report }

// windowed reports whether sel limits the series to a time range or
// measures it from a point other than the connection's start: the window
// then needs the reference point, and so the samples, first.
func (s Selection) windowed() bool { return s.From > 0 || s.To > 0 || s.Ref != RefSYN }

// ErrMethod is wrapped by RTTMethods' error.
var ErrMethod = errors.New("want ack, ts or both")

// RTTMethods reads the RTT methods asked for (docs/metrics.md#rtt): "ack"
// (MetricRTT), "ts" (MetricRTTTS), "both" or "" (both); the handshake
// split (MetricRTTHandshake) is always included. Errors: ErrMethod,
// wrapped with the name given.
func RTTMethods(s string) (map[Metric]bool, error) {
	want := map[Metric]bool{MetricRTTHandshake: true}
	switch s {
	case "ack":
		want[MetricRTT] = true
	case "ts":
		want[MetricRTTTS] = true
	case "both", "":
		want[MetricRTT], want[MetricRTTTS] = true, true
	default:
		return nil, fmt.Errorf("%q: %w", s, ErrMethod)
	}
	return want, nil
}

// PlanRTT is what Analyze keeps for RTT outputs of the chosen connection,
// and events when events is set (a PEP's evidence). Percentiles over a
// whole connection come from bounded quantiles; every sample is kept only
// for rows, a figure, the report or a windowed selection. stream says the
// rows of whole connections should be streamed while the capture is read
// (the caller sets Options.OnRTT, export.RTTRows) instead of built from
// samples held in memory: rows are wanted and sel is not windowed (a
// window from --ref data/bulk needs the reference point first); the plan
// then keeps no RTT aggregates or samples at all.
func PlanRTT(sel Selection, w Want, events bool) (o Options, stream bool) {
	samples := w.any() || sel.windowed()
	parts := tcpanalysis.PartEvents // no series; events for a PEP's evidence only
	if samples {
		parts |= tcpanalysis.PartRTT
	}
	o = Options{RTT: true, RTTSamples: samples, Events: events, OneConn: true, Parts: parts}
	if w.Rows && !sel.windowed() {
		o.RTT, o.RTTSamples, o.Parts = false, false, tcpanalysis.PartEvents
		return o, true
	}
	return o, false
}

// PlanEvents is what Analyze keeps for the classified events of the chosen
// connection (docs/metrics.md#events); everything for the report.
func PlanEvents(w Want) Options {
	if w.Report {
		return Options{}
	}
	return Options{Events: true, OneConn: true, Parts: tcpanalysis.PartEvents}
}

// PlanWindow is what Analyze keeps for the receive window and bytes in
// flight of the chosen connection (docs/metrics.md#bytes-in-flight): the
// window points only, and the segments when sel measures from the first
// bulk segment; everything for the report.
func PlanWindow(sel Selection, w Want) Options {
	if w.Report {
		return Options{}
	}
	o := Options{OneConn: true, Parts: tcpanalysis.PartWindow}
	if sel.Ref == RefBulk {
		o.Parts |= tcpanalysis.PartSegs
	}
	return o
}

// PlanRate is what Analyze keeps for throughput, goodput, acknowledged
// bytes and slow start of the chosen connection
// (docs/metrics.md#throughput-over-time) in intervals of width interval
// (0: NiceInterval): its segments, ACKs and events (bytes in flight are
// rebuilt from them, tcpanalysis.FlightPoints); everything for the report.
func PlanRate(interval time.Duration, w Want) Options {
	if w.Report {
		return Options{Interval: interval}
	}
	return Options{Interval: interval, OneConn: true, Parts: tcpanalysis.PartSegs | tcpanalysis.PartAcks | tcpanalysis.PartEvents}
}

// PlanSeq is what Analyze keeps for the time-sequence graph of the chosen
// connection: its segments, ACKs and SACK blocks, and its events when
// events is set (a PEP's evidence, with the RTT quantiles every OneConn
// view keeps); everything for the report.
func PlanSeq(w Want, events bool) Options {
	if w.Report {
		return Options{Events: events}
	}
	o := Options{OneConn: true, Parts: tcpanalysis.PartSegs | tcpanalysis.PartAcks | tcpanalysis.PartSACKs}
	if events {
		o.Events, o.Parts = true, o.Parts|tcpanalysis.PartEvents
	}
	return o
}

// ShareInterval gives every view the finest of their interval widths, so
// that runs compared side by side share one goodput grid.
func ShareInterval(views []*View) {
	if len(views) == 0 {
		return
	}
	w := views[0].Interval
	for _, v := range views {
		w = min(w, v.Interval)
	}
	for _, v := range views {
		v.Interval = w
	}
}
