package plot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/cmpimg"
	"gonum.org/v1/plot/vg"
)

// checkGolden compares a PNG with testdata/NAME.golden.png (as
// TestGoldenImages; -update rewrites it).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", name+".golden.png")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := cmpimg.EqualApprox("png", got, want, 0.05); err != nil || !ok {
		out := filepath.Join(t.TempDir(), name+".png")
		os.WriteFile(out, got, 0o644)
		t.Errorf("%s differs from %s (written to %s, %v); look at both, then 'go test ./plot -update'", name, golden, out, err)
	}
}

// gridSpec is compare --layout grid of a client/server pair: four panels
// sharing a y label too long for one panel's height at 8.5 × 6 cm.
func gridSpec() XYSpec {
	s := XYSpec{Title: "nopep vs pep: sequence sent / delivered", X: Axis{Label: "time since the first bulk segment", Unit: UnitSeconds},
		Y: Axis{Label: "sequence sent / delivered", Unit: UnitBytes}}
	for i, name := range []string{"nopep", "nopep delivered", "pep", "pep delivered"} {
		n := Named{Name: name, Color: Colour(i / 2)}
		for k := range 12 {
			n.X = append(n.X, float64(k))
			n.Y = append(n.Y, float64(k*(i+1))*40000)
		}
		s.Series = append(s.Series, n)
	}
	return s
}

// TestGridSharedLabels: small multiples draw the axis labels once for
// all panels (trial13 B9: each panel's y label was cut to
// "equence sent / delivered (MB)" and pushed the panel down to a third of
// its height); the figure is looked at in testdata/grid-pair.golden.png.
func TestGridSharedLabels(t *testing.T) {
	f, err := Grid(gridSpec(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if f.YLabel != "sequence sent / delivered (MB)" || f.XLabel != "time since the first bulk segment (s)" {
		t.Errorf("shared labels %q, %q", f.YLabel, f.XLabel)
	}
	for i, p := range f.Panels {
		if p.Y.Label.Text != "" || p.X.Label.Text != "" {
			t.Errorf("panel %d keeps its own axis labels %q, %q", i, p.Y.Label.Text, p.X.Label.Text)
		}
	}
	var svg bytes.Buffer
	if err := f.SaveStyle(&svg, "svg", Style{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(svg.String(), ">sequence sent / delivered (MB)<"); n != 1 {
		t.Errorf("the y label is drawn %d times in the SVG, want once", n)
	}
	var png bytes.Buffer
	small := Style{W: 8.5 * vg.Centimeter, H: 6 * vg.Centimeter, FontSize: vg.Points(8), DPI: 200}
	if err := f.SaveStyle(&png, "png", small); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "grid-pair", png.Bytes())
}
