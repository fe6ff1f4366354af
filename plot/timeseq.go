package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Colours of the time-sequence graph, after tcptrace/xplot: data black,
// retransmissions red, out-of-order blue, ACK line green, receive-window
// line olive, SACK blocks purple, SYN/FIN orange.
var (
	ColData    = color.RGBA{0, 0, 0, 255}
	ColRetx    = color.RGBA{220, 20, 20, 255}
	ColOOO     = color.RGBA{30, 90, 230, 255}
	ColAck     = color.RGBA{0, 150, 0, 255}
	ColWindow  = color.RGBA{180, 160, 0, 255}
	ColSACK    = color.RGBA{150, 40, 190, 255}
	ColControl = color.RGBA{240, 130, 0, 255}
)

// TimeSeqOptions select what a time-sequence graph shows.
type TimeSeqOptions struct {
	Dir flows.Direction
	// From and To limit the x axis, as offsets from the connection's first
	// packet; To ≤ 0 means the end of the connection.
	From, To time.Duration
	// Run names the run in the title: its label or file name.
	Run   string
	Title string // empty: a title naming the run, connection and endpoints
	// AckName names the ACK line in the legend; empty: "cumulative ACK".
	// A direction a split-TCP PEP acknowledged says so (PEPAckName).
	AckName string
	// Vantage, when not empty, is a title line saying where the capture
	// was taken when that changes what the graph shows (query.VantageTitle).
	Vantage string
}

// PEPAckName is the ACK line's name when a split-TCP PEP acknowledged the
// data (docs/metrics.md#pep): its ACKs say what the PEP accepted, not what
// reached the receiver.
const PEPAckName = "ACK, likely from a PEP (accepted, not end-to-end)"

// PEPAckNameProven is PEPAckName when the path RTT given proves the split
// (pep.Verdict.Proven: seq --pep --path-rtt).
const PEPAckNameProven = "ACK from the PEP (accepted, not end-to-end)"

// PEPAckNamePossible is the ACK line's name when a split-TCP PEP may have
// acknowledged the data (pep.Verdict.Possible): one capture cannot tell
// the receiver's ACKs from a PEP's on the sender's link.
const PEPAckNamePossible = "ACK, from the receiver or a PEP? (unknown: see note)"

// bars draws vertical segments [Y0, Y1] at X, one colour for all.
type bars struct {
	x, y0, y1 []float64
	style     draw.LineStyle
	// minH is the least height a bar is drawn with, centred on it (0:
	// 0.6 pt from its foot, so that one-byte segments stay visible).
	// Retransmissions and out-of-order segments are drawn at least
	// markH tall: at a whole connection's scale a segment is under a
	// pixel, and a pixel of red on the line of data is not seen (a
	// 1.25 M-segment connection with 414 retransmissions looked loss-free).
	minH vg.Length
	// noRing, when set, is per bar: it gets no ring (a retransmission
	// carrying a SYN or FIN, marked by a red triangle instead).
	noRing []bool
}

// markH is the least height of a retransmission or out-of-order bar.
var markH = vg.Points(4)

func (b *bars) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := transforms(&c, p)
	c.SetLineStyle(b.style)
	stroke := func(x, y0, y1 vg.Length) {
		var path vg.Path
		path.Move(vg.Point{X: x, Y: y0})
		path.Line(vg.Point{X: x, Y: y1})
		c.Stroke(path)
	}
	reduce := len(b.x) > reduceAbove
	var col []devBar // the bars of the device column being filled
	w := columnWidth(c)
	colOf := func(x vg.Length) float64 { return math.Floor(float64(x / w)) }
	for i := range b.x {
		// Only what lies within the axes (a zoomed figure): a bar is cut
		// at the edges, one outside is not drawn.
		if b.x[i] < p.X.Min || b.x[i] > p.X.Max || b.y1[i] < p.Y.Min || b.y0[i] > p.Y.Max {
			continue
		}
		x := trX(b.x[i])
		y0, y1 := trY(max(b.y0[i], p.Y.Min)), trY(min(b.y1[i], p.Y.Max))
		if b.minH > 0 && y1-y0 < b.minH {
			mid := (y0 + y1) / 2
			y0, y1 = mid-b.minH/2, mid+b.minH/2
		} else if y1-y0 < vg.Points(0.6) { // keep one-byte segments visible
			y1 = y0 + vg.Points(0.6)
		}
		if !reduce {
			stroke(x, y0, y1)
			continue
		}
		if len(col) > 0 && colOf(col[0].x) != colOf(x) {
			for _, m := range mergeBars(col) {
				stroke(m.x, m.y0, m.y1)
			}
			col = col[:0]
		}
		col = append(col, devBar{x, y0, y1})
	}
	for _, m := range mergeBars(col) {
		stroke(m.x, m.y0, m.y1)
	}
}

