package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// TestGoodputOneDirection: a capture of the sender's direction only (a
// filter on its address, an asymmetric return path) holds no ACK of the
// data: goodput said "0 bytes: a control connection such as iperf3's" and
// dropped a 725 MB flow in a fresh-eyes trial. The delivered bytes are
// unknown: the flow is left out with a warning that says so and gives the
// payload sent.
func TestGoodputOneDirection(t *testing.T) {
	in, err := os.Open(synth)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := pcapgo.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "oneway.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(128, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	for {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		// IPv4 source at Ethernet 14 + 12: keep 10.0.0.1's packets only.
		if len(data) >= 30 && data[26] == 10 && data[27] == 0 && data[28] == 0 && data[29] == 1 {
			if err := w.WritePacket(ci, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	_, errs, err := runCLI(t, "goodput", dir)
	want := "1 flow sent payload that no captured packet acknowledges: their captures hold no packet from the receiver (one direction captured), so the bytes delivered are unknown, not 0, and they are left out (e.g. 10.0.0.1:40000 → 10.0.1.1:5201, "
	if !strings.Contains(errs, want) || strings.Contains(errs, "control connection") {
		t.Errorf("goodput of a one-direction capture: err %v, stderr:\n%s", err, errs)
	}
}
