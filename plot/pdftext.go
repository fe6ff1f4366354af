package plot

import (
	"strings"

	"golang.org/x/text/encoding/charmap"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// cp1252Canvas passes drawing through to a PDF canvas, rewriting text
// into what gonum's PDF backend can encode (Windows code page 1252): the
// typographic minus becomes "-", arrows "->" and "<->", any other
// character outside the code page "?", and the text is encoded in the code
// page. Without it the PDF shows mojibake ("â€”" for "—").
type cp1252Canvas struct{ vg.CanvasWriterTo }

var pdfText = strings.NewReplacer("−", "-", "→", "->", "↔", "<->", "≈", "~", "≤", "<=", "≥", ">=", "Δ", "D")

// FillString implements vg.Canvas.
func (c cp1252Canvas) FillString(f font.Face, pt vg.Point, s string) {
	c.CanvasWriterTo.FillString(f, pt, toCP1252(s))
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