// devBar is a bar in device units.
type devBar struct{ x, y0, y1 vg.Length }

// mergeBars merges the bars of one device column whose extents overlap or
// touch into one, drawn at the x of the lowest; bars apart stay apart.
func mergeBars(col []devBar) []devBar {
	if len(col) < 2 {
		return col
	}
	slices.SortStableFunc(col, func(a, b devBar) int { return cmp.Compare(a.y0, b.y0) })
	out := col[:1]
	for _, b := range col[1:] {
		if last := &out[len(out)-1]; b.y0 <= last.y1 {
			last.y1 = max(last.y1, b.y1)
			continue
		}
		out = append(out, b)
	}
	return out
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	if len(b.x) == 0 {
		return 0, 0, 0, 0
	}
	xmin, xmax, ymin, ymax = b.x[0], b.x[0], b.y0[0], b.y1[0]
	for i := range b.x {
		xmin, xmax = min(xmin, b.x[i]), max(xmax, b.x[i])
		ymin, ymax = min(ymin, b.y0[i]), max(ymax, b.y1[i])
	}
	return
}

func (b *bars) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(b.style, x, c.Min.Y, x, c.Max.Y)
}

func (b *bars) add(x, y0, y1 float64) {
	b.x = append(b.x, x)
	b.y0 = append(b.y0, y0)
	b.y1 = append(b.y1, y1)
}

// Endpoints returns "a:port → b:port" for direction d of c.
func Endpoints(c *flows.Conn, d flows.Direction) string {
	return fmt.Sprintf("%s → %s", c.Half[d].Addr, c.Half[d.Reverse()].Addr)
}

