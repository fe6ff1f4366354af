package pcaptest

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

var (
	cli4 = netip.MustParseAddrPort("10.0.0.1:5000")
	srv4 = netip.MustParseAddrPort("10.0.0.2:80")
	cli6 = netip.MustParseAddrPort("[2001:db8::1]:5000")
	srv6 = netip.MustParseAddrPort("[2001:db8::2]:443")
)

// synMSSWS: IPv4 10.0.0.1:5000 → 10.0.0.2:80, SYN seq=1000, MSS 1460, WS 7,
// SACK-permitted, IP id 1, DF.
var synMSSWS = `
	4500 0034 0001 4000 4006 26c1 0a00 0001 0a00 0002  # IPv4 hl 5, len 52, DF, TTL 64, proto 6
	1388 0050 0000 03e8 0000 0000 8002 ffff 434f 0000  # TCP off=8 SYN win=65535
	0204 05b4 0101 0402 0103 0307                      # MSS 1460, NOP NOP SACK-perm, NOP WS 7
`

func TestIPBytes(t *testing.T) {
	seg := TCP{Src: cli4, Dst: srv4, Seq: 1000, Flags: SYN, Window: 65535, MSS: 1460, WS: true, WScale: 7, SACKPerm: true, IPID: 1, DF: true}
	if got, want := seg.IP(), mustHex(t, synMSSWS); !bytes.Equal(got, want) {
		t.Errorf("IP() =\n%x, want\n%x", got, want)
	}
}

// decodeIP decodes an IP packet with gopacket and fails on any error or
// checksum mismatch.
func decodeIP(t *testing.T, ip []byte) gopacket.Packet {
	t.Helper()
	first := layers.LayerTypeIPv4
	if ip[0]>>4 == 6 {
		first = layers.LayerTypeIPv6
	}
	p := gopacket.NewPacket(ip, first, gopacket.Default)
	if el := p.ErrorLayer(); el != nil {
		t.Fatalf("decode: %v", el.Error())
	}
	if ip4, ok := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
		if err, res := ip4.VerifyChecksum(); err != nil || !res.Valid {
			t.Fatalf("IPv4 checksum %#x, want %#x (err %v)", res.Actual, res.Correct, err)
		}
	}
	if tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP); ok {
		if err := tcp.SetNetworkLayerForChecksum(p.NetworkLayer()); err != nil {
			t.Fatal(err)
		}
		if err, res := tcp.VerifyChecksum(); err != nil || !res.Valid {
			t.Fatalf("TCP checksum %#x, want %#x (err %v)", res.Actual, res.Correct, err)
		}
	}
	return p
}

