package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoodputOneDirection: a capture of the sender's direction only (a
// filter on its address, an asymmetric return path) holds no ACK of the
// data: goodput said "0 bytes: a control connection such as iperf3's" and
// dropped a 725 MB flow in a fresh-eyes trial. The delivered bytes are
// unknown: the flow is left out with a warning that says so and gives the
// payload sent.
func TestGoodputOneDirection(t *testing.T) {
	data, err := os.ReadFile(synth) // a little-endian pcap, Ethernet
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), data[:24]...)
	for p := 24; p+16 <= len(data); {
		n := int(binary.LittleEndian.Uint32(data[p+8:]))
		rec := data[p : p+16+n]
		p += 16 + n
		// IPv4 source at 16 (record header) + 14 (Ethernet) + 12: keep
		// 10.0.0.1's packets only.
		if n >= 30 && rec[16+26] == 10 && rec[16+27] == 0 && rec[16+28] == 0 && rec[16+29] == 1 {
			out = append(out, rec...)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "oneway.pcap"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, err := runCLI(t, "goodput", dir)
	want := "1 flow sent payload that no captured packet acknowledges: their captures hold no packet from the receiver (one direction captured), so the bytes delivered are unknown, not 0, and they are left out (e.g. 10.0.0.1:40000 → 10.0.1.1:5201, "
	if !strings.Contains(errs, want) || strings.Contains(errs, "control connection") {
		t.Errorf("goodput of a one-direction capture: err %v, stderr:\n%s", err, errs)
	}
}
