package plot

import (
	"math"
	"strconv"
	"strings"
	"time"

	gplot "gonum.org/v1/plot"
)

// Unit is the quantity an axis shows, in the unit its data are given in.
// The figure picks the display unit from the data's magnitude and names it
// on the axis: bytes as B, KB, MB or GB (powers of 1000, like rates);
// seconds and milliseconds as ms or s; kbit/s as kbit/s, Mbit/s or Gbit/s.
type Unit int

const (
	// UnitNone is a plain number (a count): no unit in the label.
	UnitNone Unit = iota
	// UnitBytes is a byte count or a sequence-number offset in bytes.
	UnitBytes
	// UnitSeconds is a time in seconds.
	UnitSeconds
	// UnitMillis is a time in milliseconds (RTT samples).
	UnitMillis
	// UnitKbps is a rate in kbit/s (1000 bit/s).
	UnitKbps
)

// scale is a display unit: data value / Div is shown with Name.
type scale struct {
	Div  float64
	Name string
}

// scaleFor picks the display unit of u for data whose largest magnitude
// is m: the largest unit in which m is at least 1.
func scaleFor(u Unit, m float64) scale {
	var cands []scale
	switch u {
	case UnitBytes:
		cands = []scale{{1, "B"}, {1e3, "KB"}, {1e6, "MB"}, {1e9, "GB"}}
	case UnitSeconds:
		cands = []scale{{1e-3, "ms"}, {1, "s"}}
	case UnitMillis:
		cands = []scale{{1, "ms"}, {1e3, "s"}}
	case UnitKbps:
		cands = []scale{{1, "kbit/s"}, {1e3, "Mbit/s"}, {1e6, "Gbit/s"}}
	default:
		return scale{1, ""}
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if m >= c.Div {
			best = c
		}
	}
	return best
}

// axisLabel joins a label and a display unit: "RTT (ms)".
func axisLabel(label string, s scale) string {
	if s.Name == "" {
		return label
	}
	return label + " (" + s.Name + ")"
}

// niceStep returns a step of 1, 2, 2.5 or 5 × 10^k that cuts span into
// about n intervals.
func niceStep(span float64, n int) float64 {
	if span <= 0 || math.IsNaN(span) || math.IsInf(span, 0) {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw*0.999 {
			return m * p
		}
	}
	return 10 * p
}

// niceRange extends [lo, hi] (display units) outwards to multiples of a
// nice step, including 0 when zero is set and the data do not cross it.
func niceRange(lo, hi float64, zero bool, n int) (a, b, step float64) {
	return niceRangeMin(lo, hi, zero, n, 0)
}