// TimeSeq draws the Stevens time-sequence graph of direction o.Dir of r,
// which must have been analysed with its Series kept: x is seconds since the
// connection's first packet, y bytes relative to the ISN of the data
// direction, in B, KB or MB as the data need. The legend lists only the
// marks drawn. It returns an error when r has no series.
func TimeSeq(r *tcpanalysis.ConnResult, o TimeSeqOptions) (Figure, error) {
	if r.Series == nil {
		return Figure{}, fmt.Errorf("connection %d was analysed without its series", r.Conn.Index)
	}
	c := r.Conn
	d := o.Dir
	t0 := c.First
	in := func(t capture.Timestamp) bool {
		dt := t.Sub(t0)
		return dt >= o.From && (o.To <= 0 || dt <= o.To)
	}
	x := func(t capture.Timestamp) float64 { return t.Sub(t0).Seconds() }

	fig := Figure{Title: o.Title}
	if fig.Title == "" {
		fig.Title = fmt.Sprintf("conn %d: %s, time-sequence", c.Index, Endpoints(c, d))
		if o.Run != "" {
			fig.Title = o.Run + " — " + fig.Title
		}
	}
	if o.Vantage != "" {
		fig.Title += "\n" + o.Vantage
	}
	p := gplot.New()
	p.Add(&grid{})

	style := func(col color.Color, w float64) draw.LineStyle {
		return draw.LineStyle{Color: col, Width: vg.Points(w)}
	}
	// Sized once: a million-segment connection's bars never grow.
	nseg := len(r.Series.Segs[d])
	data := &bars{style: style(ColData, 1), x: make([]float64, 0, nseg), y0: make([]float64, 0, nseg), y1: make([]float64, 0, nseg)}
	retx := &bars{style: style(ColRetx, 1.3), minH: markH}
	ooo := &bars{style: style(ColOOO, 1.3), minH: markH}
	// SYN and FIN marks: orange triangles, red ones when the SYN or FIN
	// was sent again (a retransmission, docs/metrics.md#control-retransmissions).
	var synfin, synfinRetx plotter.XYs
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	grow := func(x, y0, y1 float64) {
		xlo, xhi = min(xlo, x), max(xhi, x)
		ylo, yhi = min(ylo, y0), max(yhi, y1)
	}
	for _, s := range r.Series.Segs[d] {
		if !in(s.Time) {
			continue
		}
		grow(x(s.Time), float64(s.Start), float64(s.End))
		marks := &synfin
		if s.Kind == tcpanalysis.KindRetransmitted {
			marks = &synfinRetx
		}
		if s.Payload == 0 {
			*marks = append(*marks, plotter.XY{X: x(s.Time), Y: float64(s.Start)})
			continue
		}
		// A SYN or FIN carried with payload gets the same mark at its own
		// sequence number (the SYN's is the first, the FIN's the last of
		// the segment), besides the payload's bar.
		if s.Flags.Has(capture.SYN) {
			*marks = append(*marks, plotter.XY{X: x(s.Time), Y: float64(s.Start)})
		}
		if s.Flags.Has(capture.FIN) {
			*marks = append(*marks, plotter.XY{X: x(s.Time), Y: float64(s.End - 1)})
		}
		b := data
		switch s.Kind {
		case tcpanalysis.KindRetransmitted:
			b = retx
			// A retransmission carrying a SYN or FIN is marked by its
			// red triangle, not also by a ring: the ring on the bar's
			// top would hide the triangle a byte below it.
			b.noRing = append(b.noRing, s.Flags.Has(capture.SYN) || s.Flags.Has(capture.FIN))
		case tcpanalysis.KindOutOfOrder:
			b = ooo
		}
		b.add(x(s.Time), float64(s.Start), float64(s.End))
	}
	zoomed := o.From > 0 || o.To > 0
	var vis []func(box) bool // per legend entry: does it show within the axes
	// A zoomed figure fits y to what is in view (docs/metrics.md#seq-zoom):
	// the segments, SACK blocks and ACK line, and the receive-window edge
	// when that at most quadruples the axis; an edge further above (a
	// window far larger than the flight) is named in the legend as above
	// the axis, with its highest value.
	wlo, whi := math.Inf(1), math.Inf(-1)
	ackXY, winXY := make(plotter.XYs, 0, len(r.Series.Acks[d])), make(plotter.XYs, 0, len(r.Series.Acks[d]))
	var prevAck, prevWin *plotter.XY // the values holding when the view starts
	winAbove := math.NaN()           // zoomed: the window edge's highest value, when off the axes
	var lastT float64
	winKnown := true
	for _, a := range r.Series.Acks[d] {
		lastT = max(lastT, x(a.Time))
		if !a.WindowKnown {
			winKnown = false
		}
		if zoomed && a.Time.Sub(t0) < o.From {
			prevAck = &plotter.XY{X: o.From.Seconds(), Y: float64(a.Ack)}
			prevWin = nil
			if a.WindowKnown {
				prevWin = &plotter.XY{X: o.From.Seconds(), Y: float64(a.Ack + a.Window)}
			}
			continue
		}
		if !in(a.Time) {
			continue
		}
		ackXY = append(ackXY, plotter.XY{X: x(a.Time), Y: float64(a.Ack)})
		grow(x(a.Time), float64(a.Ack), float64(a.Ack))
		if a.WindowKnown {
			w := float64(a.Ack + a.Window)
			winXY = append(winXY, plotter.XY{X: x(a.Time), Y: w})
			if zoomed {
				wlo, whi = min(wlo, w), max(whi, w)
			} else {
				grow(x(a.Time), w, w)
			}
		}
	}
	if zoomed {
		// The step lines hold their value across the view: from the
		// last ACK before it to the end of the view (or of the ACKs).
		end := lastT
		if o.To > 0 {
			end = min(end, o.To.Seconds())
		}
		hold := func(pts plotter.XYs, prev *plotter.XY, track bool) plotter.XYs {
			// Nothing holds in a view that starts after the last ACK
			// (the line ends there, as in the whole figure).
			if prev != nil && prev.X <= end && (len(pts) == 0 || pts[0].X > prev.X) {
				pts = append(plotter.XYs{*prev}, pts...)
				if track {
					grow(prev.X, prev.Y, prev.Y)
				} else {
					wlo, whi = min(wlo, prev.Y), max(whi, prev.Y)
				}
			}
			if n := len(pts); n > 0 && end > pts[n-1].X {
				pts = append(pts, plotter.XY{X: end, Y: pts[n-1].Y})
			}
			return pts
		}
		ackXY = hold(ackXY, prevAck, true)
		winXY = hold(winXY, prevWin, false)
		switch {
		case math.IsInf(wlo, 0):
		case math.IsInf(ylo, 0):
			ylo, yhi = wlo, whi
		case max(yhi, whi)-min(ylo, wlo) <= winFit*max(yhi-ylo, 1):
			ylo, yhi = min(ylo, wlo), max(yhi, whi)
		default:
			winAbove = whi
		}
	}
	// A line of one ACK (a direction acknowledged once) would be drawn
	// with no length, and so not at all: it holds to the connection's
	// last packet (or the view's end), as every step line holds to its
	// next value.
	if n := x(r.Conn.Last); !zoomed || o.To <= 0 || n <= o.To.Seconds() {
		for _, pts := range []*plotter.XYs{&ackXY, &winXY} {
			if len(*pts) == 1 && n > (*pts)[0].X {
				*pts = append(*pts, plotter.XY{X: n, Y: (*pts)[0].Y})
			}
		}
	} else {
		for _, pts := range []*plotter.XYs{&ackXY, &winXY} {
			if len(*pts) == 1 && o.To.Seconds() > (*pts)[0].X {
				*pts = append(*pts, plotter.XY{X: o.To.Seconds(), Y: (*pts)[0].Y})
			}
		}
	}
	winEntry := -1 // the receive window's legend entry
	sack := &bars{style: style(ColSACK, 0.8)}
	for _, s := range r.Series.SACKs[d] {
		if in(s.Time) {
			sack.add(x(s.Time), float64(s.Left), float64(s.Right))
			if zoomed {
				grow(x(s.Time), float64(s.Left), float64(s.Right))
			}
		}
	}
	if len(winXY) > 0 {
		l, err := lineOf(winXY)
		if err != nil {
			return Figure{}, err
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = style(ColWindow, 1)
		p.Add(&reducedLine{Line: l})
		// Named "above the axis" once the axis is set (aboveAxis).
		winEntry = len(fig.Legend)
		fig.Legend = append(fig.Legend, Entry{"receive window (ACK + rwnd)", []gplot.Thumbnailer{l}})
		vis = append(vis, func(b box) bool { return !math.IsNaN(winAbove) || b.step(winXY) })
	}
	if len(ackXY) > 0 {
		l, err := lineOf(ackXY)
		if err != nil {
			return Figure{}, err
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = style(ColAck, 1.2)
		p.Add(&reducedLine{Line: l})
		name := "cumulative ACK"
		if o.AckName != "" {
			name = o.AckName
		}
		fig.Legend = append(fig.Legend, Entry{name, []gplot.Thumbnailer{l}})
		vis = append(vis, func(b box) bool { return b.step(ackXY) })
	}
	// SYN and FIN carry no payload: a bar would be one byte tall and
	// hidden under the ACK line, so they are triangles; a retransmitted
	// one is red and listed with the retransmissions.
	triangles := func(pts plotter.XYs, col color.Color) (*plotter.Scatter, error) {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.4), Shape: draw.TriangleGlyph{}}
		return sc, nil
	}
	for _, b := range []struct {
		b    *bars
		name string
		col  color.Color
	}{{data, "data segment", nil}, {retx, "retransmission", ColRetx}, {ooo, "out-of-order", ColOOO}, {sack, "SACK block", nil}} {
		if b.b == retx && len(synfinRetx) > 0 {
			sc, err := triangles(synfinRetx, ColRetx)
			if err != nil {
				return Figure{}, err
			}
			var e Entry
			if len(retx.x) == 0 {
				e = Entry{b.name, []gplot.Thumbnailer{sc}}
			} else {
				p.Add(retx)
				e = Entry{b.name, []gplot.Thumbnailer{retx}}
				if rs := rings(retx); rs != nil {
					p.Add(rs)
					e.Thumbs = append(e.Thumbs, rs)
				}
				// Bar (and ring) and triangle side by side.
				e.Thumbs = []gplot.Thumbnailer{sideBySide{e.Thumbs, sc}}
			}
			p.Add(sc)
			fig.Legend = append(fig.Legend, e)
			vis = append(vis, func(b box) bool { return b.bars(retx) || b.points(synfinRetx) })
			continue
		}
		if len(b.b.x) == 0 {
			continue
		}
		p.Add(b.b)
		e := Entry{b.name, []gplot.Thumbnailer{b.b}}
		// SACK blocks come last: drawn under the data bars they can
		// hide entirely. Mark a few retransmissions and out-of-order segments with a
		// ring too: a one-segment bar is a pixel or two tall at a whole
		// connection's scale. Many: the bars show them, rings would
		// cover the data.
		if b.col != nil {
			if rs := rings(b.b); rs != nil {
				rs.GlyphStyle.Color = b.col
				p.Add(rs)
				e.Thumbs = append(e.Thumbs, rs)
			}
		}
		fig.Legend = append(fig.Legend, e)
		bb := b.b
		vis = append(vis, func(b box) bool { return b.bars(bb) })
	}
	if len(synfin) > 0 {
		sc, err := triangles(synfin, ColControl)
		if err != nil {
			return Figure{}, err
		}
		p.Add(sc)
		fig.Legend = append(fig.Legend, Entry{"SYN / FIN", []gplot.Thumbnailer{sc}})
		vis = append(vis, func(b box) bool { return b.points(synfin) })
	}
	if math.IsInf(xlo, 0) {
		xlo, xhi, ylo, yhi = 0, 1, 0, 1
	}
	if zoomed {
		to := xhi
		if o.To > 0 {
			to = o.To.Seconds()
		}
		if to <= o.From.Seconds() {
			// Nothing after --from (past the connection's end): a
			// second from there, not an axis that ends before it
			// starts (the verb warns that the figure draws nothing).
			to = o.From.Seconds() + 1
		}
		setAxis(&p.X, "time since the connection's first packet", UnitSeconds, o.From.Seconds(), to, false, false)
		// y fits what is in view, with room for the marks at its ends
		// (a ring on the lowest segment stays whole).
		pad := (yhi - ylo) * 0.08
		if pad <= 0 {
			pad = max(1, math.Abs(yhi)*0.001)
		}
		setAxis(&p.Y, "relative sequence number", UnitBytes, ylo-pad, yhi+pad, false, false)
		if winEntry >= 0 && !math.IsNaN(winAbove) {
			sc := scaleFor(UnitBytes, winAbove)
			if t, ok := p.Y.Tick.Marker.(niceTicks); ok {
				sc = scale{t.Div, t.name} // the axis's unit
			}
			fig.Legend[winEntry].Name += ", above the axis (up to " + aboveAxis(winAbove, p.Y.Max, sc) + ")"
		}
		// The legend lists only what shows within the axes.
		b := box{p.X.Min, p.X.Max, p.Y.Min, p.Y.Max}
		var keep []Entry
		for i, e := range fig.Legend {
			if vis[i](b) {
				keep = append(keep, e)
			}
		}
		fig.Legend = keep
	} else {
		setAxis(&p.X, "time since the connection's first packet", UnitSeconds, xlo, xhi, true, false)
		setAxis(&p.Y, "relative sequence number", UnitBytes, ylo, yhi, true, true)
	}
	if !winKnown && r.Conn.Half[d.Reverse()].WScale < 0 {
		// Of the connection, not of one point: a RST's ACK before the
		// handshake carries no window and the line is still drawn.
		fig.Title += "\nwindow scale unknown (no handshake): receive-window line not drawn"
	}
	fig.Panels = []*gplot.Plot{p}
	return fig, nil
}