func TestTCPDecodes(t *testing.T) {
	hbh := IPv6Ext{Proto: ProtoHopByHop}
	dst := IPv6Ext{Proto: ProtoDstOpts, Data: []byte{0x1e, 3, 1, 2, 3}} // experimental option, 3 bytes
	tests := []struct {
		name    string
		seg     TCP
		wantOpt []layers.TCPOptionKind // option kinds gopacket reports, NOPs/EOLs left out
		noTCP   bool                   // gopacket stops at a fragment header
		check   func(t *testing.T, p gopacket.Packet)
	}{
		{name: "ipv4-bare", seg: TCP{Src: cli4, Dst: srv4, Seq: 1, Ack: 2, Flags: ACK, Window: 100}},
		{
			name:    "ipv4-syn-all-options",
			seg:     TCP{Src: cli4, Dst: srv4, Seq: 0xfffffff0, Flags: SYN | ECE | CWR, Window: 64240, MSS: 1460, WS: true, WScale: 14, SACKPerm: true, TS: true, TSval: 7, TSecr: 0},
			wantOpt: []layers.TCPOptionKind{layers.TCPOptionKindMSS, layers.TCPOptionKindSACKPermitted, layers.TCPOptionKindTimestamps, layers.TCPOptionKindWindowScale},
		},
		{
			name:    "ipv4-sack-ts-payload",
			seg:     TCP{Src: cli4, Dst: srv4, Seq: 1, Ack: 5000, Flags: ACK | PSH, TS: true, TSval: 1, TSecr: 2, SACK: [][2]uint32{{10, 20}, {30, 40}, {50, 60}}, PayloadLen: 1001},
			wantOpt: []layers.TCPOptionKind{layers.TCPOptionKindTimestamps, layers.TCPOptionKindSACK},
		},
		{
			name:    "ipv4-4-sack-blocks",
			seg:     TCP{Src: cli4, Dst: srv4, Flags: ACK, SACK: [][2]uint32{{1, 2}, {3, 4}, {5, 6}, {7, 8}}},
			wantOpt: []layers.TCPOptionKind{layers.TCPOptionKindSACK},
		},
		{
			name: "ipv4-options-ttl-tos",
			seg:  TCP{Src: cli4, Dst: srv4, Flags: FIN | ACK | URG, Urgent: 3, TTL: 5, TOS: 0x03, IPID: 0xbeef, IPOptions: []byte{7, 7, 4, 0, 0, 0, 0}, PayloadLen: 3},
			check: func(t *testing.T, p gopacket.Packet) {
				ip := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
				if ip.IHL != 7 || ip.TTL != 5 || ip.TOS != 3 || ip.Id != 0xbeef || ip.Flags != 0 {
					t.Errorf("IPv4 IHL %d TTL %d TOS %d id %#x flags %v, want 7 5 3 0xbeef 0", ip.IHL, ip.TTL, ip.TOS, ip.Id, ip.Flags)
				}
				if len(ip.Options) == 0 || ip.Options[0].OptionType != 7 {
					t.Errorf("IPv4 options = %+v, want record route first", ip.Options)
				}
			},
		},
		{
			name:    "ipv6-ts",
			seg:     TCP{Src: cli6, Dst: srv6, Seq: 9, Ack: 10, Flags: ACK, TS: true, TSval: 3, TSecr: 4, PayloadLen: 20, TTL: 3, FlowLabel: 0x12345},
			wantOpt: []layers.TCPOptionKind{layers.TCPOptionKindTimestamps},
			check: func(t *testing.T, p gopacket.Packet) {
				ip := p.Layer(layers.LayerTypeIPv6).(*layers.IPv6)
				if ip.HopLimit != 3 || ip.FlowLabel != 0x12345 || ip.NextHeader != layers.IPProtocolTCP || ip.Length != 52 {
					t.Errorf("IPv6 hop limit %d flow %#x next %v length %d, want 3 0x12345 TCP 52", ip.HopLimit, ip.FlowLabel, ip.NextHeader, ip.Length)
				}
			},
		},
		{
			name: "ipv6-hbh-dstopts",
			seg:  TCP{Src: cli6, Dst: srv6, Flags: ACK, PayloadLen: 7, IPv6Ext: []IPv6Ext{hbh, dst}},
			check: func(t *testing.T, p gopacket.Packet) {
				if p.Layer(layers.LayerTypeIPv6HopByHop) == nil || p.Layer(layers.LayerTypeIPv6Destination) == nil {
					t.Errorf("layers = %v, want hop-by-hop and destination options", p.Layers())
				}
				d := p.Layer(layers.LayerTypeIPv6Destination).(*layers.IPv6Destination)
				if len(d.Contents) != 8 || d.Options[0].OptionType != 0x1e {
					t.Errorf("destination options %x, want 8 bytes starting with option 0x1e", d.Contents)
				}
			},
		},
		{
			name:  "ipv6-atomic-fragment",
			seg:   TCP{Src: cli6, Dst: srv6, Flags: ACK, PayloadLen: 1, IPv6Ext: []IPv6Ext{hbh, {Proto: ProtoFragment, FragID: 77}}},
			noTCP: true,
			check: func(t *testing.T, p gopacket.Packet) {
				fr, ok := p.Layer(layers.LayerTypeIPv6Fragment).(*layers.IPv6Fragment)
				if !ok || fr.Identification != 77 || fr.MoreFragments || fr.FragmentOffset != 0 {
					t.Errorf("fragment header = %+v, want id 77, offset 0, no MF", fr)
				}
			},
		},
		{
			name:    "explicit-payload-and-raw-option",
			seg:     TCP{Src: cli4, Dst: srv4, Flags: ACK, Payload: []byte("hello"), RawOptions: []byte{0xfd, 4, 0xab, 0xcd}},
			wantOpt: []layers.TCPOptionKind{253},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := decodeIP(t, tt.seg.IP())
			if tt.check != nil {
				tt.check(t, p)
			}
			if tt.noTCP {
				return
			}
			tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
			if !ok {
				t.Fatalf("no TCP layer in %v", p.Layers())
			}
			src, dst := p.NetworkLayer().NetworkFlow().Endpoints()
			if src.String() != tt.seg.Src.Addr().String() || dst.String() != tt.seg.Dst.Addr().String() {
				t.Errorf("addresses = %v -> %v, want %v -> %v", src, dst, tt.seg.Src.Addr(), tt.seg.Dst.Addr())
			}
			if uint16(tcp.SrcPort) != tt.seg.Src.Port() || uint16(tcp.DstPort) != tt.seg.Dst.Port() {
				t.Errorf("ports = %d -> %d, want %d -> %d", tcp.SrcPort, tcp.DstPort, tt.seg.Src.Port(), tt.seg.Dst.Port())
			}
			if tcp.Seq != tt.seg.Seq || tcp.Ack != tt.seg.Ack || tcp.Window != tt.seg.Window || tcp.Urgent != tt.seg.Urgent {
				t.Errorf("seq %d ack %d win %d urg %d, want %d %d %d %d", tcp.Seq, tcp.Ack, tcp.Window, tcp.Urgent, tt.seg.Seq, tt.seg.Ack, tt.seg.Window, tt.seg.Urgent)
			}
			if got := gotFlags(tcp); got != tt.seg.Flags {
				t.Errorf("flags = %08b, want %08b", got, tt.seg.Flags)
			}
			if got, want := tcp.Payload, tt.seg.PayloadBytes(); !bytes.Equal(got, want) {
				t.Errorf("payload = %d bytes %x..., want %d bytes", len(got), got[:min(len(got), 8)], len(want))
			}
			if int(tcp.DataOffset)*4 != tt.seg.TCPHeaderLen() {
				t.Errorf("data offset = %d words, want %d bytes", tcp.DataOffset, tt.seg.TCPHeaderLen())
			}
			var kinds []layers.TCPOptionKind
			for _, o := range tcp.Options {
				if o.OptionType != layers.TCPOptionKindNop && o.OptionType != layers.TCPOptionKindEndList {
					kinds = append(kinds, o.OptionType)
				}
				checkOption(t, o, &tt.seg)
			}
			if !equalKinds(kinds, tt.wantOpt) {
				t.Errorf("options = %v, want %v", kinds, tt.wantOpt)
			}
		})
	}
}

