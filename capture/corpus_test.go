package capture

import (
	"encoding/csv"
	"errors"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedDir returns ../shared, or skips.
func sharedDir(t testing.TB) string { return sharedtest.Dir(t, "") }

// tsharkTCPFrames returns the frame numbers tshark dissected as TCP (rows
// with a tcp.stream) in a reference fields CSV.
func tsharkTCPFrames(t *testing.T, path string) map[int64]bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[int64]bool{}
	for _, row := range rows[1:] {
		// Rows with a stream but no tcp.len are TCP headers quoted inside
		// ICMP errors: tshark gives them a stream, tcpviz does not count an
		// ICMP message as a segment.
		if len(row) > 11 && row[2] != "" && row[11] != "" {
			var n int64
			for _, c := range row[0] {
				n = n*10 + int64(c-'0')
			}
			out[n] = true
		}
	}
	return out
}

// TestCorpusSegmentsMatchTshark reads every corpus capture and checks that
// the frames decoded as TCP are the frames tshark dissects as TCP, except
// for documented differences.
func TestCorpusSegmentsMatchTshark(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "corpus")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	// Where tcpviz and tshark differ by design.
	known := map[string]string{
		// tshark decodes the truncated TCP header frames of this file partly.
		"ns3-ns3tcp-state1-response-vectors.pcap": "not a real pcap: garbage link type",
	}
	for _, path := range files {
		base := filepath.Base(path)
		if st, err := os.Stat(path); err != nil || st.IsDir() || strings.HasSuffix(base, ".md") {
			continue
		}
		t.Run(base, func(t *testing.T) {
			r, err := Open(path)
			if err != nil {
				if _, ok := known[base]; ok {
					t.Logf("rejected as expected: %v", err)
					return
				}
				t.Fatalf("Open: %v", err)
			}
			defer r.Close()
			var s Segment
			got := map[int64]bool{}
			for {
				err := r.Next(&s)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
				if s.ICMP != ICMPNone { // an ICMP error quoting TCP: not a TCP frame
					continue
				}
				got[s.Frame] = true
			}
			for _, w := range r.Warnings() {
				t.Logf("warning: %s", w)
			}
			want := tsharkTCPFrames(t, filepath.Join(dir, "reference", base+".tshark-fields.csv"))
			var missing, extra []int64
			for f := range want {
				if !got[f] {
					missing = append(missing, f)
				}
			}
			for f := range got {
				if !want[f] {
					extra = append(extra, f)
				}
			}
			if len(missing)+len(extra) > 0 {
				t.Errorf("TCP frames: %d decoded, tshark %d; missing %d (e.g. %v), extra %d (e.g. %v); stats %+v",
					len(got), len(want), len(missing), head(missing), len(extra), head(extra), r.Stats())
			}
		})
	}
}

func head(x []int64) []int64 {
	if len(x) > 5 {
		return x[:5]
	}
	return x
}
