package tcpanalysis

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestOnlyKeySameAsFilter: Options.OnlyKey, whose reader returns the
// segments of other 4-tuples as undecoded stubs (capture.Reader.
// OnlyEndpoints), gives the report of a Filter func that decodes every
// segment and keeps those of the 4-tuple: the same connections, results,
// reader stats and warnings, through pipelineFrames (plain pcap files) and
// Reader.NextBatch (Inline; pcapng and gzip files), for the first, the
// largest and the last 4-tuple of each capture.
func TestOnlyKeySameAsFilter(t *testing.T) {
	files := []string{writeGen(t, t.TempDir(), "short.pcap", func(w io.Writer) error {
		return pcaptest.WriteShort(w, pcaptest.GenOptions{Packets: 3 * releaseEvery, Seed: 7})
	})}
	for _, g := range []string{"corpus/*.pcap", "corpus/*.pcapng", "corpus/*.pcap.gz", "cases/*.pcap*", "ns3/tcp-aodv-r1-1-0.pcap.gz"} {
		m, _ := filepath.Glob(filepath.Join(sharedDir(t), g))
		files = append(files, m...)
	}
	compared := 0
	for _, path := range files {
		full, err := AnalyzeFile(path, Options{Only: func(int) bool { return false }})
		if err != nil || len(full.Conns) == 0 {
			continue
		}
		for _, k := range testKeys(full) {
			for _, inline := range []bool{false, true} {
				key := k
				keep := func(int) bool { return true }
				want, werr := analyzePath(t, path, Options{Inline: inline, Keep: keep, Filter: func(s *capture.Segment) bool { return flows.KeyOf(s.Src, s.Dst) == key }})
				got, gerr := analyzePath(t, path, Options{Inline: inline, Keep: keep, OnlyKey: &key})
				if sameReports(t, fmt.Sprintf("%s %v inline=%v (want: Filter)", path, key, inline), want, got, werr, gerr) {
					compared++
				}
			}
		}
	}
	if compared < 50 {
		t.Fatalf("%d reports compared, want more", compared)
	}
}

// testKeys are the 4-tuples of rep's first connection, of its largest (in
// packets) and of its last.
func testKeys(rep *Report) []flows.Key {
	largest := rep.Conns[0]
	for _, r := range rep.Conns {
		if r.Dir[0].Pkts+r.Dir[1].Pkts > largest.Dir[0].Pkts+largest.Dir[1].Pkts {
			largest = r
		}
	}
	return []flows.Key{rep.Conns[0].Conn.Key, largest.Conn.Key, rep.Conns[len(rep.Conns)-1].Conn.Key}
}
