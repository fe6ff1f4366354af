package export

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/tcpviz/tcpviz/query"
)

// TestRTTRowsStreamed: the rtt rows taken while the capture is read, with
// blocks of 10 samples and everything written out every 30 (so every
// connection's rows come back from many blocks of the temporary file),
// equal the rows built from the kept samples, for every direction and
// method choice, on the repository's captures.
func TestRTTRowsStreamed(t *testing.T) {
	defer func(s, b int) { spillAt, blockLen = s, b }(spillAt, blockLen)
	spillAt, blockLen = 30*rttRec, 10*rttRec
	caps, _ := filepath.Glob("../testdata/*/*.pcap*")
	more, _ := filepath.Glob("../testdata/sat/*/*.pcap")
	caps = append(caps, more...)
	if len(caps) < 3 {
		t.Fatalf("%d test captures", len(caps))
	}
	all := map[query.Metric]bool{query.MetricRTT: true, query.MetricRTTTS: true, query.MetricRTTHandshake: true}
	ack := map[query.Metric]bool{query.MetricRTT: true, query.MetricRTTHandshake: true}
	n := 0
	for _, path := range caps {
		for _, c := range []struct {
			dir  query.Dir
			want map[query.Metric]bool
		}{{query.Auto, all}, {query.BA, all}, {query.AB, ack}} {
			sel := query.All()
			sel.Dir = c.dir
			kept, err := query.Analyze(path, sel, query.Options{RTT: true, RTTSamples: true})
			if err != nil {
				t.Fatal(err)
			}
			want := RTT(kept, c.want, true).Rows
			rows, err := NewRTTRows(sel, c.want)
			if err != nil {
				t.Fatal(err)
			}
			v, err := query.Analyze(path, sel, query.Options{RTT: true, OnRTT: rows.OnRTT})
			if err != nil {
				t.Fatal(err)
			}
			tab := RTT(v, c.want, false)
			var got [][]string
			for r := range rows.Rows(v) {
				got = append(got, slices.Clone(r))
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%s dir %v: %d streamed rows differ from the %d kept", path, c.dir, len(got), len(want))
			}
			if !slices.EqualFunc(tab.Summary, RTT(kept, c.want, true).Summary, slices.Equal) {
				t.Errorf("%s dir %v: summary tables differ", path, c.dir)
			}
			n += len(got)
		}
	}
	if n < 1000 {
		t.Errorf("only %d rows compared", n)
	}
	t.Logf("%d rows compared", n)
}
