package plot

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Entry is one legend entry: the name of what was drawn and the marks it
// was drawn with (a line, a bar, a glyph, or several on top of another, as
// in the data).
type Entry struct {
	Name   string
	Thumbs []gplot.Thumbnailer
}

// Figure is a figure ready to be written in any of Formats: a title naming
// the run, a legend above the data (never on it), and one or more panels
// of data, Cols per row.
type Figure struct {
	Title  string        // may hold several lines
	Panels []*gplot.Plot // drawn in order, Cols per row
	Cols   int           // panels per row; 0 means 1
	Legend []Entry       // only what was drawn, in drawing order
	// XLabel and YLabel, if set, are axis labels shared by every panel
	// (small multiples, Grid): drawn once, under the bottom row and left
	// of the first column, so that a long label is not cut to each
	// panel's height nor squashes the panels (trial13 B9).
	XLabel, YLabel string
	// Drawn reports that a figure without a legend (Grid names each
	// panel by its series instead) still draws data, a value other than
	// 0: a figure that lists nothing and has Drawn false draws nothing.
	Drawn bool
}

// Saver is a figure that renders itself in a format ("png", "svg", "pdf")
// with a Style.
type Saver interface {
	SaveStyle(w io.Writer, format string, st Style) error
}

// Save renders the figure in format with DefaultStyle.
func (f Figure) Save(w io.Writer, format string) error {
	return f.SaveStyle(w, format, DefaultStyle)
}

// SaveStyle renders the figure in format ("png", "svg" or "pdf") with st;
// zero fields of st take DefaultStyle's.
func (f Figure) SaveStyle(w io.Writer, format string, st Style) error {
	st = st.withDefaults()
	c, err := newCanvas(format, st)
	if err != nil {
		return err
	}
	if err := f.safeDraw(draw.New(c), st); err != nil {
		return err
	}
	_, err = c.WriteTo(w)
	return err
}

// safeDraw draws f, turning a panic of the drawing library (it panics on
// text its LaTeX handler cannot parse, for example) into an error.
func (f Figure) safeDraw(dc draw.Canvas, st Style) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("draw figure %q: %v", f.Title, r)
		}
	}()
	return f.draw(dc, st)
}

// pdfDate is the date a PDF says it was made: SOURCE_DATE_EPOCH (seconds
// since 1970, UTC; reproducible-builds.org) when set and valid, else the
// epoch. Nothing else of a figure uses the wall clock.
func pdfDate() time.Time {
	if s, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil && s >= 0 {
		return time.Unix(s, 0).UTC()
	}
	return time.Unix(0, 0).UTC()
}

// newCanvas returns a canvas of the given format that can write itself.
func newCanvas(format string, st Style) (vg.CanvasWriterTo, error) {
	if err := st.Check(); err != nil {
		return nil, err // a NaN or huge size would panic in image.NewRGBA
	}
	switch format {
	case "png":
		return newPNGCanvas(st), nil
	case "svg":
		return vgsvg.New(st.W, st.H), nil
	case "pdf":
		// The same figure is the same file: fpdf stamps the wall clock
		// as CreationDate and ModDate unless told a date
		// (SOURCE_DATE_EPOCH when set, else the epoch, as reproducible
		// builds do), and sorts its catalog only when asked.
		fpdf.SetDefaultCreationDate(pdfDate())
		fpdf.SetDefaultModificationDate(pdfDate())
		fpdf.SetDefaultCatalogSort(true)
		c := vgpdf.New(st.W, st.H)
		c.EmbedFonts(true)
		return cp1252Canvas{c}, nil
	}
	return nil, fmt.Errorf("unknown image format %q: use png, svg or pdf", format)
}

// textStyle is the figure's text at size.
func textStyle(size vg.Length) text.Style {
	return text.Style{Font: font.From(gplot.DefaultFont, size), Handler: gplot.DefaultTextHandler}
}

// ErrTooSmall is returned by Save and SaveStyle when the figure's text
// leaves too little room for its data: a panel under two font sizes of
// height or five of width, or shorter than its y label (which gonum cuts).
var ErrTooSmall = errors.New("figure too small for its text")

