package plot

import (
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// supText is gonum's plain text handler that also typesets runs of
// Unicode superscripts (⁻⁰¹²³⁴⁵⁶⁷⁸⁹, as in "10⁻⁶") as raised, smaller
// digits: the figure fonts have superscript digits but no superscript
// minus. Rotated text is drawn plainly.
type supText struct{ text.Plain }

// supScale and supRise size and raise a superscript, in font sizes.
const supScale, supRise = 0.7, 0.38

var fromSuper = map[rune]rune{'⁻': '−', '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9'}

type supSeg struct {
	s   string
	sup bool
}

// supSegs cuts a line into normal and superscript runs.
func supSegs(line string) []supSeg {
	var out []supSeg
	var cur strings.Builder
	sup := false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, supSeg{cur.String(), sup})
			cur.Reset()
		}
	}
	for _, r := range line {
		n, isSup := fromSuper[r]
		if isSup != sup {
			flush()
			sup = isSup
		}
		if isSup {
			r = n
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

func (h supText) width(line string, fnt font.Font) vg.Length {
	var w vg.Length
	for _, sg := range supSegs(line) {
		f := fnt
		if sg.sup {
			f.Size *= supScale
		}
		face := h.Fonts.Lookup(f, f.Size)
		w += face.Width(sg.s)
	}
	return w
}

// Box implements text.Handler.
func (h supText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	_, height, depth = h.Plain.Box(txt, fnt)
	return h.width(txt, fnt), height, depth
}

// Draw implements text.Handler, as text.Plain.Draw does.
func (h supText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if len(txt) == 0 {
		return
	}
	if sty.Rotation != 0 {
		h.Plain.Draw(c, txt, sty, pt)
		return
	}
	fnt := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	c.SetColor(sty.Color)
	lines := h.Lines(txt)
	ht := sty.Height(txt)
	pt.Y += ht*vg.Length(sty.YAlign) - fnt.Extents().Ascent
	for i, line := range lines {
		x := pt.X + vg.Length(sty.XAlign)*h.width(line, sty.Font)
		y := pt.Y + vg.Length(len(lines)-i)*sty.Font.Size
		for _, sg := range supSegs(line) {
			f, yy := sty.Font, y
			if sg.sup {
				f.Size *= supScale
				yy += sty.Font.Size * supRise
			}
			face := h.Fonts.Lookup(f, f.Size)
			c.FillString(face, vg.Point{X: x, Y: yy}, sg.s)
			x += face.Width(sg.s)
		}
	}
}
