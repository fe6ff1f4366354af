package flows

import (
	"errors"
	"io"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/fuzzseed"
)

// FuzzTracker feeds arbitrary captures (plain, gzip, zstd, or through the
// memory-mapped file path) to the flow tracker, with and without folding,
// and checks: no panic, connections indexed in order of first packet, no
// negative duration, no packet after its connection's last one, a copy
// never opens a connection.
//
//	go test ./flows -run XXX -fuzz FuzzTracker -fuzztime 30s
func FuzzTracker(f *testing.F) {
	for _, s := range fuzzseed.Seeds() {
		for _, w := range fuzzseed.Ways() {
			f.Add(s, w, false)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, way uint8, noFold bool) {
		r, done, err := fuzzseed.Open(data, way)
		if err != nil {
			return
		}
		defer done()
		tr := NewTracker(Options{NoFold: noFold, WScale: -1})
		var s capture.Segment
		for {
			err := r.Next(&s)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return
			}
			p := tr.Add(&s)
			if p.Conn == nil {
				t.Fatalf("frame %d: no connection", s.Frame)
			}
			if p.Dup && p.New {
				t.Fatalf("frame %d: a copy opened a connection", s.Frame)
			}
			if s.Time > p.Conn.Last {
				t.Fatalf("frame %d at %d after its connection's last packet %d", s.Frame, s.Time, p.Conn.Last)
			}
		}
		for i, c := range tr.Conns() {
			if c.Index != i {
				t.Fatalf("connection %d has index %d", i, c.Index)
			}
			if c.Duration() < 0 {
				t.Fatalf("connection %d: negative duration %v", i, c.Duration())
			}
		}
	})
}
