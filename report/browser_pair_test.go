package report

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestBrowserComparePair: compare mode with a pair's server side as a run
// of its own (Pick.At, HalfOf, EndToEndKbps; trial13 B11): the server run
// is offset to the client's alignment point, drawn in the client run's
// colour, dashed; the title gives the end-to-end goodput; no console
// errors.
func TestBrowserComparePair(t *testing.T) {
	ctx, log := browser(t)
	const dir = "../testdata/sat-pair/pep-on_window-20KB/"
	first := func(f string) time.Duration {
		rep, err := tcpanalysis.AnalyzeFile(dir+f, tcpanalysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return time.Duration(rep.Conns[1].Conn.First)
	}
	cFirst, sFirst := first("client.pcap.gz"), first("server.pcap.gz")
	at := cFirst + time.Second // one capture clock
	path := filepath.Join(t.TempDir(), "pair.html")
	client := 0
	writeReport(t, path, []string{dir + "client.pcap.gz", dir + "server.pcap.gz"}, Options{Compare: []Pick{
		{Capture: 0, Conn: 1, Dir: 0, Label: "pep", EndToEndKbps: 290.34},
		{Capture: 1, Conn: 1, Dir: 0, Label: "pep server side", At: capture.Timestamp(at), HalfOf: &client}}})
	openReport(t, ctx, path)
	if title := eval[string](t, ctx, `document.getElementById('viewtitle').textContent`); !strings.Contains(title, "goodput end to end (as tcpviz compare): pep 290.3 kbit/s") {
		t.Errorf("view title %q lacks the end-to-end goodput", title)
	}
	type layer struct {
		Name, Color string
		Off         float64
		Dashed      bool
	}
	ls := eval[[]layer](t, ctx, `window.tcpviz.panels.seq.layers.map(L => ({name: L.name, color: L.color, off: L.off, dashed: !!L.sty.dash}))`)
	var cl, sv *layer
	for i := range ls {
		switch {
		case strings.HasPrefix(ls[i].Name, "pep: data segments"):
			cl = &ls[i]
		case strings.HasPrefix(ls[i].Name, "pep server side: data segments"):
			sv = &ls[i]
		}
	}
	if cl == nil || sv == nil {
		t.Fatalf("seq layers %+v: want the client's and the server side's data segments", ls)
	}
	if want := (at - sFirst).Seconds(); math.Abs(sv.Off-want) > 1e-6 || sv.Color != cl.Color || !sv.Dashed {
		t.Errorf("server side layer %+v; want offset %.6f s, the client's colour %s, dashed", *sv, want, cl.Color)
	}
	if msgs := log.all(); len(msgs) > 0 {
		t.Errorf("console: %v", msgs)
	}
}