func (f Figure) draw(dc draw.Canvas, st Style) error {
	fs := st.FontSize
	pad := fs * 0.5
	area := draw.Crop(dc, pad, -pad, pad, -pad)
	if f.Title != "" && !st.OmitTitle {
		ts := textStyle(fs)
		ts.XAlign = draw.XCenter
		ts.YAlign = draw.YTop
		title := wrap(ts, f.Title, area.Max.X-area.Min.X)
		area.FillText(ts, vg.Point{X: area.Center().X, Y: area.Max.Y}, title)
		area.Max.Y -= ts.Height(title) + fs*0.3
	}
	if len(f.Legend) > 0 {
		h := drawLegend(area, f.Legend, fs*0.9)
		area.Max.Y -= h + fs*0.3
	}
	if len(f.Panels) == 0 {
		return nil
	}
	for _, p := range f.Panels {
		applyFonts(p, st)
	}
	area = f.drawSharedLabels(area, fs)
	cols := max(f.Cols, 1)
	// Fewer ticks where a panel is small: one label per 2.2 font sizes of
	// height and per 5 font sizes of width at most.
	rows := (len(f.Panels) + cols - 1) / cols
	ph := (area.Max.Y-area.Min.Y)/vg.Length(rows) - 3.5*fs
	pw := (area.Max.X-area.Min.X)/vg.Length(cols) - 4*fs
	// Panel titles are wrapped to the panel's width like the figure's
	// title (at a colon or dot where a long address has no space).
	colW := (area.Max.X-area.Min.X-fs*vg.Length(cols-1))/vg.Length(cols) - fs*0.5
	for _, p := range f.Panels {
		// A y label longer than the panel is wrapped (gonum would cut it
		// at the figure's edges: compare's "throughput, retransmissions
		// included (Mbit/s)" at the paper size).
		if l, room := p.Y.Label.Text, ph+fs; l != "" && room > 3*fs && p.Y.Label.TextStyle.Width(l) > room {
			if w := wrap(p.Y.Label.TextStyle, l, room); strings.TrimSpace(w) != "" {
				p.Y.Label.Text = w
			}
		}
		// An x label wider than the panel likewise (a tall narrow
		// figure cut "time since the connection's first packet (s)" at
		// the left edge).
		if l, room := p.X.Label.Text, pw+3*fs; l != "" && room > 3*fs && p.X.Label.TextStyle.Width(l) > room {
			if w := wrap(p.X.Label.TextStyle, l, room); strings.TrimSpace(w) != "" {
				p.X.Label.Text = w
			}
		}
		h := ph
		if p.Title.Text != "" {
			p.Title.Text = fitTitle(p.Title.TextStyle, p.Title.Text, colW)
			h -= 1.5 * fs * vg.Length(strings.Count(p.Title.Text, "\n")+1)
		}
		fitTicks(&p.Y, int(h/(2.2*fs)))
		fitTicks(&p.X, int(pw/(5*fs)))
	}
	if len(f.Panels) == 1 {
		if err := fits(st, f.Panels[0], area); err != nil {
			return err
		}
		fitY(f.Panels[0], area, fs)
		f.Panels[0].Draw(area)
		return nil
	}
	grid := make([][]*gplot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*gplot.Plot, cols)
		for j := range grid[i] {
			if k := i*cols + j; k < len(f.Panels) {
				grid[i][j] = f.Panels[k]
			}
		}
	}
	t := draw.Tiles{Rows: rows, Cols: cols, PadX: fs, PadY: fs * 0.6}
	canvases := gplot.Align(grid, t, area)
	if cols == 1 {
		evenData(grid, canvases)
	}
	for i := range grid {
		for j := range grid[i] {
			if grid[i][j] != nil {
				if err := fits(st, grid[i][j], canvases[i][j]); err != nil {
					return err
				}
				fitY(grid[i][j], canvases[i][j], fs)
			}
		}
	}
	for i := range grid {
		for j := range grid[i] {
			if grid[i][j] != nil {
				grid[i][j].Draw(canvases[i][j])
			}
		}
	}
	return nil
}

// evenData gives the panels of a one-column grid (a stack) data areas of
// one height: gonum's Align gives their tiles one height, so a panel with
// a longer title or its x tick labels got less room for its data than the
// others (the RTT figure's upper panel at 8.5 × 6 cm: 3 mm against 13).
// Each tile keeps what its axes and title take (the tile's height less
// its data's, gonum's own DataCanvas) and the gaps between tiles stay.
func evenData(grid [][]*gplot.Plot, cs [][]draw.Canvas) {
	n := len(grid)
	if n < 2 {
		return
	}
	for i := range n {
		if grid[i][0] == nil {
			return
		}
	}
	top, bottom := cs[0][0].Max.Y, cs[n-1][0].Min.Y
	gaps := make([]vg.Length, n) // below each tile
	for i := range n - 1 {
		gaps[i] = cs[i][0].Min.Y - cs[i+1][0].Max.Y
	}
	// What a tile takes besides its data depends a little on its height
	// (gonum pads the data for the glyphs at its edges), so the split is
	// made again from the last one's until the data heights agree.
	for range 4 {
		over := make([]vg.Length, n)
		room := top - bottom
		for i := range n {
			c := cs[i][0]
			d := grid[i][0].DataCanvas(c)
			over[i] = (c.Max.Y - c.Min.Y) - (d.Max.Y - d.Min.Y)
			room -= over[i] + gaps[i]
		}
		h := room / vg.Length(n)
		if h <= 0 {
			return
		}
		y := top
		for i := range n {
			cs[i][0].Max.Y = y
			cs[i][0].Min.Y = y - over[i] - h
			y = cs[i][0].Min.Y - gaps[i]
		}
	}
}

