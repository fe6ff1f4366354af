package query

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestWindowXYMatchesXY: the window figure's one scan (WindowXY) gives
// each series exactly as XY does, on a generated bulk capture whose
// connections lose and retransmit (so that in flight and SACK-aware in
// flight differ).
func TestWindowXYMatchesXY(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bulk.pcap")
	writeBulk(t, path, pcaptest.GenOptions{Packets: 1 << 14, Seed: 3})
	for conn := range 3 {
		sel := All()
		sel.Conn = conn
		v, err := Analyze(path, sel, Options{OneConn: true, Parts: tcpanalysis.PartWindow})
		if err != nil {
			t.Fatal(err)
		}
		xs, ys := v.WindowXY(v.Ref)
		if conn == 0 && slices.Equal(ys[1], ys[2]) {
			t.Fatal("in flight and SACK-aware in flight are equal: the capture tests less than it should")
		}
		for i, m := range WindowMetrics {
			x, y := v.XY(m, v.Ref)
			if len(x) == 0 {
				t.Fatalf("conn %d %v: no points", conn, m)
			}
			if !slices.Equal(xs[i], x) || !slices.Equal(ys[i], y) {
				t.Errorf("conn %d %v: WindowXY gives %d points, XY %d, or other values", conn, m, len(xs[i]), len(x))
			}
		}
	}
}