// niceRangeMin is niceRange with steps that are whole multiples of unit
// (display units; 0: any step): a byte axis ticks at whole bytes.
func niceRangeMin(lo, hi float64, zero bool, n int, unit float64) (a, b, step float64) {
	if zero {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	if hi <= lo {
		if hi == 0 {
			return 0, 1, wholeStep(0.25, unit)
		}
		lo, hi = lo-math.Abs(lo)*0.1, hi+math.Abs(hi)*0.1
	}
	step = wholeStep(niceStep(hi-lo, n), unit)
	a = math.Floor(lo/step+1e-9) * step
	b = math.Ceil(hi/step-1e-9) * step
	return a, b, step
}

// wholeStep returns step (display units) as a whole multiple of unit: at
// least unit, and 2 units for 2.5 (the one nice step that is not whole at
// 10^0). unit 0 leaves step as it is.
func wholeStep(step, unit float64) float64 {
	if unit <= 0 {
		return step
	}
	switch k := step / unit; {
	case k < 1-1e-9:
		return unit
	case math.Abs(k-2.5) < 1e-9:
		return 2 * unit
	}
	return step
}

// byteScale is the display unit of a byte axis from lo to hi with steps
// of step bytes: the one scaleFor picks for its magnitude, or a smaller one
// when that would print a tick with more than 3 decimals (a 1-byte step
// on a 1.48 MB axis is labelled 1483.946 KB, not 1.483946 MB).
func byteScale(m, step float64) scale {
	sc := scaleFor(UnitBytes, m)
	for sc.Div > 1 && decimals(step/sc.Div) > 3 {
		sc = scaleFor(UnitBytes, sc.Div/10)
	}
	return sc
}

// decimals is the number of decimals that print every multiple of step
// exactly (2.5 → 1, 0.25 → 2, 5 → 0).
func decimals(step float64) int {
	for d := 0; d < 10; d++ {
		f := step * math.Pow(10, float64(d))
		// f must reach a whole number, not round to 0: a step of 2e-7
		// needs 7 decimals.
		if math.Round(f) != 0 && math.Abs(f-math.Round(f)) < 1e-6*math.Max(1, f) {
			return d
		}
	}
	return 10
}

// niceTicks labels every multiple of Step (display units) between the
// axis ends; data values are display values × Div.
type niceTicks struct {
	Step float64
	Div  float64
	// The arguments of setAxis, so fitTicks can redo it for the room the
	// axis gets.
	label    string
	unit     Unit
	lo, hi   float64
	zero     bool
	snap     bool
	interval int
	// whole is the least step, in display units, that steps must be a
	// whole multiple of (one byte on a byte axis); 0: any.
	whole float64
	name  string // the display unit's name
	// bare drops the labels (the ticks become gonum's minor ones, and
	// the axis takes no room for labels): an upper panel of a stack,
	// whose x axis is the one under the last panel (Stack).
	bare bool
}

// Ticks implements gplot.Ticker.
func (t niceTicks) Ticks(min, max float64) []gplot.Tick {
	lo, hi := min/t.Div, max/t.Div
	if t.Step <= 0 || hi <= lo || (hi-lo)/t.Step > 50 {
		return gplot.DefaultTicks{}.Ticks(min, max)
	}
	dec := decimals(t.Step)
	var out []gplot.Tick
	for k := math.Ceil(lo/t.Step - 1e-9); k*t.Step <= hi+t.Step*1e-9; k++ {
		v := k * t.Step
		label := strings.Replace(strconv.FormatFloat(v, 'f', dec, 64), "-", "−", 1)
		if math.Abs(v) < t.Step*1e-9 {
			v, label = 0, "0" // "0", never "0.0"
		}
		// A typographic minus (U+2212), as in print, not a hyphen.
		val := v * t.Div
		if u := t.whole * t.Div; u > 0 {
			val = math.Round(val/u) * u // a whole byte, not 1483946.0000000002
		}
		if t.bare {
			label = ""
		}
		out = append(out, gplot.Tick{Value: val, Label: label})
	}
	return out
}

// setAxis gives a an axis label with the unit chosen from the data range
// [lo, hi] (data units), nice ticks, and ends on ticks when snap is set
// (else the range is [lo, hi] with ticks inside). zero includes 0.
func setAxis(a *gplot.Axis, label string, u Unit, lo, hi float64, zero, snap bool) {
	setAxisN(a, label, u, lo, hi, zero, snap, 6)
}

// setAxisN is setAxis with about n tick intervals.
func setAxisN(a *gplot.Axis, label string, u Unit, lo, hi float64, zero, snap bool, n int) {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		lo, hi = 0, 1
	}
	m := math.Max(math.Abs(lo), math.Abs(hi))
	if u == UnitBytes {
		// Bytes and sequence numbers are whole: ticks at whole bytes,
		// in a unit that prints them with few decimals.
		l, h := lo, hi
		if zero {
			l, h = math.Min(l, 0), math.Max(h, 0)
		}
		_, _, step := niceRangeMin(l, h, false, n, 1)
		sc := byteScale(m, step)
		setAxisWhole(a, label, u, sc, lo, hi, zero, snap, n, 1/sc.Div)
		return
	}
	setAxisScale(a, label, u, scaleFor(u, m), lo, hi, zero, snap, n)
}