// fitY makes panel p's y ticks coarser for the height its data gets on c
// (gonum's own data area, which the estimate before the layout can
// exceed): about one label per 2.2 font sizes, and under 2.2 font sizes
// only the two ends, 0 and the top.
func fitY(p *gplot.Plot, c draw.Canvas, fs vg.Length) {
	d := p.DataCanvas(c)
	h := d.Max.Y - d.Min.Y
	least := 2
	if h < 2.2*fs {
		least = 1
	}
	fitTicksLeast(&p.Y, int(h/(2.2*fs)), least)
}

// fits checks that panel p, drawn on c, has room for its data: gonum
// squeezes a panel's data below a few font sizes into a strip (at 16 pt
// on the default size the RTT figure's data panel was 8 pt tall, its tick
// labels on one another) and cuts a y label longer than the panel and a
// font size (draw wraps a long one first: the seq figure's at 16 pt). The
// data area is gonum's own (Plot.DataCanvas, after the ticks, labels and
// title): at least a font size tall (two tick labels, 0 and the top, one
// over the other) and five wide.
// Errors wrap ErrTooSmall and say what to change.
func fits(st Style, p *gplot.Plot, c draw.Canvas) error {
	fs := st.FontSize
	cm := func(l vg.Length) float64 { return l.Points() / vg.Centimeter.Points() }
	size := fmt.Sprintf("--size %.3gx%.3gcm with --font-size %g", cm(st.W), cm(st.H), fs.Points())
	d := p.DataCanvas(c)
	w, h := d.Max.X-d.Min.X, d.Max.Y-d.Min.Y
	if c.Max.Y-c.Min.Y <= 0 || c.Max.X-c.Min.X <= 0 || h > c.Max.Y-c.Min.Y || w > c.Max.X-c.Min.X {
		h, w = 0, 0 // gonum's layout turned inside out: no room at all
	}
	if h < fs || w < 5*fs {
		return fmt.Errorf("%w: %s leaves %.1f × %.1f cm for a panel's data: give a larger --size or a smaller --font-size", ErrTooSmall, size, cm(max(w, 0)), cm(max(h, 0)))
	}
	if l := p.Y.Label.Text; l != "" {
		if need, have := p.Y.Label.TextStyle.Width(l), c.Max.Y-c.Min.Y+fs; need > have {
			return fmt.Errorf("%w: %s leaves a panel %.1f cm tall, and its y label %q is %.1f cm long: give a larger --size or a smaller --font-size", ErrTooSmall, size, cm(have-fs), l, cm(need))
		}
	}
	return nil
}

// drawSharedLabels draws XLabel and YLabel as an axis of gonum/plot
// would, at the font size of axis labels, and returns what is left of c
// for the panels. A y label longer than the panels are high wraps.
func (f Figure) drawSharedLabels(c draw.Canvas, fs vg.Length) draw.Canvas {
	pad := fs * 0.3
	if f.XLabel != "" {
		ts := textStyle(fs)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YBottom
		x := c.Center().X
		if f.YLabel != "" { // centred under the panels, not under the y label
			x += ts.Height(f.YLabel) / 2
		}
		c.FillText(ts, vg.Point{X: x, Y: c.Min.Y + ts.FontExtents().Descent}, f.XLabel)
		c.Min.Y += ts.Height(f.XLabel) + pad
	}
	if f.YLabel != "" {
		ts := textStyle(fs)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YBottom
		label := wrap(ts, f.YLabel, c.Max.Y-c.Min.Y)
		ts.Rotation = math.Pi / 2
		x := c.Min.X + ts.Height(label)
		descent := ts.FontExtents().Descent
		c.FillText(ts, vg.Point{X: x - descent, Y: c.Center().Y}, label)
		c.Min.X = x + descent + pad
	}
	return c
}

