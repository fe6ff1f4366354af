package plot

import (
	"image"
	"image/color"
	imgdraw "image/draw"
	"math"

	"github.com/golang/freetype/raster"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// fastStrokeMin is the number of vertices from which pngCanvas fills a
// polyline's stroke with golang.org/x/image/vector instead of gg's
// rasterizer (docs/performance.md#series-commands). Below it, gg draws
// as it draws everything else of a figure.
const fastStrokeMin = 256

// fastStrokes turns the shortcut on (tests compare with it off).
var fastStrokes = true

// pngCanvas is the PNG canvas (gonum's vgimg, drawing through gg and
// freetype's rasterizer) with one shortcut: strokeLine. freetype's
// rasterizer keeps each pixel row's cells in a linked list that it walks
// for every cell it adds, so a polyline that crosses a row at hundreds of
// places costs the square of that per row: 0.11 s for the three step lines
// of the window figure of the bulk benchmark, a third of the figure. The
// shortcut builds the same stroke outline (freetype's raster.Stroke, with
// gg's butt caps, round joins and path clean-up, at gg's fixed-point
// device coordinates) and fills it with x/image/vector's rasterizer, a
// dense accumulator, composited as gg composites a solid colour (the same
// formula as freetype's RGBAPainter). Both compute each pixel's exact
// area coverage under the non-zero rule; they differ only in rounding
// (TestFastStrokeSame bounds it).
//
// The canvas tracks the transforms gonum applies (Translate, Rotate,
// Scale within Push and Pop) and takes the shortcut only under the
// canvas's own transform, the one it starts with.
type pngCanvas struct {
	vgimg.PngCanvas
	moved []bool // per Push level: a transform was applied
	ras   vector.Rasterizer
	out   raster.Path
}

func newPNGCanvas(st Style) *pngCanvas {
	return &pngCanvas{PngCanvas: vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(st.W, st.H), vgimg.UseDPI(st.DPI))}, moved: []bool{false}}
}

func (c *pngCanvas) transformed()         { c.moved[len(c.moved)-1] = true }
func (c *pngCanvas) Translate(p vg.Point) { c.transformed(); c.PngCanvas.Translate(p) }
func (c *pngCanvas) Rotate(t float64)     { c.transformed(); c.PngCanvas.Rotate(t) }
func (c *pngCanvas) Scale(x, y float64)   { c.transformed(); c.PngCanvas.Scale(x, y) }
func (c *pngCanvas) Push()                { c.moved = append(c.moved, c.moved[len(c.moved)-1]); c.PngCanvas.Push() }

// Pop implements vg.Canvas.
func (c *pngCanvas) Pop() {
	if len(c.moved) > 1 {
		c.moved = c.moved[:len(c.moved)-1]
	}
	c.PngCanvas.Pop()
}

// pngUnder returns the pngCanvas under c's wrappers (underCanvas), or
// nil.
func pngUnder(c draw.Canvas) *pngCanvas {
	p, _ := underCanvas(c).(*pngCanvas)
	return p
}

// strokeLine draws the open polyline ps (canvas coordinates) with st if it
// can (enough vertices, no dashes, the canvas's own transform) and says
// whether it did; otherwise the caller strokes it through the canvas.
func (c *pngCanvas) strokeLine(st draw.LineStyle, ps []vg.Point) bool {
	if !fastStrokes || len(ps) < fastStrokeMin || len(st.Dashes) > 0 || st.Width <= 0 || c.moved[len(c.moved)-1] {
		return false
	}
	img, ok := c.Image().(*image.RGBA)
	if !ok {
		return false
	}
	dpi := c.DPI()
	h := float64(img.Bounds().Dy())
	// The path as gg builds it: device coordinates, y down (its InvertY
	// matrix: 0·x − y + h), rounded to 26.6 fixed point, a vertex within
	// 4/64 px (|dx| + |dy|) of the last one kept dropped (gg's rasterPath).
	c.out = c.out[:0]
	var prev fixed.Point26_6
	for i, p := range ps {
		f := fixed.Point26_6{X: fix(p.X.Dots(dpi)), Y: fix(-p.Y.Dots(dpi) + h)}
		if i == 0 {
			c.out.Start(f)
			prev = f
			continue
		}
		if abs26(f.X-prev.X)+abs26(f.Y-prev.Y) > 4 {
			c.out.Add1(f)
			prev = f
		}
	}
	w := fix(st.Width.Dots(dpi))
	// The outline's bounds: the vertices' widened by the stroke (a round
	// join stays within half the width of its vertex).
	lo, hi := image.Point{X: 1 << 30, Y: 1 << 30}, image.Point{X: -1 << 30, Y: -1 << 30}
	for i := 0; i < len(c.out); i += 4 {
		x, y := int(c.out[i+1]>>6), int(c.out[i+2]>>6)
		lo.X, lo.Y, hi.X, hi.Y = min(lo.X, x), min(lo.Y, y), max(hi.X, x), max(hi.Y, y)
	}
	pad := int(w>>6) + 2
	r := image.Rectangle{Min: lo.Sub(image.Pt(pad, pad)), Max: hi.Add(image.Pt(pad+1, pad+1))}
	if r.Intersect(img.Bounds()) != r {
		return false // off the image: gg clips, the accumulator would not
	}
	c.ras.Reset(r.Dx(), r.Dy())
	// freetype's curve tolerance for an image of this size
	// (Rasterizer.SetBounds, after FreeType 2.4.0).
	split2 := fixed.Int26_6(32)
	if b := img.Bounds(); b.Dx() > 24 || b.Dy() > 24 {
		split2 *= 2
		if b.Dx() > 120 || b.Dy() > 120 {
			split2 *= 2
		}
	}
	raster.Stroke(&vectorAdder{z: &c.ras, o: r.Min, split2: split2}, c.out, w, raster.ButtCapper, raster.RoundJoiner)
	c.ras.ClosePath()
	c.ras.DrawOp = imgdraw.Over
	col := st.Color
	if col == nil {
		col = color.Black
	}
	c.ras.Draw(img, r, image.NewUniform(col), image.Point{})
	return true
}

