package pcaptest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

func TestLinkFrames(t *testing.T) {
	seg4 := TCP{Src: cli4, Dst: srv4, Seq: 100, Ack: 200, Flags: ACK | PSH, Window: 300, PayloadLen: 50}
	seg6 := TCP{Src: cli6, Dst: srv6, Seq: 101, Ack: 201, Flags: ACK, Window: 301, PayloadLen: 10}
	ip4, ip6 := seg4.IP(), seg6.IP()
	sta := MAC{0x02, 0, 0, 0, 0, 0x55}

	tests := []struct {
		name  string
		link  uint32
		frame []byte
		seg   *TCP // nil: the frame must carry no TCP
		check func(t *testing.T, p gopacket.Packet)
	}{
		{name: "ethernet-ipv4", link: LinkEthernet, frame: Ethernet(ip4), seg: &seg4, check: func(t *testing.T, p gopacket.Packet) {
			eth := p.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
			if !bytes.Equal(eth.SrcMAC, DefaultSrcMAC[:]) || !bytes.Equal(eth.DstMAC, DefaultDstMAC[:]) || eth.EthernetType != layers.EthernetTypeIPv4 {
				t.Errorf("Ethernet %v -> %v type %v, want defaults and IPv4", eth.SrcMAC, eth.DstMAC, eth.EthernetType)
			}
		}},
		{name: "ethernet-ipv6", link: LinkEthernet, frame: Ethernet(ip6), seg: &seg6},
		{name: "ethernet-vlan", link: LinkEthernet, frame: Ethernet(ip4, 100), seg: &seg4, check: wantVLANs(layers.EthernetTypeDot1Q, 100)},
		{name: "ethernet-2-vlans", link: LinkEthernet, frame: Ethernet(ip6, 10, 20), seg: &seg6, check: wantVLANs(layers.EthernetTypeDot1Q, 10, 20)},
		{name: "ethernet-qinq", link: LinkEthernet, frame: Eth{VLANs: []uint16{300, 0x2000 | 7}, QinQ: true}.Frame(ip4), seg: &seg4, check: wantVLANs(layers.EthernetTypeQinQ, 300, 7)},
		{name: "ethernet-mpls", link: LinkEthernet, frame: Eth{MPLS: []uint32{16, 17}}.Frame(ip4), seg: &seg4, check: func(t *testing.T, p gopacket.Packet) {
			var labels []uint32
			for _, l := range p.Layers() {
				if m, ok := l.(*layers.MPLS); ok {
					labels = append(labels, m.Label)
				}
			}
			if len(labels) != 2 || labels[0] != 16 || labels[1] != 17 {
				t.Errorf("MPLS labels = %v, want [16 17]", labels)
			}
		}},
		{name: "ethernet-padded", link: LinkEthernet, frame: Eth{Pad: true}.Frame(TCP{Src: cli4, Dst: srv4, Flags: ACK}.IP()), seg: &TCP{Src: cli4, Dst: srv4, Flags: ACK}, check: func(t *testing.T, p gopacket.Packet) {
			if n := len(p.Data()); n != 60 {
				t.Errorf("frame length = %d, want 60", n)
			}
		}},
		{name: "linux-sll", link: LinkLinuxSLL, frame: LinuxSLL(ip4), seg: &seg4, check: func(t *testing.T, p gopacket.Packet) {
			if sll := p.Layer(layers.LayerTypeLinuxSLL).(*layers.LinuxSLL); sll.EthernetType != layers.EthernetTypeIPv4 || !bytes.Equal(sll.Addr, DefaultSrcMAC[:]) {
				t.Errorf("SLL type %v addr %v, want IPv4 %v", sll.EthernetType, sll.Addr, DefaultSrcMAC)
			}
		}},
		{name: "linux-sll2", link: LinkLinuxSLL2, frame: LinuxSLL2(ip6, 3), seg: &seg6, check: func(t *testing.T, p gopacket.Packet) {
			if sll := p.Layer(layers.LayerTypeLinuxSLL2).(*layers.LinuxSLL2); sll.InterfaceIndex != 3 || sll.ProtocolType != layers.EthernetTypeIPv6 {
				t.Errorf("SLL2 ifindex %d type %v, want 3 IPv6", sll.InterfaceIndex, sll.ProtocolType)
			}
		}},
		{name: "null-le-ipv4", link: LinkNull, frame: Null(ip4, 0, false), seg: &seg4, check: wantFamily(layers.ProtocolFamilyIPv4)},
		{name: "null-be-ipv4", link: LinkNull, frame: Null(ip4, 0, true), seg: &seg4, check: wantFamily(layers.ProtocolFamilyIPv4)},
		{name: "null-ipv6-darwin", link: LinkNull, frame: Null(ip6, 0, false), seg: &seg6, check: wantFamily(layers.ProtocolFamilyIPv6Darwin)},
		{name: "null-ipv6-bsd", link: LinkNull, frame: Null(ip6, AFInet6BSD, true), seg: &seg6, check: wantFamily(layers.ProtocolFamilyIPv6BSD)},
		{name: "null-ipv6-freebsd", link: LinkNull, frame: Null(ip6, AFInet6FreeBSD, false), seg: &seg6, check: wantFamily(layers.ProtocolFamilyIPv6FreeBSD)},
		// gopacket's PPP decoder wants the 2-byte protocol field alone, as
		// ns-3 writes it.
		{name: "ppp-ipv4", link: LinkPPP, frame: PPP(ip4), seg: &seg4, check: wantPrefix(0x00, 0x21)},
		{name: "ppp-ipv6", link: LinkPPP, frame: PPP(ip6), seg: &seg6, check: wantPrefix(0x00, 0x57)},
		{name: "raw-101-ipv4", link: LinkRaw, frame: Raw(ip4), seg: &seg4},
		{name: "raw-101-ipv6", link: LinkRaw, frame: Raw(ip6), seg: &seg6},
		// gopacket has no decoder for link types 228 and 229; the frame is
		// the IP packet, so decode it as one.
		{name: "raw-228", link: LinkIPv4, frame: Raw(ip4), seg: &seg4},
		{name: "raw-229", link: LinkIPv6, frame: Raw(ip6), seg: &seg6},
		// gopacket always strips 4 FCS bytes from 802.11, so give it one.
		{name: "dot11-data", link: LinkIEEE80211, frame: AppendFCS(Dot11{ToDS: true, SeqNum: 1234, FragNum: 2, RA: sta}.Frame(ip4)), seg: &seg4, check: func(t *testing.T, p gopacket.Packet) {
			d := p.Layer(layers.LayerTypeDot11).(*layers.Dot11)
			if d.Type != layers.Dot11TypeData || !d.Flags.ToDS() || d.Flags.FromDS() || d.Flags.Retry() || d.SequenceNumber != 1234 || d.FragmentNumber != 2 {
				t.Errorf("Dot11 type %v flags %v seq %d frag %d, want Data ToDS 1234 2", d.Type, d.Flags, d.SequenceNumber, d.FragmentNumber)
			}
			if !bytes.Equal(d.Address1, sta[:]) || !bytes.Equal(d.Address2, DefaultSrcMAC[:]) || !bytes.Equal(d.Address3, DefaultBSSID[:]) {
				t.Errorf("Dot11 addresses %v %v %v, want %v %v %v", d.Address1, d.Address2, d.Address3, sta, DefaultSrcMAC, DefaultBSSID)
			}
			if !d.ChecksumValid() {
				t.Errorf("Dot11 FCS %#x invalid", d.Checksum)
			}
			if p.Layer(layers.LayerTypeSNAP) == nil {
				t.Errorf("no SNAP layer in %v", p.Layers())
			}
		}},
		{name: "dot11-qos-retry", link: LinkIEEE80211, frame: AppendFCS(Dot11{QoS: true, TID: 5, FromDS: true, Retry: true, SeqNum: 4095}.Frame(ip6)), seg: &seg6, check: func(t *testing.T, p gopacket.Packet) {
			d := p.Layer(layers.LayerTypeDot11).(*layers.Dot11)
			if d.Type != layers.Dot11TypeDataQOSData || !d.Flags.Retry() || d.Flags.WEP() || !d.Flags.FromDS() || d.SequenceNumber != 4095 || d.QOS == nil || d.QOS.TID != 5 {
				t.Errorf("Dot11 type %v flags %v seq %d qos %+v, want QoS data Retry FromDS 4095 TID 5", d.Type, d.Flags, d.SequenceNumber, d.QOS)
			}
		}},
		// gopacket honours the Protected bit and stops at a Dot11WEP layer.
		{name: "dot11-protected", link: LinkIEEE80211, frame: AppendFCS(Dot11{Protected: true}.Frame(ip4)), check: func(t *testing.T, p gopacket.Packet) {
			if d := p.Layer(layers.LayerTypeDot11).(*layers.Dot11); !d.Flags.WEP() || p.Layer(layers.LayerTypeDot11WEP) == nil {
				t.Errorf("flags %v layers %v, want Protected and a Dot11WEP layer", d.Flags, p.Layers())
			}
		}},
		{name: "dot11-wds", link: LinkIEEE80211, frame: AppendFCS(Dot11{ToDS: true, FromDS: true, Addr4: sta}.Frame(ip4)), seg: &seg4, check: func(t *testing.T, p gopacket.Packet) {
			if d := p.Layer(layers.LayerTypeDot11).(*layers.Dot11); !bytes.Equal(d.Address4, sta[:]) {
				t.Errorf("Dot11 address 4 = %v, want %v", d.Address4, sta)
			}
		}},
		{name: "dot11-ack", link: LinkIEEE80211, frame: AppendFCS(Dot11Ack(sta)), check: func(t *testing.T, p gopacket.Packet) {
			d := p.Layer(layers.LayerTypeDot11).(*layers.Dot11)
			if d.Type != layers.Dot11TypeCtrlAck || !bytes.Equal(d.Address1, sta[:]) || !d.ChecksumValid() {
				t.Errorf("Dot11 type %v RA %v FCS ok %v, want ACK to %v with valid FCS", d.Type, d.Address1, d.ChecksumValid(), sta)
			}
		}},
		{name: "radiotap-fcs", link: LinkRadiotap, frame: Radiotap(Dot11{Retry: true}.Frame(ip4), true), seg: &seg4, check: func(t *testing.T, p gopacket.Packet) {
			rt, ok := p.Layer(layers.LayerTypeRadioTap).(*layers.RadioTap)
			if !ok {
				t.Fatalf("no radiotap layer in %v", p.Layers())
			}
			v := rt.RadioTapValues[0]
			if rt.Length != RadiotapLen || !v.Flags.FCS() || v.ChannelFrequency != 2437 || v.Rate != 108 || v.DBMAntennaSignal != -40 || v.DBMAntennaNoise != -95 {
				t.Errorf("radiotap len %d flags %v freq %d rate %d signal %d noise %d", rt.Length, v.Flags, v.ChannelFrequency, v.Rate, v.DBMAntennaSignal, v.DBMAntennaNoise)
			}
			d := p.Layer(layers.LayerTypeDot11).(*layers.Dot11)
			if !d.Flags.Retry() || !d.ChecksumValid() {
				t.Errorf("Dot11 Retry %v FCS valid %v, want both", d.Flags.Retry(), d.ChecksumValid())
			}
		}},
		{name: "radiotap-no-fcs", link: LinkRadiotap, frame: Radiotap(Dot11{}.Frame(ip6), false), seg: &seg6, check: func(t *testing.T, p gopacket.Packet) {
			if rt := p.Layer(layers.LayerTypeRadioTap).(*layers.RadioTap); rt.RadioTapValues[0].Flags.FCS() {
				t.Errorf("radiotap FCS flag set")
			}
			if n := len(p.Data()); n != RadiotapLen+24+8+len(ip6) {
				t.Errorf("frame length = %d, want %d", n, RadiotapLen+24+8+len(ip6))
			}
		}},
		{name: "prism", link: LinkPrism, frame: Prism(AppendFCS(Dot11{}.Frame(ip4))), seg: &seg4, check: func(t *testing.T, p gopacket.Packet) {
			pr, ok := p.Layer(layers.LayerTypePrismHeader).(*layers.PrismHeader)
			if !ok {
				t.Fatalf("no Prism layer in %v", p.Layers())
			}
			if pr.Code != 0x44 || pr.Length != PrismLen || len(pr.Values) != 10 || pr.Values[9].DID != layers.PrismDIDType1FrameLength {
				t.Errorf("Prism code %#x len %d values %d, want 0x44 144 10 ending in frame length", pr.Code, pr.Length, len(pr.Values))
			}
			if got := binary.LittleEndian.Uint32(pr.Values[9].Data); int(got) != len(p.Data())-PrismLen {
				t.Errorf("Prism frame length = %d, want %d", got, len(p.Data())-PrismLen)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var first gopacket.Decoder = layers.LinkType(tt.link)
			switch tt.link {
			case LinkIPv4:
				first = layers.LayerTypeIPv4
			case LinkIPv6:
				first = layers.LayerTypeIPv6
			}
			p := gopacket.NewPacket(tt.frame, first, gopacket.Default)
			if el := p.ErrorLayer(); el != nil {
				t.Fatalf("decode: %v (layers %v)", el.Error(), p.Layers())
			}
			tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
			switch {
			case tt.seg == nil && ok:
				t.Errorf("decoded a TCP layer from a frame that has none")
			case tt.seg != nil && !ok:
				t.Fatalf("no TCP layer in %v", p.Layers())
			case tt.seg != nil:
				if tcp.Seq != tt.seg.Seq || tcp.Ack != tt.seg.Ack || uint16(tcp.SrcPort) != tt.seg.Src.Port() || len(tcp.Payload) != tt.seg.PayloadLen {
					t.Errorf("TCP %d->%d seq %d ack %d payload %d, want %v seq %d ack %d payload %d",
						tcp.SrcPort, tcp.DstPort, tcp.Seq, tcp.Ack, len(tcp.Payload), tt.seg.Src, tt.seg.Seq, tt.seg.Ack, tt.seg.PayloadLen)
				}
				src, _ := p.NetworkLayer().NetworkFlow().Endpoints()
				if src.String() != tt.seg.Src.Addr().String() {
					t.Errorf("IP source = %v, want %v", src, tt.seg.Src.Addr())
				}
			}
			if tt.check != nil {
				tt.check(t, p)
			}
		})
	}
}

func wantVLANs(outerTPID layers.EthernetType, ids ...uint16) func(*testing.T, gopacket.Packet) {
	return func(t *testing.T, p gopacket.Packet) {
		if et := p.Layer(layers.LayerTypeEthernet).(*layers.Ethernet).EthernetType; et != outerTPID {
			t.Errorf("outer EtherType = %v, want %v", et, outerTPID)
		}
		var got []uint16
		for _, l := range p.Layers() {
			if q, ok := l.(*layers.Dot1Q); ok {
				got = append(got, q.VLANIdentifier)
			}
		}
		if len(got) != len(ids) {
			t.Fatalf("VLAN ids = %v, want %v", got, ids)
		}
		for i := range ids {
			if got[i] != ids[i] {
				t.Errorf("VLAN ids = %v, want %v", got, ids)
			}
		}
	}
}

func wantFamily(f layers.ProtocolFamily) func(*testing.T, gopacket.Packet) {
	return func(t *testing.T, p gopacket.Packet) {
		if got := p.Layer(layers.LayerTypeLoopback).(*layers.Loopback).Family; got != f {
			t.Errorf("loopback family = %v, want %v", got, f)
		}
	}
}

func wantPrefix(b ...byte) func(*testing.T, gopacket.Packet) {
	return func(t *testing.T, p gopacket.Packet) {
		if !bytes.HasPrefix(p.Data(), b) {
			t.Errorf("frame starts %x, want %x", p.Data()[:len(b)], b)
		}
	}
}

func TestAppendFCS(t *testing.T) {
	in := []byte("123456789")
	got := AppendFCS(in)
	if want := crc32.ChecksumIEEE(in); binary.LittleEndian.Uint32(got[9:]) != want || want != 0xcbf43926 {
		t.Errorf("AppendFCS(%q) = %x, want CRC-32 0xcbf43926 little-endian", in, got)
	}
	if len(in) != 9 {
		t.Errorf("AppendFCS modified its input")
	}
}

func TestNullByteOrder(t *testing.T) {
	tests := []struct {
		ip     []byte
		family uint32
		be     bool
		want   []byte
	}{
		{[]byte{0x45}, 0, false, []byte{2, 0, 0, 0, 0x45}},
		{[]byte{0x45}, 0, true, []byte{0, 0, 0, 2, 0x45}},
		{[]byte{0x60}, 0, false, []byte{30, 0, 0, 0, 0x60}},
		{[]byte{0x60}, AFInet6BSD, true, []byte{0, 0, 0, 24, 0x60}},
	}
	for _, tt := range tests {
		if got := Null(tt.ip, tt.family, tt.be); !bytes.Equal(got, tt.want) {
			t.Errorf("Null(%x, %d, %v) = %x, want %x", tt.ip, tt.family, tt.be, got, tt.want)
		}
	}
}
