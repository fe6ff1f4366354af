package report

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestOpensAtWindow: Options.X (a verb's --from/--to window) reaches the
// page's metadata, where the page opens zoomed to it unless the address
// names a range; an empty range is dropped.
func TestOpensAtWindow(t *testing.T) {
	rep, err := tcpanalysis.AnalyzeFile("../testdata/synthetic/geo-600ms-loss.pcap", tcpanalysis.Options{Keep: func(int) bool { return true }})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x    *[2]float64
		want string
	}{{&[2]float64{2.6, 4.6}, "[2.6,4.6]"}, {&[2]float64{3, 3}, "null"}, {nil, "null"}} {
		var b bytes.Buffer
		if err := Write(&b, []Capture{{Report: rep}}, Options{X: c.x}); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		i := strings.Index(page, `id="meta">`) + len(`id="meta">`)
		raw, err := base64.StdEncoding.DecodeString(page[i : i+strings.Index(page[i:], "<")])
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		js, _ := io.ReadAll(zr)
		var m struct{ X json.RawMessage }
		if err := json.Unmarshal(js, &m); err != nil {
			t.Fatal(err)
		}
		if got := string(m.X); got != c.want && !(got == "" && c.want == "null") {
			t.Errorf("X %v: meta x = %s, want %s", c.x, got, c.want)
		}
	}
}
