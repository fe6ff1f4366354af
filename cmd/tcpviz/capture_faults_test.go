package main

import (
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestCaptureFaultsCLI: what flows says of three captures an outside
// tester sent, rebuilt: a record with more captured than original bytes
// (3 of 8 frames were analysed, exit 0), a pcapng whose SYN-ACK is a
// Simple Packet Block among custom blocks (dropped as out of range:
// handshake no), and an interface description block whose option runs past
// its end (called a cut capture).
func TestCaptureFaultsCLI(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	capGtOrig := write("cap_gt_orig.pcap", faultConn(pcaptest.PcapMicro))
	stdout, stderr, err := runCLI(t, "flows", capGtOrig)
	if err != nil || !strings.Contains(stdout, ": pcap, 8 frames, 8 TCP segments, 1 connections") ||
		!strings.Contains(stderr, "frame 4: its record gives 1054 captured bytes but an original length of 20; read with the captured length as its original length") {
		t.Errorf("caplen > origlen: %v\n%s%s", err, stdout, stderr)
	}

	// ng_odd_blocks: custom blocks (frames 1, 2 for tshark), a name
	// resolution block, the SYN, a statistics block, the SYN-ACK as a
	// Simple Packet Block (tshark's frame 4), the rest.
	c := pcaptest.NewConn(netip.MustParseAddrPort("192.0.2.10:40000"), netip.MustParseAddrPort("198.51.100.20:80"), 100, 500)
	t0 := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	segs := []pcaptest.Segment{c.Syn(t0, pcaptest.C2S), c.Syn(t0, pcaptest.S2C), c.Ack(t0, pcaptest.C2S, 1, 65535), c.Data(t0, pcaptest.C2S, 100),
		c.Ack(t0, pcaptest.S2C, 101, 65535), c.Fin(t0, pcaptest.C2S), c.Fin(t0, pcaptest.S2C), c.Ack(t0, pcaptest.C2S, 2, 65535)}
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	f.AddInterface(pcaptest.LinkEthernet, 0, 0, 0)
	f.AddBlock(0xbad, []byte("abcd"))
	f.AddBlock(0x40000bad, []byte("\x00\x00\x00\x00custom"))
	f.AddBlock(4, make([]byte, 4))
	for i, s := range segs {
		fr := pcaptest.Ethernet(s.IP())
		switch i {
		case 1:
			f.AddBlock(5, make([]byte, 12))
			f.AddSimple(fr)
		default:
			f.Add(t0.Add(time.Duration(i)*time.Millisecond), 0, fr)
		}
	}
	odd := write("odd_blocks.pcapng", f.Bytes())
	stdout, stderr, err = runCLI(t, "flows", "--csv", odd)
	if err != nil || !strings.Contains(stderr, "frame 4 is a pcapng Simple Packet Block, which carries no timestamp; given the time of the latest frame before it that has one") ||
		strings.Contains(stderr, "outside the range") {
		t.Errorf("Simple Packet Block: %v\n%s", err, stderr)
	}
	if rows := strings.Split(strings.TrimSpace(stdout), "\n"); len(rows) != 2 || !strings.Contains(rows[1], ",5,3,") || !strings.Contains(rows[1], ",true,") {
		t.Errorf("Simple Packet Block: flows %q, want one connection of 5 and 3 packets with its handshake", stdout)
	}
	stdout, _, err = runCLI(t, "rtt", odd, "--csv")
	if hs := "0,ab,handshake,0.000000,0.000000,0.000000,4\n"; err != nil || !strings.Contains(stdout, hs) {
		t.Errorf("rtt: want the handshake sample at the SPB's frame 4 (tshark's number), time of the SYN before it: %q; got %v\n%s", hs, err, stdout)
	}

	// ng_opt_overrun: the IDB's if_tsresol claims 200 bytes.
	ov := pcaptest.New(pcaptest.Options{Format: pcaptest.Pcapng, LinkType: pcaptest.LinkEthernet})
	ov.AddInterface(pcaptest.LinkEthernet, 6, 0, 0)
	for _, s := range segs {
		ov.Add(t0, 0, pcaptest.Ethernet(s.IP()))
	}
	b := ov.Bytes()
	binary.LittleEndian.PutUint16(b[28+16+2:], 200)
	over := write("opt_overrun.pcapng", b)
	_, _, err = runCLI(t, "flows", over)
	want := over + ": corrupt pcapng block at byte 28 (interface description block: option 9 (if_tsresol) at byte 16 of the block claims a 200-byte value, but 8 bytes are left before the block's end); nothing before it to analyse"
	if exitCode(err) != 2 || err.Error() != want {
		t.Errorf("option overrun: exit %d, %v; want 2, %q", exitCode(err), err, want)
	}
	// A file really cut inside its first packet still says cut.
	binary.LittleEndian.PutUint16(b[28+16+2:], 1) // the option made whole
	_, _, err = runCLI(t, "flows", write("cut.pcapng", b[:28+28+40]))
	if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "frame 1: capture cut inside the first frame") {
		t.Errorf("cut first frame: exit %d, %v", exitCode(err), err)
	}
}