// rings marks a few of b's bars (retransmissions, out-of-order segments)
// with a ring on their top, in b's colour: a one-segment bar is a pixel or
// two tall at a whole connection's scale. Many (over 200): the bars show
// them, rings would cover the data; then, or when every bar is exempt
// (noRing), it returns nil.
func rings(b *bars) *plotter.Scatter {
	if len(b.x) > 200 {
		return nil
	}
	var pts plotter.XYs
	for i := range b.x {
		if i < len(b.noRing) && b.noRing[i] {
			continue
		}
		pts = append(pts, plotter.XY{X: b.x[i], Y: b.y1[i]})
	}
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: b.style.Color, Radius: vg.Points(2.2), Shape: draw.RingGlyph{}}
	return sc
}

// sideBySide is a legend thumbnail of two marks: left's in the left half,
// right in the right half (a retransmission's bar and ring, and the red
// triangle of a retransmitted SYN or FIN).
type sideBySide struct {
	left  []gplot.Thumbnailer
	right gplot.Thumbnailer
}

func (s sideBySide) Thumbnail(c *draw.Canvas) {
	mid := (c.Min.X + c.Max.X) / 2
	l, r := *c, *c
	l.Max.X, r.Min.X = mid, mid
	for _, t := range s.left {
		t.Thumbnail(&l)
	}
	s.right.Thumbnail(&r)
}

