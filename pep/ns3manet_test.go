package pep

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestNS3ManetOneHopNotPEP: on shared/ns3's MANET captures (802.11 ad
// hoc, no PEP anywhere) four flows are, at their sender's capture, one hop
// from their receiver at some point: receiver-hops finds the acknowledger
// on the sender's link (TTL 64 both ways) and 4× slower than the sender,
// with no stall — Possible without the link layer. The link layer decides:
// the radio that sent the receiver's ACKs (the data's next hop, the ACKs'
// 802.11 source) also sent AODV/DSDV broadcasts from the receiver's own
// address, so it is the receiver's own interface, not a PEP. With it, no
// flow of the 48 TCP captures is Possible or Likely in 'tcpviz flows'
// (FlowNotes): 4 → 0.
func TestNS3ManetOneHopNotPEP(t *testing.T) {
	dir := sharedtest.Dir(t, "ns3")
	tmp := t.TempDir()
	gunzip := func(name string) string {
		return sharedtest.Gunzip(t, filepath.Join(dir, name), filepath.Join(tmp, strings.TrimSuffix(name, ".gz")))
	}
	for _, c := range []struct {
		file string
		conn int
		mac  string
	}{
		{"tcp-aodv-r1-10-0.pcap.gz", 0, "00:00:00:00:00:08"},
		{"tcp-aodv-r1-6-0.pcap.gz", 1, "00:00:00:00:00:0b"},
		{"tcp-aodv-r2-5-0.pcap.gz", 1, "00:00:00:00:00:13"},
		{"tcp-dsdv-r1-1-0.pcap.gz", 1, "00:00:00:00:00:0b"},
	} {
		path := gunzip(c.file)
		rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Detail: true})
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Conns[c.conn]
		d := flows.AtoB
		if r.Dir[flows.BtoA].Unique > r.Dir[flows.AtoB].Unique {
			d = flows.BtoA
		}
		if v := Detect(r, d); !v.Possible {
			t.Errorf("%s conn %d without the link layer: Possible %v (%v)", c.file, c.conn, v.Possible, v.Supporting())
		}
		v := DetectIn(rep, r, d, Options{})
		li, _ := item(v, "link-address")
		if v.Possible || v.Likely || !strings.Contains(li.Observed, c.mac+" sent the receiver's own IPv4 broadcast") {
			t.Errorf("%s conn %d with the link layer: Possible %v Likely %v, link-address %q", c.file, c.conn, v.Possible, v.Likely, li.Observed)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "tcp-*.pcap.gz"))
	if len(files) != 48 {
		t.Fatalf("%d TCP captures, want 48", len(files))
	}
	conns := 0
	for _, f := range files {
		path := gunzip(filepath.Base(f))
		rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		conns += len(rep.Conns)
		if notes, likely, possible := FlowNotes(path, rep, tcpanalysis.Options{}, 0); len(notes)+len(likely)+len(possible) > 0 {
			t.Errorf("%s: %q", filepath.Base(f), notes)
		}
	}
	if conns != 188 {
		t.Errorf("%d connections, want 188", conns)
	}
}
