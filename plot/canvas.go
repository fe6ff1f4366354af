package plot

import (
	"fmt"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// newCanvas returns a canvas of the given format that can write itself.
func newCanvas(format string, w, h vg.Length) (vg.CanvasWriterTo, error) {
	switch format {
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.New(w, h)}, nil
	case "svg":
		return vgsvg.New(w, h), nil
	case "pdf":
		return vgpdf.New(w, h), nil
	}
	return nil, fmt.Errorf("unknown image format %q", format)
}