// aboveAxis prints v (bytes), a value above an axis ending at top, in
// the axis's display unit sc, with enough significant digits (at least 3)
// that it reads as above the top even to one who takes it as rounded: it is
// v rounded down, and half a unit of its last digit below it is still above
// top. Over a top of 1208.0955 MB, 1210.1 MB is "1210 MB", not "1.21 GB".
func aboveAxis(v, top float64, sc scale) string {
	x := v / sc.Div
	for digits := 3; ; digits++ {
		e := math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-float64(digits-1))
		r := math.Floor(x/e+1e-9) * e
		if (r-e/2)*sc.Div > top || e*sc.Div <= 1 || digits >= 12 { // a whole byte is exact
			return strconv.FormatFloat(r, 'f', max(0, -int(math.Floor(math.Log10(e)+1e-9))), 64) + " " + sc.Name
		}
	}
}

// winFit is how many times the span of the data in view a zoomed
// time-sequence graph's y axis may grow to include the receive-window edge.
const winFit = 4

// box is the data range within a figure's axes.
type box struct{ x0, x1, y0, y1 float64 }

// step reports whether a step line through pts (each value holding to the
// next point) passes through b.
func (b box) step(pts plotter.XYs) bool {
	if len(pts) < 2 {
		return false // one point draws no line
	}
	for i, p := range pts {
		end := p.X
		if i+1 < len(pts) {
			end = pts[i+1].X
		}
		if p.Y >= b.y0 && p.Y <= b.y1 && end >= b.x0 && p.X <= b.x1 {
			return true
		}
	}
	return false
}

// bars reports whether a bar of bs lies (partly) within b.
func (b box) bars(bs *bars) bool {
	for i := range bs.x {
		if bs.x[i] >= b.x0 && bs.x[i] <= b.x1 && bs.y1[i] >= b.y0 && bs.y0[i] <= b.y1 {
			return true
		}
	}
	return false
}

// points reports whether a point of pts lies within b.
func (b box) points(pts plotter.XYs) bool {
	for _, p := range pts {
		if p.X >= b.x0 && p.X <= b.x1 && p.Y >= b.y0 && p.Y <= b.y1 {
			return true
		}
	}
	return false
}

// Formats lists the image formats a Figure renders (by file extension).
var Formats = []string{"png", "svg", "pdf"}

// FormatOf returns the image format for a file name's extension, or "".
func FormatOf(path string) string {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	for _, f := range Formats {
		if f == ext {
			return f
		}
	}
	return ""
}
