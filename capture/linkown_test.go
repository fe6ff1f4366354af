package capture_test

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// icmp6 returns an IPv6 packet from src to dst with hop limit hops
// holding an ICMPv6 message of type typ (a neighbor solicitation's
// layout: type, code, checksum, reserved, 16-byte target).
func icmp6(src, dst netip.Addr, hops, typ uint8) []byte {
	b := make([]byte, 40+24)
	b[0] = 6 << 4
	b[5] = 24 // payload length
	b[6], b[7] = 58, hops
	s, d := src.As16(), dst.As16()
	copy(b[8:24], s[:])
	copy(b[24:40], d[:])
	b[40] = typ
	return b
}

// TestLinkOwn: Reader.LinkOwn lists the link addresses that announced an
// address as their own in frames that are not TCP, each once: an ARP
// request (not a reply: a proxy-ARP router sends those for others), an
// IPv4 link-layer broadcast, an IPv6 neighbor solicitation with hop limit
// 255 (not one forwarded, not an advertisement, not duplicate address
// detection's from the unspecified address), sorted by MAC and IP.
func TestLinkOwn(t *testing.T) {
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapMicro, LinkType: pcaptest.LinkEthernet})
	t0 := pcaptest.GenStart
	macA, macB, macC := pcaptest.MAC{2, 0, 0, 0, 0, 0xa}, pcaptest.MAC{2, 0, 0, 0, 0, 0xb}, pcaptest.MAC{2, 0, 0, 0, 0, 0xc}
	bcast := pcaptest.MAC{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	arp := func(op uint16, hw pcaptest.MAC, ip [4]byte) []byte {
		b := []byte{0, 1, 8, 0, 6, 4, 0, byte(op)}
		b = append(b, hw[:]...)
		b = append(b, ip[:]...)
		b = append(b, make([]byte, 6)...)
		return append(b, 10, 0, 0, 99)
	}
	ethARP := func(src pcaptest.MAC, payload []byte) []byte {
		b := append(append(append([]byte{}, bcast[:]...), src[:]...), 0x08, 0x06)
		return append(b, payload...)
	}
	udpBcast := []byte{0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 3, 255, 255, 255, 255, 0, 68, 0, 67, 0, 8, 0, 0}
	mine6, other6 := netip.MustParseAddr("2001:db8::2"), netip.MustParseAddr("2001:db8::9")
	sol := netip.MustParseAddr("ff02::1:ff00:2")
	frames := [][]byte{
		ethARP(macA, arp(1, macA, [4]byte{10, 0, 0, 1})),                                        // request: own
		ethARP(macA, arp(1, macA, [4]byte{10, 0, 0, 1})),                                        // again: once
		ethARP(macB, arp(2, macB, [4]byte{10, 0, 0, 7})),                                        // reply: not
		pcaptest.Eth{Src: macC, Dst: bcast}.Frame(udpBcast),                                     // broadcast: own
		pcaptest.Eth{Src: macB, Dst: macA}.Frame(icmp6(mine6, sol, 255, 135)),                   // solicitation: own
		pcaptest.Eth{Src: macB, Dst: macA}.Frame(icmp6(other6, sol, 64, 135)),                   // forwarded: not
		pcaptest.Eth{Src: macB, Dst: macA}.Frame(icmp6(other6, sol, 255, 136)),                  // advertisement: not
		pcaptest.Eth{Src: macB, Dst: macA}.Frame(icmp6(netip.IPv6Unspecified(), sol, 255, 135)), // DAD: not
	}
	for i, fr := range frames {
		f.Add(t0.Add(time.Duration(i)*time.Millisecond), 0, fr)
	}
	r, err := capture.NewReader(bytes.NewReader(f.Bytes()), "own.pcap")
	if err != nil {
		t.Fatal(err)
	}
	var s capture.Segment
	for {
		if err := r.Next(&s); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	own, cut := r.LinkOwn()
	want := []capture.LinkOwn{
		{MAC: macA, IP: netip.MustParseAddr("10.0.0.1"), How: "ARP request"},
		{MAC: macB, IP: mine6, How: "IPv6 neighbor solicitation"},
		{MAC: macC, IP: netip.MustParseAddr("10.0.0.3"), How: "IPv4 broadcast"},
	}
	if cut || len(own) != len(want) {
		t.Fatalf("LinkOwn = %+v (cut %v), want %+v", own, cut, want)
	}
	for i := range want {
		if own[i] != want[i] {
			t.Errorf("LinkOwn[%d] = %+v, want %+v", i, own[i], want[i])
		}
	}
}