func gotFlags(tcp *layers.TCP) Flags {
	var f Flags
	for _, b := range []struct {
		on   bool
		flag Flags
	}{{tcp.FIN, FIN}, {tcp.SYN, SYN}, {tcp.RST, RST}, {tcp.PSH, PSH}, {tcp.ACK, ACK}, {tcp.URG, URG}, {tcp.ECE, ECE}, {tcp.CWR, CWR}} {
		if b.on {
			f |= b.flag
		}
	}
	return f
}

func equalKinds(a, b []layers.TCPOptionKind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkOption compares one decoded option with the value seg asked for.
func checkOption(t *testing.T, o layers.TCPOption, seg *TCP) {
	t.Helper()
	be := func(b []byte) uint32 {
		var v uint32
		for _, x := range b {
			v = v<<8 | uint32(x)
		}
		return v
	}
	switch o.OptionType {
	case layers.TCPOptionKindMSS:
		if got := be(o.OptionData); got != uint32(seg.MSS) {
			t.Errorf("MSS = %d, want %d", got, seg.MSS)
		}
	case layers.TCPOptionKindWindowScale:
		if o.OptionData[0] != seg.WScale {
			t.Errorf("WScale = %d, want %d", o.OptionData[0], seg.WScale)
		}
	case layers.TCPOptionKindTimestamps:
		if v, e := be(o.OptionData[:4]), be(o.OptionData[4:]); v != seg.TSval || e != seg.TSecr {
			t.Errorf("TSval, TSecr = %d, %d, want %d, %d", v, e, seg.TSval, seg.TSecr)
		}
	case layers.TCPOptionKindSACK:
		if len(o.OptionData) != 8*len(seg.SACK) {
			t.Fatalf("SACK option %x, want %d blocks", o.OptionData, len(seg.SACK))
		}
		for i, b := range seg.SACK {
			if l, r := be(o.OptionData[8*i:][:4]), be(o.OptionData[8*i+4:][:4]); l != b[0] || r != b[1] {
				t.Errorf("SACK block %d = [%d, %d), want [%d, %d)", i, l, r, b[0], b[1])
			}
		}
	}
}

func TestSeqLen(t *testing.T) {
	tests := []struct {
		seg  TCP
		want uint32
	}{
		{TCP{Flags: SYN}, 1},
		{TCP{Flags: SYN | FIN, PayloadLen: 10}, 12},
		{TCP{Flags: ACK, Payload: []byte("abc"), PayloadLen: 99}, 3},
		{TCP{Flags: RST}, 0},
	}
	for _, tt := range tests {
		if got := tt.seg.SeqLen(); got != tt.want {
			t.Errorf("%+v.SeqLen() = %d, want %d", tt.seg.Flags, got, tt.want)
		}
	}
}

func TestOptionsTooLongPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("IP() with 4 SACK blocks and TS did not panic")
		}
	}()
	TCP{Src: cli4, Dst: srv4, TS: true, SACK: make([][2]uint32, 4)}.IP()
}

