package query

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Metric names a series View.Series can draw (definitions:
// docs/metrics.md).
type Metric uint8

const (
	MetricSeq          Metric = iota // highest sequence number sent, bytes (docs/metrics.md#time-sequence)
	MetricAck                        // cumulative ACK, bytes
	MetricRTT                        // ACK-method RTT samples, ms (docs/metrics.md#rtt)
	MetricRTTTS                      // TSval/TSecr RTT samples, ms
	MetricRTTHandshake               // handshake RTT samples, ms
	MetricGoodput                    // bytes newly acknowledged per interval, kbit/s (docs/metrics.md#throughput-over-time)
	MetricThroughput                 // payload bytes sent per interval, retransmissions included, kbit/s
	MetricWindow                     // advertised receive window, bytes (docs/metrics.md#bytes-in-flight)
	MetricInFlight                   // bytes in flight as tshark computes them, bytes
	MetricInFlightSACK               // bytes in flight minus SACKed bytes (RFC 6675 pipe), bytes
	MetricRetrans                    // retransmissions so far (rto, fast, spurious), count (docs/metrics.md#events)
	numMetrics
)

// metricInfo is each metric's name (as --metric takes it), unit, axis
// label and drawing style.
var metricInfo = [numMetrics]struct {
	name    string
	unit    Unit
	label   string
	scatter bool
}{
	MetricSeq:          {"seq", Bytes, "highest sequence sent", false},
	MetricAck:          {"ack", Bytes, "cumulative ACK", false},
	MetricRTT:          {"rtt", Milliseconds, "ACK RTT", true},
	MetricRTTTS:        {"rtt_ts", Milliseconds, "TSval/TSecr RTT", true},
	MetricRTTHandshake: {"rtt_handshake", Milliseconds, "handshake RTT", true},
	MetricGoodput:      {"goodput", Kbps, "goodput", false},
	MetricThroughput:   {"throughput", Kbps, "throughput, retransmissions included", false},
	MetricWindow:       {"window", Bytes, "receive window", false},
	MetricInFlight:     {"inflight", Bytes, "bytes in flight", false},
	MetricInFlightSACK: {"inflight_sack", Bytes, "bytes in flight, SACK-aware", false},
	MetricRetrans:      {"retrans", Count, "retransmissions (cumulative)", false},
}

// String is the metric's name, as ParseMetric reads it.
func (m Metric) String() string {
	if m < numMetrics {
		return metricInfo[m].name
	}
	return fmt.Sprintf("metric(%d)", m)
}

// Unit is the unit of the metric's values.
func (m Metric) Unit() Unit { return metricInfo[m].unit }

// Label names the metric on an axis or in a legend, without its unit
// (Unit gives it).
func (m Metric) Label() string { return metricInfo[m].label }

// Samples reports whether the metric's points are separate samples (draw
// them as a scatter) rather than a quantity that holds until the next
// point (draw it as steps).
func (m Metric) Samples() bool { return metricInfo[m].scatter }

// Metrics lists every metric in order.
func Metrics() []Metric {
	out := make([]Metric, numMetrics)
	for i := range out {
		out[i] = Metric(i)
	}
	return out
}

// MetricNames lists the names of Metrics, comma-separated.
func MetricNames() string {
	var s []string
	for _, m := range Metrics() {
		s = append(s, m.String())
	}
	return strings.Join(s, ", ")
}

// ParseMetric reads a metric name, case-insensitively; "tput" is accepted
// for goodput. Errors wrap ErrMetric.
func ParseMetric(s string) (Metric, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	if l == "tput" {
		return MetricGoodput, nil
	}
	for _, m := range Metrics() {
		if m.String() == l {
			return m, nil
		}
	}
	return 0, fmt.Errorf("%w %q: want one of %s", ErrMetric, s, MetricNames())
}

// Point is one value of a series at a capture time. Frame is the packet
// the value was read from (0 for interval values).
type Point struct {
	Time  capture.Timestamp
	Frame int64
	V     float64
}

// Series is one metric of one connection and direction, limited to the
// selection's time range, in capture order.
type Series struct {
	Metric Metric
	Conn   int
	Dir    flows.Direction
	Points []Point
}

// X returns the points' times in seconds since origin (View.Ref, the
// connection's first packet, …) and Y their values, for plotting.
func (s Series) X(origin capture.Timestamp) []float64 {
	x := make([]float64, len(s.Points))
	for i, p := range s.Points {
		x[i] = p.Time.Sub(origin).Seconds()
	}
	return x
}

// Y returns the points' values.
func (s Series) Y() []float64 {
	y := make([]float64, len(s.Points))
	for i, p := range s.Points {
		y[i] = p.V
	}
	return y
}

// Series returns metric m of the chosen connection in the chosen
// direction.
func (v *View) Series(m Metric) Series { return v.SeriesOf(v.Conn, v.Dir, m) }

// SeriesOf returns metric m of connection r (one of v.Conns) in direction
// d, limited to [Sel.From, Sel.To] after r's reference point. Metrics
// drawn from the per-packet series are empty when r's series were not kept
// (only the chosen connection's are, unless the capture is small).
func (v *View) SeriesOf(r *tcpanalysis.ConnResult, d flows.Direction, m Metric) Series {
	s := Series{Metric: m, Conn: r.Conn.Index, Dir: d, Points: make([]Point, 0, v.capOf(r, d, m))}
	v.each(r, d, m, func(p Point) { s.Points = append(s.Points, p) })
	return s
}

// Points yields the points of SeriesOf(r, d, m) one at a time, without
// holding them: for outputs that store a million-point series their own
// way (the report's columns).
func (v *View) Points(r *tcpanalysis.ConnResult, d flows.Direction, m Metric) iter.Seq[Point] {
	return func(yield func(Point) bool) {
		done := false
		v.each(r, d, m, func(p Point) {
			if !done && !yield(p) {
				done = true
			}
		})
	}
}

// XY is View.Series(m) as seconds since origin and values, for plotting,
// without the Points in between: for a million-point series, 16 bytes a
// point instead of 40.
func (v *View) XY(m Metric, origin capture.Timestamp) (x, y []float64) {
	n := v.capOf(v.Conn, v.Dir, m)
	x, y = make([]float64, 0, n), make([]float64, 0, n)
	v.each(v.Conn, v.Dir, m, func(p Point) {
		x, y = append(x, p.Time.Sub(origin).Seconds()), append(y, p.V)
	})
	return x, y
}

// WindowMetrics are the metrics of the window figure, in WindowXY's order.
var WindowMetrics = [3]Metric{MetricWindow, MetricInFlight, MetricInFlightSACK}

// windowValues are a window point's values of WindowMetrics in bytes, and
// which of them it has (rwnd needs the window scale, the flights an ACK):
// the one rule of XY, WindowXY and WindowHeld.
func windowValues(p *tcpanalysis.WindowPoint) (vals [3]float64, valid [3]bool) {
	return [3]float64{float64(p.Rwnd), float64(p.InFlight), float64(p.InFlightSACK)},
		[3]bool{p.RwndKnown, p.FlightValid, p.FlightValid}
}

// WindowXY is XY of each of WindowMetrics (x in seconds from origin, y in
// bytes), from one scan of the connection's window points instead of
// three: x[i], y[i] equal XY(WindowMetrics[i], origin). The series share
// their x slice where their points are the same (both in-flight series
// always; rwnd too when every point has both a window and a flight):
// read-only, it saves 10 MB per million points of peak memory.
func (v *View) WindowXY(origin capture.Timestamp) (x, y [3][]float64) {
	return v.WindowXYHeld(origin, 0, [3]Held{})
}

// WindowXYHeld is WindowXY with, first, the point (x0, held[i].V) in each
// series i that held[i].OK (the value in force at a window's start,
// WindowHeld), and room after the last point for one more without a copy:
// a figure's step lines then start at the window's edge and hold to the
// connection's end without a second copy of a million-point series. Series
// share their x slice as in WindowXY when their ok agree.
func (v *View) WindowXYHeld(origin capture.Timestamp, x0 float64, held [3]Held) (x, y [3][]float64) {
	if v.Conn.Series == nil {
		return x, y
	}
	// A million-point window figure spends a tenth of a second here
	// (docs/performance.md#series-commands): the points are counted, then
	// written, in two halves on two goroutines, at offsets the counts give.
	ps := v.Conn.Series.Window[v.Dir]
	ref := v.RefOf(v.Conn, v.Dir)
	halves := [2][]tcpanalysis.WindowPoint{ps[:len(ps)/2], ps[len(ps)/2:]}
	var n [2][2]int // per half: the points in the window with rwnd, with the flights
	var mixed [2]bool
	inHalves(len(ps), func(h int) {
		for i := range halves[h] {
			p := &halves[h][i]
			if !v.Sel.InRange(p.Time, ref) {
				continue
			}
			if p.RwndKnown {
				n[h][0]++
			}
			if p.FlightValid {
				n[h][1]++
			}
			mixed[h] = mixed[h] || p.RwndKnown != p.FlightValid
		}
	})
	// rwnd is drawn at exactly the points of the flights
	shared := held[0].OK == held[1].OK && !mixed[0] && !mixed[1]
	first := [2]int{b2i(held[0].OK), b2i(held[1].OK)} // held[2] is held[1]'s: the flights are valid together
	size := [2]int{first[0] + n[0][0] + n[1][0], first[1] + n[0][1] + n[1][1]}
	// One more room at the end (a figure's line held to the end).
	x[1] = make([]float64, size[1], size[1]+1)
	if !shared {
		x[0] = make([]float64, size[0], size[0]+1)
	} else {
		x[0] = x[1]
	}
	y[0] = make([]float64, size[0], size[0]+1)
	y[1], y[2] = make([]float64, size[1], size[1]+1), make([]float64, size[1], size[1]+1)
	if held[0].OK {
		x[0][0], y[0][0] = x0, held[0].V
	}
	if held[1].OK {
		x[1][0], y[1][0], y[2][0] = x0, held[1].V, held[2].V
	}
	inHalves(len(ps), func(h int) {
		i0, i1 := first[0], first[1]
		if h == 1 {
			i0, i1 = i0+n[0][0], i1+n[0][1]
		}
		for k := range halves[h] {
			p := &halves[h][k]
			if !v.Sel.InRange(p.Time, ref) {
				continue
			}
			t := p.Time.Sub(origin).Seconds()
			if p.RwndKnown {
				if !shared {
					x[0][i0] = t
				}
				y[0][i0] = float64(p.Rwnd)
				i0++
			}
			if p.FlightValid {
				x[1][i1] = t
				y[1][i1], y[2][i1] = float64(p.InFlight), float64(p.InFlightSACK)
				i1++
			}
		}
	})
	x[2] = x[1]
	return x, y
}

// inHalves runs f(0) and f(1), on two goroutines when n, the points
// between them, is large enough to pay for the second.
func inHalves(n int, f func(h int)) {
	if n < 1<<16 {
		f(0)
		f(1)
		return
	}
	done := make(chan struct{})
	go func() { f(1); close(done) }()
	f(0)
	<-done
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Held is the value in force at a window's start: that of the latest
// point stamped before it, the later in capture order among equal times,
// so that where a capture's timestamps go backwards a point stamped early
// but captured late does not stand for the window's start. The zero value
// holds nothing (OK false). The one rule of WindowHeld, HeldOf and
// compare's delivered line.
type Held struct {
	V  float64
	At capture.Timestamp
	OK bool
}

// See offers the value v of a point stamped t before the window.
func (h *Held) See(t capture.Timestamp, v float64) {
	if !h.OK || t >= h.At {
		*h = Held{V: v, At: t, OK: true}
	}
}

// WindowHeld returns, for each of WindowMetrics, the value in force at the
// selection's start (Held), from one scan of the window points: what a
// step line drawn in the selection needs from before it.
func (v *View) WindowHeld() (held [3]Held) {
	if v.Conn.Series == nil {
		return held
	}
	ref := v.RefOf(v.Conn, v.Dir)
	for k := range v.Conn.Series.Window[v.Dir] {
		p := &v.Conn.Series.Window[v.Dir][k]
		if p.Time.Sub(ref) >= v.Sel.From {
			continue
		}
		vals, valid := windowValues(p)
		for i := range vals {
			if valid[i] {
				held[i].See(p.Time, vals[i])
			}
		}
	}
	return held
}

// HeldOf is WindowHeld for one step metric m of connection r in direction
// d (seq, ack and the WindowMetrics: a value that holds until the next
// point), and whether a point lies after To (To > 0). For metrics without
// held values (samples, intervals, the retransmission count) held.OK and
// goesOn are false.
func (v *View) HeldOf(r *tcpanalysis.ConnResult, d flows.Direction, m Metric) (held Held, goesOn bool) {
	switch m {
	case MetricSeq, MetricAck, MetricWindow, MetricInFlight, MetricInFlightSACK:
	default:
		return held, false
	}
	all := *v // every point, the window's rule aside
	all.Sel.From, all.Sel.To = math.MinInt64, 0
	ref := v.RefOf(r, d)
	all.each(r, d, m, func(p Point) {
		switch dt := p.Time.Sub(ref); {
		case dt < v.Sel.From:
			held.See(p.Time, p.V)
		case v.Sel.To > 0 && dt > v.Sel.To:
			goesOn = true
		}
	})
	return held, goesOn
}

// capOf bounds the number of points of metric m of r in d by the kept
// points it is drawn from, so that a series never grows (a growing
// million-point series is copied a dozen times).
func (v *View) capOf(r *tcpanalysis.ConnResult, d flows.Direction, m Metric) int {
	ser := r.Series
	if ser == nil {
		return 0
	}
	switch m {
	case MetricSeq:
		return len(ser.Segs[d])
	case MetricAck:
		return len(ser.Acks[d])
	case MetricWindow, MetricInFlight, MetricInFlightSACK:
		return len(ser.Window[d])
	}
	return 0
}

// each calls yield with every point of metric m of r in d inside the
// selection's time range, in capture order.
func (v *View) each(r *tcpanalysis.ConnResult, d flows.Direction, m Metric, yield func(Point)) {
	ref := v.RefOf(r, d)
	add := func(t capture.Timestamp, frame int64, val float64) {
		if v.Sel.InRange(t, ref) {
			yield(Point{t, frame, val})
		}
	}
	rtt := func(meth tcpanalysis.Method) {
		for x := range v.RTTSamples(r, d, meth) {
			yield(Point{x.Time, x.Frame, x.RTT.Seconds() * 1000})
		}
	}
	switch m {
	case MetricRTT:
		rtt(tcpanalysis.MethodACK)
	case MetricRTTTS:
		rtt(tcpanalysis.MethodTS)
	case MetricRTTHandshake:
		rtt(tcpanalysis.MethodHandshake)
	case MetricRetrans:
		// Counted from the connection's start (a cumulative count), drawn
		// in the window.
		n := 0
		for _, ev := range r.Events {
			if ev.Dir == d && ev.Class.IsRetransmission() {
				n++
				add(ev.Time, ev.Frame, float64(n))
			}
		}
	case MetricGoodput, MetricThroughput:
		// The intervals laid from r's reference point (Intervals), each at
		// its start; nil past MaxBins: an empty series.
		iv, _ := v.Intervals(r, d)
		for _, b := range iv {
			val := b.Kbps(b.Acked)
			if m == MetricThroughput {
				val = b.Kbps(b.Bytes)
			}
			yield(Point{b.Start, 0, val})
		}
	}
	if r.Series == nil {
		return
	}
	switch m {
	case MetricSeq:
		// The highest sequence sent since the connection's start, drawn in
		// the window.
		var high int64
		for _, p := range r.Series.Segs[d] {
			if p.Payload > 0 && p.End-1 > high {
				high = p.End - 1
				add(p.Time, p.Frame, float64(high))
			}
		}
	case MetricAck:
		for a := range v.Acks(r, d) {
			yield(Point{a.Time, a.Frame, float64(a.Ack)})
		}
	case MetricWindow, MetricInFlight, MetricInFlightSACK:
		i := slices.Index(WindowMetrics[:], m)
		for p := range v.WindowPoints(r, d) {
			if vals, valid := windowValues(&p); valid[i] {
				yield(Point{p.Time, p.Frame, vals[i]})
			}
		}
	}
}