// drawLegend lays the entries out in rows across the top of c (as many per
// row as fit, rows centred) and returns the height used.
func drawLegend(c draw.Canvas, es []Entry, size vg.Length) vg.Length {
	ts := textStyle(size)
	ts.YAlign = draw.YCenter
	thumbW := size * 1.7
	gap := size * 0.35
	colGap := size * 1.0
	rowH := size * 1.3
	width := c.Max.X - c.Min.X
	type item struct {
		e Entry
		w vg.Length
	}
	var rows [][]item
	var rowW []vg.Length
	var cur []item
	var curW vg.Length
	for _, e := range es {
		// A name wider than the figure wraps (its entry then takes
		// several lines of its own).
		e.Name = wrap(ts, e.Name, width-thumbW-gap)
		w := thumbW + gap + ts.Width(e.Name)
		add := w
		if len(cur) > 0 {
			add += colGap
		}
		if len(cur) > 0 && curW+add > width {
			rows, rowW = append(rows, cur), append(rowW, curW)
			cur, curW, add = nil, 0, w
		}
		cur = append(cur, item{e, w})
		curW += add
	}
	if len(cur) > 0 {
		rows, rowW = append(rows, cur), append(rowW, curW)
	}
	top := c.Max.Y
	for i, row := range rows {
		lines := 1
		for _, it := range row {
			lines = max(lines, strings.Count(it.e.Name, "\n")+1)
		}
		y := top - rowH/2
		x := c.Min.X + (width-rowW[i])/2
		for _, it := range row {
			tc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y - rowH*0.38}, Max: vg.Point{X: x + thumbW, Y: y + rowH*0.38}}}
			for _, t := range it.e.Thumbs {
				t.Thumbnail(&tc)
			}
			ts := ts
			ts.YAlign = draw.YTop
			c.FillText(ts, vg.Point{X: x + thumbW + gap, Y: y + ts.Height("x")/2}, it.e.Name)
			x += it.w + colGap
		}
		top -= rowH + ts.Height("x")*vg.Length(lines-1)
	}
	return c.Max.Y - top
}

// wrap breaks each line of s at spaces so that no line is wider than w; a
// word wider than w alone (an IPv6 endpoint) is broken after a colon, dot
// or slash, else between any two characters.
func wrap(ts text.Style, s string, w vg.Length) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		cur := ""
		var words []string
		// Split at plain spaces only: a no-break space (U+00A0) keeps a
		// number with its unit.
		for _, word := range strings.Split(line, " ") {
			if word != "" {
				words = append(words, breakWord(ts, word, w)...)
			}
		}
		for _, word := range words {
			if cur != "" && ts.Width(cur+" "+word) > w {
				out = append(out, cur)
				cur = word
				continue
			}
			if cur != "" {
				cur += " "
			}
			cur += word
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// longV6 is a bracketed IPv6 address of five or more groups.
var longV6 = regexp.MustCompile(`\[([0-9a-fA-F]{0,4}:){4,}[0-9a-fA-F]{0,4}\]`)

// fitTitle wraps a panel title to width w; when it would need more than
// one line, long IPv6 addresses are shortened to their first two and last
// group ("[2001:470:…:2e3e]", the figure's title names the connection in
// full) where that saves a line.
func fitTitle(ts text.Style, s string, w vg.Length) string {
	t := wrap(ts, s, w)
	if !strings.Contains(t, "\n") {
		return t
	}
	short := longV6.ReplaceAllStringFunc(s, func(a string) string {
		g := strings.Split(strings.Trim(a, "[]"), ":")
		return "[" + g[0] + ":" + g[1] + ":…:" + g[len(g)-1] + "]"
	})
	if t2 := wrap(ts, short, w); strings.Count(t2, "\n") < strings.Count(t, "\n") {
		return t2
	}
	return t
}

// breakWord cuts word into pieces no wider than w, each ending after a
// colon, dot or slash where one fits, else after as many characters as fit.
func breakWord(ts text.Style, word string, w vg.Length) []string {
	var out []string
	for ts.Width(word) > w {
		rs := []rune(word)
		fit := 1
		for fit < len(rs) && ts.Width(string(rs[:fit+1])) <= w {
			fit++
		}
		cut := fit
		for i := fit; i > fit/2; i-- {
			if strings.ContainsRune(":./", rs[i-1]) {
				cut = i
				break
			}
		}
		out = append(out, string(rs[:cut]))
		word = string(rs[cut:])
	}
	return append(out, word)
}
