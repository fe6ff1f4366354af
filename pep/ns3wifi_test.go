package pep

import (
	"path/filepath"
	"testing"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/sharedtest"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// TestNS3WifiNoPEP: the ns-3 wifi-tcp example's station capture
// (../shared/corpus/ns3-wifi-tcp-Station-1-0.pcap: the station 10.0.0.2
// sends 1 498 350 bytes to the AP 10.0.0.1 over 802.11, no PEP anywhere).
// Its handshake (8.393 ms) is far slower than every data ACK (min
// 0.522 ms): the AP resolves the station's address by ARP between SYN and
// SYN-ACK, a first-packet cost. The SYN-ACK and the ACKs carry TTL 64 (one
// on-link host), and the capture is beside the sender (its packets carry
// TTL 64) with no zero window, so neither ack-rtt-vs-handshake nor
// receiver-hops may count: no PEP, in 'tcpviz rtt --pep' (DetectWith with
// per-packet evidence and the link layer, where the AP's ARP request rules
// a PEP out) and in 'tcpviz flows' (FlowNotes) alike. The AP answers at
// the threshold of receiver-hops (medians 581 and 145 µs: 4.0×; by the
// estimates every output reads, 573 and 143 µs), so without the link
// layer the verdict may be Possible or nothing; never Likely.
func TestNS3WifiNoPEP(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t, "corpus"), "ns3-wifi-tcp-Station-1-0.pcap")
	rep, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conns) != 1 {
		t.Fatalf("%d connections, want 1", len(rep.Conns))
	}
	r := rep.Conns[0]
	if got := r.Dir[flows.AtoB].Unique; got != 1498350 {
		t.Fatalf("unique bytes a>b = %d, want 1498350", got)
	}
	if got := ms(r.Handshake.SynToSynAck); got < 8.39 || got > 8.40 {
		t.Errorf("handshake = %.3f ms, want 8.393", got)
	}
	ps, err := Evidence(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rp := ps.Dir[flows.BtoA]; rp.SynTTL != 64 || rp.MinTTL != 64 || rp.MaxTTL != 64 {
		t.Errorf("receiver TTLs: SYN-ACK %d, later %d..%d, want all 64", rp.SynTTL, rp.MinTTL, rp.MaxTTL)
	}
	for name, v := range map[string]Verdict{"Detect": Detect(r, flows.AtoB), "DetectWith(Packets)": DetectWith(r, flows.AtoB, Options{Packets: ps, Links: LinksOf(rep)})} {
		for _, it := range v.Evidence {
			t.Logf("%s: %-22s supports=%-5v %s", name, it.Name, it.Supports, it.Observed)
		}
		if v.Likely || len(v.Supporting()) != 0 || v.Possible && name != "Detect" {
			t.Errorf("%s: Likely %v, Possible %v, supporting %v; want no PEP and no criterion, Possible at most without the link layer", name, v.Likely, v.Possible, v.Supporting())
		}
		if it, ok := item(v, "ack-rtt-vs-handshake"); !ok || it.Value < 0.52 || it.Value > 0.53 {
			t.Errorf("%s: ack-rtt-vs-handshake %+v (present %v), want min ACK RTT 0.522 ms", name, it, ok)
		}
		if it, ok := item(v, "receiver-hops"); !ok || it.Value != 0 {
			t.Errorf("%s: receiver-hops %+v (present %v), want 0 hops", name, it, ok)
		}
	}
	// 'tcpviz flows': the first pass without detail, then the second look.
	flat, err := tcpanalysis.AnalyzeFile(path, tcpanalysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if notes, likely, possible := FlowNotes(path, flat, tcpanalysis.Options{}, 0); len(notes) != 0 || len(likely) != 0 || len(possible) != 0 {
		t.Errorf("FlowNotes = %q, %v, %v; want none", notes, likely, possible)
	}
}
