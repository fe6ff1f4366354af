package plot

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"gonum.org/v1/plot/vg"
)

// TestFastStrokeSame: a long line filled by x/image/vector (pngCanvas's
// shortcut) is gg's line up to rounding: the same stroke outline, curves
// cut into the same lines, each pixel's exact coverage, composited by the
// same formula. On the time-sequence graph and a step line of 20 000
// points, every pixel is within 8 of 255 in each channel of gg's drawing
// and at most 1 % differ at all.
func TestFastStrokeSame(t *testing.T) {
	for _, tt := range seqAndSteps(bulkConn(20000), true) {
		fast := render(t, tt.fig, false)
		func() {
			defer func(b bool) { fastStrokes = b }(fastStrokes)
			fastStrokes = false
			gg := render(t, tt.fig, false)
			n, most := pixelDiff(t, gg, fast)
			t.Logf("%s: %d pixels differ, by up to %d of 255", tt.name, n, most)
			if n == 0 {
				t.Errorf("%s: no pixel differs: the shortcut was not taken", tt.name)
			}
			if most > 8 || n > 945*591/100 {
				t.Errorf("%s: %d pixels differ, by up to %d of 255; want at most 1 %% by at most 8", tt.name, n, most)
			}
		}()
	}
}

// TestFastStrokeTransformed: under a transform of gonum's (rotated text,
// a translated canvas) the shortcut is not taken; after Pop it is again.
func TestFastStrokeTransformed(t *testing.T) {
	c := newPNGCanvas(DefaultStyle.withDefaults())
	if c.moved[len(c.moved)-1] {
		t.Fatal("a new canvas counts as transformed")
	}
	c.Push()
	c.Rotate(1)
	if !c.moved[len(c.moved)-1] {
		t.Error("Rotate not tracked")
	}
	c.Pop()
	if c.moved[len(c.moved)-1] {
		t.Error("Pop did not restore the canvas's own transform")
	}
}

// TestTimeSeqFromPastEnd: a zoom from past the connection's last packet,
// without To, puts the x axis there (a second long) instead of an axis
// that ends before it starts (trial s10: --from 500 drew 50–450 s).
func TestTimeSeqFromPastEnd(t *testing.T) {
	r := bulkConn(300)
	f, err := TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB, Run: "synthetic", From: 500 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if x := f.Panels[0].X; x.Min < 500 || x.Min > 500.01 || x.Max < 501 || x.Max > 501.1 {
		t.Errorf("x axis %g–%g, want 500–501", x.Min, x.Max)
	}
}

// TestPDFReproducible: the same figure is the same PDF, whenever it is
// written (fpdf stamped the wall clock as CreationDate; trial s10).
func TestPDFReproducible(t *testing.T) {
	r := bulkConn(50)
	var out [2][]byte
	for i := range out {
		f, err := TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB, Run: "synthetic"})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := f.SaveStyle(&b, "pdf", DefaultStyle); err != nil {
			t.Fatal(err)
		}
		out[i] = b.Bytes()
		if i == 0 {
			time.Sleep(1100 * time.Millisecond) // the date's resolution is a second
		}
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Error("two writes of one figure differ")
	}
	if !bytes.Contains(out[0], []byte("/CreationDate (D:19700101000000)")) && os.Getenv("SOURCE_DATE_EPOCH") == "" {
		t.Error("no CreationDate of the epoch")
	}
}

// TestTooSmall: a size and font that leave no room for the data are
// refused with ErrTooSmall instead of drawn as a strip (trial s10: the
// seq figure at --font-size 16 cut its y label, at --size 2x2cm drew only
// its title); the paper size (8.5 × 6 cm, 8 pt) and the default draw.
func TestTooSmall(t *testing.T) {
	r := bulkConn(300)
	f := func() Figure {
		fig, err := TimeSeq(r, TimeSeqOptions{Dir: flows.AtoB, Run: "synthetic"})
		if err != nil {
			t.Fatal(err)
		}
		return fig
	}
	for _, st := range []Style{{W: 2 * vg.Centimeter, H: 2 * vg.Centimeter}, {FontSize: 24}} {
		if err := f().SaveStyle(io.Discard, "png", st); !errors.Is(err, ErrTooSmall) {
			t.Errorf("%+v: %v, want ErrTooSmall", st, err)
		}
	}
	for _, st := range []Style{{}, {W: 8.5 * vg.Centimeter, H: 6 * vg.Centimeter, FontSize: 8}} {
		if err := f().SaveStyle(io.Discard, "png", st); err != nil {
			t.Errorf("%+v: %v", st, err)
		}
	}
}