// setAxisScale is setAxisN in the display unit sc.
func setAxisScale(a *gplot.Axis, label string, u Unit, sc scale, lo, hi float64, zero, snap bool, n int) {
	setAxisWhole(a, label, u, sc, lo, hi, zero, snap, n, 0)
}

// setAxisWhole is setAxisScale with steps that are whole multiples of
// whole (display units; 0: any).
func setAxisWhole(a *gplot.Axis, label string, u Unit, sc scale, lo, hi float64, zero, snap bool, n int, whole float64) {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		lo, hi = 0, 1
	}
	a.Label.Text = axisLabel(label, sc)
	l, h, step := niceRangeMin(lo/sc.Div, hi/sc.Div, zero, n, whole)
	if snap {
		a.Min, a.Max = l*sc.Div, h*sc.Div
	} else {
		if zero {
			lo = math.Min(lo, 0)
		}
		a.Min, a.Max = lo, hi+0.02*(hi-lo)
		if hi <= lo {
			a.Min, a.Max = l*sc.Div, h*sc.Div
		}
	}
	a.Tick.Marker = niceTicks{Step: step, Div: sc.Div, label: label, unit: u, lo: lo, hi: hi, zero: zero, snap: snap, interval: n, whole: whole, name: sc.Name}
}

// fitTicks makes a's nice ticks coarser, for about n intervals, when the
// axis has room for fewer than it was set up with. The range stays: the
// data, and marks placed on its edge, were drawn for it.
func fitTicks(a *gplot.Axis, n int) { fitTicksLeast(a, n, 2) }

// fitTicksLeast is fitTicks down to least intervals: 1 for a y axis of a
// panel under 2.2 font sizes tall, whose two ends, 0 and the top, are all
// the labels it has room for.
func fitTicksLeast(a *gplot.Axis, n, least int) {
	t, ok := a.Tick.Marker.(niceTicks)
	if !ok || n >= t.interval {
		return
	}
	n = max(n, least)
	span := (a.Max - a.Min) / t.Div
	step := niceStep(span, n)
	// Prefer a step that also ends on the top of the axis (60 by 30,
	// not by 50), when one is nearly as round.
	raw := span / float64(n)
	pw := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 3, 4, 5, 10} {
		c := m * pw
		if t.whole > 0 && wholeStep(c, t.whole) != c {
			continue
		}
		if c >= raw*0.999 && c <= step*1.001 {
			if k := span / c; math.Abs(k-math.Round(k)) < 1e-6 {
				step = c
				break
			}
		}
	}
	if n == 1 && a.Min == 0 {
		// The two ends: the top labelled if it lies on a tick of the
		// steps set up (0–60 by 30: 60), else the highest tick below it.
		if k := math.Floor(span/t.Step + 1e-9); k >= 1 {
			step = t.Step * k
		}
	}
	step = wholeStep(step, t.whole)
	if step <= t.Step {
		return
	}
	t.Step, t.interval = step, n
	a.Tick.Marker = t
}

// DurationLabel prints d for a title or legend with three significant
// digits and a space before the unit: 363.886 ms → "364 ms", 1.5 s →
// "1.50 s", 2 ms → "2.00 ms", 250 µs → "250 µs".
func DurationLabel(d time.Duration) string {
	v, unit := d.Seconds(), "s"
	switch a := math.Abs(v); {
	case a == 0:
		return "0 s"
	case a < 1e-3:
		v, unit = v*1e6, "µs"
	case a < 1:
		v, unit = v*1e3, "ms"
	}
	dec := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	if r := math.Round(v*math.Pow(10, float64(dec))) / math.Pow(10, float64(dec)); dec > 0 && math.Floor(math.Log10(math.Abs(r))) > math.Floor(math.Log10(math.Abs(v))) {
		dec-- // 99.96 ms → "100 ms", not "100.0 ms"
	}
	return strconv.FormatFloat(v, 'f', dec, 64) + " " + unit
}