// vectorAdder feeds freetype's stroker (a raster.Adder) into an
// x/image/vector rasterizer whose origin is o in device pixels. Quadratic
// pieces (round joins) are cut into lines as freetype's Rasterizer.Add2
// cuts them, so that both rasterizers fill the same polygon.
type vectorAdder struct {
	z      *vector.Rasterizer
	o      image.Point
	a      fixed.Point26_6 // the current point
	split2 fixed.Int26_6   // freetype's splitScale2 for the image's size
}

func (a *vectorAdder) pt(p fixed.Point26_6) (float32, float32) {
	return float32(p.X)/64 - float32(a.o.X), float32(p.Y)/64 - float32(a.o.Y)
}

func (a *vectorAdder) Start(p fixed.Point26_6) {
	a.z.ClosePath()
	a.z.MoveTo(a.pt(p))
	a.a = p
}

func (a *vectorAdder) Add1(p fixed.Point26_6) {
	a.z.LineTo(a.pt(p))
	a.a = p
}

// Add2 is freetype's Rasterizer.Add2: the curve split nsplit times in
// halves (nsplit from how far b lies from the chord's middle), each half
// drawn as two lines through its middle.
func (a *vectorAdder) Add2(b, c fixed.Point26_6) {
	dev := max(abs26(a.a.X-2*b.X+c.X), abs26(a.a.Y-2*b.Y+c.Y)) / a.split2
	nsplit := 0
	for dev > 0 {
		dev /= 4
		nsplit++
	}
	const maxNsplit = 16
	if nsplit > maxNsplit {
		a.Add1(c) // freetype panics; the curve is far off any image
		return
	}
	var (
		pStack [2*maxNsplit + 3]fixed.Point26_6
		sStack [maxNsplit + 1]int
		i      int
	)
	sStack[0] = nsplit
	pStack[0], pStack[1], pStack[2] = c, b, a.a
	for i >= 0 {
		s := sStack[i]
		p := pStack[2*i:]
		if s > 0 {
			mx := p[1].X
			p[4].X = p[2].X
			p[3].X = (p[4].X + mx) / 2
			p[1].X = (p[0].X + mx) / 2
			p[2].X = (p[1].X + p[3].X) / 2
			my := p[1].Y
			p[4].Y = p[2].Y
			p[3].Y = (p[4].Y + my) / 2
			p[1].Y = (p[0].Y + my) / 2
			p[2].Y = (p[1].Y + p[3].Y) / 2
			sStack[i] = s - 1
			sStack[i+1] = s - 1
			i++
		} else {
			a.Add1(fixed.Point26_6{X: (p[0].X + 2*p[1].X + p[2].X) / 4, Y: (p[0].Y + 2*p[1].Y + p[2].Y) / 4})
			a.Add1(p[0])
			i--
		}
	}
}

func (a *vectorAdder) Add3(b, c, p fixed.Point26_6) {
	bx, by := a.pt(b)
	cx, cy := a.pt(c)
	px, py := a.pt(p)
	a.z.CubeTo(bx, by, cx, cy, px, py)
	a.a = p
}

// fix is gg's conversion to 26.6 fixed point.
func fix(x float64) fixed.Int26_6 { return fixed.Int26_6(math.Round(x * 64)) }

func abs26(x fixed.Int26_6) fixed.Int26_6 {
	if x < 0 {
		return -x
	}
	return x
}
