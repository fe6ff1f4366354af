package tcpanalysis

import (
	"bytes"
	"fmt"
	"os"
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
	dir := t.TempDir()
	var files []string
	var w bytes.Buffer
	if err := pcaptest.WriteShort(&w, pcaptest.GenOptions{Packets: 3 * releaseEvery, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "short.pcap")
	if err := os.WriteFile(p, w.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, p)
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
		largest := full.Conns[0]
		for _, r := range full.Conns {
			if r.Dir[0].Pkts+r.Dir[1].Pkts > largest.Dir[0].Pkts+largest.Dir[1].Pkts {
				largest = r
			}
		}
		for _, k := range []flows.Key{full.Conns[0].Conn.Key, largest.Conn.Key, full.Conns[len(full.Conns)-1].Conn.Key} {
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
