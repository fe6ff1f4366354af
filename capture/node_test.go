package capture

import (
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestNode: Open learns the capturing node's MACs from the frames its
// radio sent (radiotap without an antenna signal), and Reception tells
// the frames it sent, those addressed to it (or to a group) and those it
// overheard. A capture without a sent frame, or whose "sent" frames come
// from more than MaxOwnMACs transmitters, leaves the node unknown and
// says why (docs/metrics.md#own-frames).
func TestNode(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	own, peer, other := pcaptest.MAC{2, 0, 0, 0, 0, 3}, pcaptest.MAC{2, 0, 0, 0, 0, 2}, pcaptest.MAC{2, 0, 0, 0, 0, 9}
	c := pcaptest.NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.0.3:5001"), 1000, 7000)
	ip := c.Syn(t0, pcaptest.C2S).IP()
	tx := func(ta, ra pcaptest.MAC) []byte {
		return append([]byte{0, 0, 8, 0, 0, 0, 0, 0}, pcaptest.Dot11{TA: ta, RA: ra}.Frame(ip)...)
	}
	rx := func(ta, ra pcaptest.MAC) []byte {
		return pcaptest.Radiotap(pcaptest.Dot11{TA: ta, RA: ra}.Frame(ip), false)
	}
	write := func(frames ...[]byte) string {
		f := pcaptest.New(pcaptest.Options{LinkType: pcaptest.LinkRadiotap})
		for i, b := range frames {
			f.Add(t0.Add(time.Duration(i)*time.Millisecond), 0, b)
		}
		p := filepath.Join(t.TempDir(), "c.pcap")
		if err := f.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) (Node, []Reception) {
		r, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		n := r.Node()
		var out []Reception
		for {
			var s Segment
			if err := r.Next(&s); err != nil {
				break
			}
			out = append(out, n.Reception(&s))
		}
		return n, out
	}

	n, recs := read(write(rx(peer, own), tx(own, peer), rx(peer, other), rx(peer, pcaptest.MAC{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})))
	if !n.Known || len(n.MACs) != 1 || n.MACs[0] != [6]byte(own) || n.Sent != 1 || n.Received != 3 {
		t.Fatalf("node %+v, want own MAC 02:00:00:00:00:03 from 1 frame sent of 4", n)
	}
	want := []Reception{ReceptionAddressed, ReceptionSent, ReceptionOverheard, ReceptionAddressed}
	if len(recs) != len(want) {
		t.Fatalf("receptions %v, want %v", recs, want)
	}
	for i := range want {
		if recs[i] != want[i] {
			t.Errorf("frame %d: %s, want %s", i+1, recs[i], want[i])
		}
	}

	// A sniffer: every frame received.
	n, recs = read(write(rx(peer, own), rx(own, peer)))
	if n.Known || !strings.Contains(n.Why, "no frame") || recs[0] != ReceptionUnknown || recs[1] != ReceptionUnknown {
		t.Errorf("sniffer: node %+v, receptions %v; want unknown, saying no frame was sent", n, recs)
	}
	// A driver that records no signal: five "own" transmitters.
	var fs [][]byte
	for i := range 5 {
		fs = append(fs, tx(pcaptest.MAC{2, 0, 0, 0, 1, byte(i)}, peer))
	}
	n, _ = read(write(append(fs, rx(peer, own))...))
	if n.Known || !strings.Contains(n.Why, "5 transmitter addresses") {
		t.Errorf("five transmitters: node %+v, want unknown", n)
	}
}
