package plot

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// cp1252Canvas passes drawing through to a PDF canvas, rewriting text
// into what gonum's PDF backend can encode (Windows code page 1252): the
// typographic minus and the arrows "→" and "↔" are drawn as lines (see
// drawnRunes), "≈", "≤", "≥" and "Δ" become "~", "<=", ">=" and "D", any
// other character outside the code page "?", and the text is encoded in
// the code page. Without it the PDF shows mojibake ("â€”" for "—").
type cp1252Canvas struct{ vg.CanvasWriterTo }

var pdfText = strings.NewReplacer("−", "-", "→", "->", "↔", "<->", "≈", "~", "≤", "<=", "≥", ">=", "Δ", "D")

// drawnRunes are the characters the PDF fonts' code page lacks that a
// figure draws as lines, in the room the font gives them (the layout
// measured them with the font), so a PDF shows "→" and "−" as the PNG
// does.
const drawnRunes = "−→↔"

// FillString implements vg.Canvas.
func (c cp1252Canvas) FillString(f font.Face, pt vg.Point, s string) {
	x := pt.X
	for s != "" {
		i := strings.IndexAny(s, drawnRunes)
		if i < 0 {
			c.CanvasWriterTo.FillString(f, vg.Point{X: x, Y: pt.Y}, toCP1252(s))
			return
		}
		if i > 0 {
			c.CanvasWriterTo.FillString(f, vg.Point{X: x, Y: pt.Y}, toCP1252(s[:i]))
			x += f.Width(s[:i])
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		w := f.Width(string(r))
		c.drawRune(r, vg.Point{X: x, Y: pt.Y}, w, f.Font.Size)
		x += w
		s = s[i+n:]
	}
}

// drawRune draws r (one of drawnRunes) as lines in the box [at.X, at.X+w]
// on the baseline at.Y, for a font of size sz: the bar at the height of
// the font's minus and arrows.
func (c cp1252Canvas) drawRune(r rune, at vg.Point, w, sz vg.Length) {
	y := at.Y + 0.26*sz
	x0, x1 := at.X+0.1*w, at.X+0.9*w
	c.SetLineWidth(0.06 * sz)
	c.SetLineDash(nil, 0)
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y})
	p.Line(vg.Point{X: x1, Y: y})
	h, d := 0.28*sz, 0.16*sz // arrowhead length and half height
	if r == '→' || r == '↔' {
		p.Move(vg.Point{X: x1 - h, Y: y + d})
		p.Line(vg.Point{X: x1, Y: y})
		p.Line(vg.Point{X: x1 - h, Y: y - d})
	}
	if r == '↔' {
		p.Move(vg.Point{X: x0 + h, Y: y + d})
		p.Line(vg.Point{X: x0, Y: y})
		p.Line(vg.Point{X: x0 + h, Y: y - d})
	}
	c.Stroke(p)
}

// toCP1252 rewrites s as described at cp1252Canvas and encodes it in code
// page 1252, the bytes gonum's PDF backend writes as they are.
func toCP1252(s string) string {
	s = pdfText.Replace(s)
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if c, ok := charmap.Windows1252.EncodeRune(r); ok {
			b = append(b, c)
		} else {
			b = append(b, '?')
		}
	}
	return string(b)
}
