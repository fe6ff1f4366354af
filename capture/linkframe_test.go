package capture

import (
	"net/netip"
	"testing"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
)

// TestParseLinkFrame: the link-layer source and destination, broadcast,
// and the IP or ARP fields of hand-built frames of every link type with
// link addresses; 802.11 takes SA and DA by the DS bits (IEEE 802.11-2020
// Table 9-30), not TA and RA; links without addresses say nothing.
func TestParseLinkFrame(t *testing.T) {
	a, b := netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.1.1:80")
	ip := pcaptest.TCP{Src: a, Dst: b, Flags: pcaptest.ACK, TTL: 61}.IP()
	m := func(x byte) pcaptest.MAC { return pcaptest.MAC{2, 0, 0, 0, 0, x} }
	bcast := pcaptest.MAC{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	for _, c := range []struct {
		name         string
		link         int
		frame        []byte
		src, dst     pcaptest.MAC
		dstOK, bcast bool
	}{
		{"ethernet", LinkEthernet, pcaptest.Eth{Src: m(1), Dst: m(2)}.Frame(ip), m(1), m(2), true, false},
		{"ethernet, two VLAN tags", LinkEthernet, pcaptest.Eth{Src: m(1), Dst: m(2), VLANs: []uint16{5, 6}}.Frame(ip), m(1), m(2), true, false},
		{"ethernet broadcast", LinkEthernet, pcaptest.Eth{Src: m(1), Dst: bcast}.Frame(ip), m(1), bcast, true, true},
		{"Linux cooked v1", LinkLinuxSLL, pcaptest.LinuxSLL(ip), pcaptest.DefaultSrcMAC, pcaptest.MAC{}, false, false},
		{"Linux cooked v2", LinkLinuxSLL2, pcaptest.LinuxSLL2(ip, 3), pcaptest.DefaultSrcMAC, pcaptest.MAC{}, false, false},
		{"802.11 IBSS: SA = TA, DA = RA", LinkIEEE80211, pcaptest.Dot11{RA: m(2), TA: m(1), BSSID: m(9)}.Frame(ip), m(1), m(2), true, false},
		{"802.11 to the DS: DA = address 3", LinkIEEE80211, pcaptest.Dot11{ToDS: true, RA: m(9), TA: m(1), BSSID: m(3)}.Frame(ip), m(1), m(3), true, false},
		{"802.11 from the DS: SA = address 3", LinkIEEE80211, pcaptest.Dot11{FromDS: true, QoS: true, RA: m(2), TA: m(9), BSSID: m(4)}.Frame(ip), m(4), m(2), true, false},
		{"802.11 WDS: SA = address 4", LinkIEEE80211, pcaptest.Dot11{ToDS: true, FromDS: true, RA: m(8), TA: m(9), BSSID: m(5), Addr4: m(6)}.Frame(ip), m(6), m(5), true, false},
		{"radiotap", LinkRadiotap, pcaptest.Radiotap(pcaptest.Dot11{RA: m(2), TA: m(1)}.Frame(ip), false), m(1), m(2), true, false},
		{"prism", LinkPrism, pcaptest.Prism(pcaptest.Dot11{RA: m(2), TA: m(1)}.Frame(ip)), m(1), m(2), true, false},
	} {
		var lf LinkFrame
		if !ParseLinkFrame(c.link, c.frame, &lf) {
			t.Errorf("%s: not parsed", c.name)
			continue
		}
		if !lf.SrcOK || lf.Src != c.src || lf.DstOK != c.dstOK || (c.dstOK && lf.Dst != c.dst) || lf.Broadcast != c.bcast {
			t.Errorf("%s: src %x (%v) dst %x (%v) broadcast %v; want %x %x (%v) %v", c.name, lf.Src, lf.SrcOK, lf.Dst, lf.DstOK, lf.Broadcast, c.src, c.dst, c.dstOK, c.bcast)
		}
		if !lf.IP || lf.IPSrc != a.Addr() || lf.IPDst != b.Addr() || lf.TTL != 61 || lf.Proto != 6 {
			t.Errorf("%s: IP %v %v → %v TTL %d proto %d", c.name, lf.IP, lf.IPSrc, lf.IPDst, lf.TTL, lf.Proto)
		}
	}
	// A protected 802.11 frame: addresses, no IP.
	var lf LinkFrame
	if !ParseLinkFrame(LinkIEEE80211, pcaptest.Dot11{Protected: true, RA: m(2), TA: m(1)}.Frame(ip), &lf) || lf.IP || lf.Src != m(1) {
		t.Errorf("protected frame: %+v", lf)
	}
	// An ARP request from 10.0.0.7 at 02:…:07, broadcast.
	arp := append(append([]byte{}, bcast[:]...), 2, 0, 0, 0, 0, 7, 0x08, 0x06,
		0, 1, 0x08, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 7, 10, 0, 0, 7, 0, 0, 0, 0, 0, 0, 10, 0, 0, 9)
	if !ParseLinkFrame(LinkEthernet, arp, &lf) || !lf.ARP || lf.ARPOp != 1 || lf.ARPSender != netip.MustParseAddr("10.0.0.7") ||
		lf.ARPHW != m(7) || lf.Src != m(7) || !lf.Broadcast || lf.IP {
		t.Errorf("ARP request: %+v", lf)
	}
	// Links without link-layer addresses.
	for _, link := range []int{LinkRaw, LinkNull, LinkPPP, LinkIPv4} {
		if ParseLinkFrame(link, ip, &lf) {
			t.Errorf("link type %d parsed: %+v", link, lf)
		}
	}
	// Truncated frames: no panic, nothing claimed that is not there.
	for n := range 40 {
		ParseLinkFrame(LinkEthernet, arp[:n], &lf)
		ParseLinkFrame(LinkRadiotap, pcaptest.Radiotap(pcaptest.Dot11{}.Frame(ip), false)[:n], &lf)
		ParseLinkFrame(LinkLinuxSLL2, pcaptest.LinuxSLL2(ip, 1)[:n], &lf)
	}
}