func TestPayloadPatternAcrossTableEnd(t *testing.T) {
	seg := TCP{Src: cli6, Dst: srv6, Seq: 0xffffff80, PayloadLen: 65000, Flags: ACK}
	ip := seg.IP()
	p := decodeIP(t, ip) // checks the checksum over the long payload
	pl := p.Layer(layers.LayerTypeTCP).(*layers.TCP).Payload
	for i, b := range pl {
		if b != byte(seg.Seq+uint32(i)) {
			t.Fatalf("payload[%d] = %#x, want %#x", i, b, byte(seg.Seq+uint32(i)))
		}
	}
	got, want := fold(sumPattern(3, 70001, 0)), fold(sumWords(appendPattern(nil, 3, 70001), 0))
	if got != want {
		t.Errorf("sumPattern(3, 70001) folds to %#x, summing the bytes gives %#x", got, want)
	}
}

func TestFragments(t *testing.T) {
	tests := []struct {
		name string
		seg  TCP
		frag int
		want int // fragments
	}{
		{"ipv4", TCP{Src: cli4, Dst: srv4, Seq: 5, Flags: ACK, PayloadLen: 100, IPID: 42, DF: false}, 50, 3},
		{"ipv4-uneven", TCP{Src: cli4, Dst: srv4, Flags: ACK, PayloadLen: 1, IPID: 43}, 13, 3},
		{"ipv6", TCP{Src: cli6, Dst: srv6, Flags: ACK, PayloadLen: 100, IPID: 44, IPv6Ext: []IPv6Ext{{Proto: ProtoHopByHop}}}, 64, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole := tt.seg.IP()
			frags := tt.seg.Fragments(tt.frag)
			if len(frags) != tt.want {
				t.Fatalf("Fragments(%d) gave %d fragments, want %d", tt.frag, len(frags), tt.want)
			}
			var joined []byte
			for i, fr := range frags {
				first := layers.LayerTypeIPv4
				if tt.seg.IsIPv6() {
					first = layers.LayerTypeIPv6
				}
				p := gopacket.NewPacket(fr, first, gopacket.Default)
				var off int
				var mf bool
				var id uint32
				var rest []byte
				if ip4, ok := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
					if err, res := ip4.VerifyChecksum(); err != nil || !res.Valid {
						t.Errorf("fragment %d: IPv4 checksum %#x, want %#x", i, res.Actual, res.Correct)
					}
					off, mf, id, rest = int(ip4.FragOffset)*8, ip4.Flags&layers.IPv4MoreFragments != 0, uint32(ip4.Id), ip4.Payload
				} else {
					fh, ok := p.Layer(layers.LayerTypeIPv6Fragment).(*layers.IPv6Fragment)
					if !ok {
						t.Fatalf("fragment %d: no IPv6 fragment header in %v", i, p.Layers())
					}
					off, mf, id, rest = int(fh.FragmentOffset)*8, fh.MoreFragments, fh.Identification, fh.Payload
				}
				if off != len(joined) || mf != (i < len(frags)-1) || id != uint32(tt.seg.IPID) {
					t.Errorf("fragment %d: offset %d MF %v id %d, want %d %v %d", i, off, mf, id, len(joined), i < len(frags)-1, tt.seg.IPID)
				}
				if i == 0 && (len(rest) < 4 || int(rest[0])<<8|int(rest[1]) != int(tt.seg.Src.Port())) {
					t.Errorf("first fragment does not start with the TCP header: %x", rest)
				}
				joined = append(joined, rest...)
			}
			if !bytes.HasSuffix(whole, joined) || len(whole)-len(joined) != len(whole)-(tt.seg.TCPHeaderLen()+tt.seg.PayloadLen) {
				t.Errorf("reassembled fragments differ from the unfragmented packet")
			}
		})
	}
}
