package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/tcpviz/tcpviz/internal/pcaptest"
	"github.com/tcpviz/tcpviz/internal/seq"
)

// t0 is the capture time of the first frame in most tests:
// 2024-03-01 12:00:00.123456789 UTC = 1709294400.123456789 s.
var t0 = time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.UTC)

const t0ns = Timestamp(1709294400_123456789)

// seg4 is an IPv4 data segment 192.0.2.1:40000 → 198.51.100.7:443:
// seq 1000000, ack 2000000, PSH+ACK, window 501, TTL 57, IP id 4321,
// options NOP NOP TS(111, 222) NOP NOP SACK[2000100, 2000200) (24 bytes,
// header 44), 100 bytes of payload. IP total length 20+44+100 = 164.
var seg4 = pcaptest.TCP{
	Src: netip.MustParseAddrPort("192.0.2.1:40000"), Dst: netip.MustParseAddrPort("198.51.100.7:443"),
	Seq: 1000000, Ack: 2000000, Flags: pcaptest.PSH | pcaptest.ACK, Window: 501,
	TS: true, TSval: 111, TSecr: 222, SACK: [][2]uint32{{2000100, 2000200}},
	PayloadLen: 100, TTL: 57, IPID: 4321, DF: true,
}

var want4 = Segment{
	Src: netip.MustParseAddrPort("192.0.2.1:40000"), Dst: netip.MustParseAddrPort("198.51.100.7:443"),
	TTL: 57, IPID: 4321, IPLen: 164,
	Seq: 1000000, Ack: 2000000, Flags: PSH | ACK, Window: 501, HdrLen: 44, PayloadLen: 100,
	Opts: Options{WScale: -1, TS: true, TSval: 111, TSecr: 222, NSACK: 1, SACK: [4]SACKBlock{{2000100, 2000200}}},
}

// seg6 is an IPv6 SYN [2001:db8::1]:50000 → [2001:db8::2]:80, seq 7,
// window 64800, hop limit 61, options MSS 1440, SACK-perm, TS(9, 0), WS 7
// (20 bytes, header 40), no payload. IPv6 length 40+40 = 80.
var seg6 = pcaptest.TCP{
	Src: netip.MustParseAddrPort("[2001:db8::1]:50000"), Dst: netip.MustParseAddrPort("[2001:db8::2]:80"),
	Seq: 7, Flags: pcaptest.SYN, Window: 64800, TTL: 61,
	MSS: 1440, SACKPerm: true, TS: true, TSval: 9, WS: true, WScale: 7,
}

var want6 = Segment{
	Src: netip.MustParseAddrPort("[2001:db8::1]:50000"), Dst: netip.MustParseAddrPort("[2001:db8::2]:80"),
	IPv6: true, TTL: 61, IPLen: 80,
	Seq: 7, Flags: SYN, Window: 64800, HdrLen: 40,
	Opts: Options{MSS: 1440, WScale: 7, SACKPerm: true, TS: true, TSval: 9},
}

var (
	ip4 = seg4.IP()
	ip6 = seg6.IP()
	// taMAC and raMAC are the 802.11 transmitter and receiver in WiFi tests.
	taMAC = pcaptest.MAC{0x0a, 0x11, 0x22, 0x33, 0x44, 0x55}
	raMAC = pcaptest.MAC{0x0a, 0x66, 0x77, 0x88, 0x99, 0xaa}
)

// pcapOf returns a little-endian nanosecond pcap of link type lt whose
// frame i is captured at t0 + i ms. snaplen 0 means the default.
func pcapOf(lt uint32, snaplen int, frames ...[]byte) []byte {
	f := pcaptest.New(pcaptest.Options{Format: pcaptest.PcapNano, LinkType: lt, Snaplen: snaplen})
	for i, fr := range frames {
		f.Add(t0.Add(time.Duration(i)*time.Millisecond), 0, fr)
	}
	return f.Bytes()
}

// readAll reads every segment of the capture data, failing the test on any
// error other than io.EOF.
func readAll(t *testing.T, data []byte) ([]Segment, *Reader) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), "test.pcap")
	if err != nil {
		t.Fatalf("NewReader = %v, want nil", err)
	}
	var out []Segment
	for {
		var s Segment
		err := r.Next(&s)
		if errors.Is(err, io.EOF) {
			return out, r
		}
		if err != nil {
			t.Fatalf("Next = %v, want nil or io.EOF", err)
		}
		out = append(out, s)
	}
}

// decodeOne reads a pcap of link type lt holding the single frame and
// returns its segment (ok false if none) and the Stats.
func decodeOne(t *testing.T, lt uint32, snaplen int, frame []byte) (Segment, bool, Stats) {
	t.Helper()
	segs, r := readAll(t, pcapOf(lt, snaplen, frame))
	if len(segs) > 1 {
		t.Fatalf("got %d segments from one frame", len(segs))
	}
	if len(segs) == 0 {
		return Segment{}, false, r.Stats()
	}
	return segs[0], true, r.Stats()
}

// checkSeg reports every field of got that differs from want. TA and RA are
// compared only when want.WiFi, Checksum only when want.Checksum != 0.
func checkSeg(t *testing.T, got, want Segment) {
	t.Helper()
	type field struct {
		name      string
		got, want any
	}
	fields := []field{
		{"Frame", got.Frame, want.Frame}, {"Time", got.Time, want.Time}, {"Iface", got.Iface, want.Iface},
		{"CapLen", got.CapLen, want.CapLen}, {"WireLen", got.WireLen, want.WireLen},
		{"Src", got.Src, want.Src}, {"Dst", got.Dst, want.Dst}, {"IPv6", got.IPv6, want.IPv6},
		{"TTL", got.TTL, want.TTL}, {"IPID", got.IPID, want.IPID}, {"IPLen", got.IPLen, want.IPLen},
		{"Seq", got.Seq, want.Seq}, {"Ack", got.Ack, want.Ack}, {"Flags", got.Flags, want.Flags},
		{"Window", got.Window, want.Window}, {"HdrLen", got.HdrLen, want.HdrLen},
		{"PayloadLen", got.PayloadLen, want.PayloadLen}, {"Opts", got.Opts, want.Opts},
		{"WiFi", got.WiFi, want.WiFi}, {"RadioSignal", got.RadioSignal, want.RadioSignal},
	}
	if want.WiFi {
		fields = append(fields, field{"Retry", got.Retry, want.Retry}, field{"TA", got.TA, want.TA}, field{"RA", got.RA, want.RA})
	}
	if want.Checksum != 0 {
		fields = append(fields, field{"Checksum", got.Checksum, want.Checksum})
	}
	for _, f := range fields {
		if f.got != f.want {
			t.Errorf("Segment.%s = %+v, want %+v", f.name, f.got, f.want)
		}
	}
}

// ethHdr returns an Ethernet II header of EtherType et between the
// pcaptest default MACs.
func ethHdr(et uint16) []byte {
	b := append([]byte{}, pcaptest.DefaultDstMAC[:]...)
	b = append(b, pcaptest.DefaultSrcMAC[:]...)
	return binary.BigEndian.AppendUint16(b, et)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// ipv4Hdr returns a 20-byte IPv4 header (TTL 30, id 77, checksum unset)
// from 203.0.113.1 to 203.0.113.2 for a payload of n bytes of protocol proto.
func ipv4Hdr(proto byte, n int) []byte {
	b := []byte{0x45, 0, 0, 0, 0, 77, 0, 0, 30, proto, 0, 0, 203, 0, 113, 1, 203, 0, 113, 2}
	binary.BigEndian.PutUint16(b[2:], uint16(20+n))
	return b
}

// ipv6Hdr returns a 40-byte IPv6 header from 2001:db8:ff::1 to
// 2001:db8:ff::2 for a payload of n bytes whose first header is next.
func ipv6Hdr(next byte, n int) []byte {
	b := make([]byte, 40)
	b[0] = 0x60
	binary.BigEndian.PutUint16(b[4:], uint16(n))
	b[6], b[7] = next, 30
	a := netip.MustParseAddr("2001:db8:ff::1").As16()
	copy(b[8:], a[:])
	a = netip.MustParseAddr("2001:db8:ff::2").As16()
	copy(b[24:], a[:])
	return b
}

// udp returns a UDP header and payload from port 5000 to dport.
func udp(dport uint16, payload []byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, 5000)
	b = binary.BigEndian.AppendUint16(b, dport)
	b = binary.BigEndian.AppendUint16(b, uint16(8+len(payload)))
	b = append(b, 0, 0)
	return append(b, payload...)
}

// nflog returns ip as a link type 239 frame: family, version 0, resource
// id 0, an NFULA_PACKET_HDR TLV and the NFULA_PAYLOAD TLV.
func nflog(family byte, ip []byte) []byte {
	b := []byte{family, 0, 0, 0}
	b = append(b, 8, 0, 1, 0, 0x08, 0x00, 3, 0) // len 8, type 1: hw protocol 0x0800, hook 3
	b = binary.LittleEndian.AppendUint16(b, uint16(4+len(ip)))
	b = binary.LittleEndian.AppendUint16(b, 9)
	b = append(b, ip...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// avs returns the 802.11 frame dot11 behind a 64-byte AVS header (link
// type 163, big-endian version 0x80211001 and length 64).
func avs(dot11 []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0x80211001)
	b = binary.BigEndian.AppendUint32(b, 64)
	b = append(b, make([]byte, 56)...)
	return append(b, dot11...)
}

func withWiFi(s Segment, retry bool) Segment {
	s.WiFi, s.Retry, s.TA, s.RA = true, retry, taMAC, raMAC
	return s
}

// withRadiotap is withWiFi for pcaptest.Radiotap frames, which carry an
// antenna signal field.
func withRadiotap(s Segment, retry bool) Segment {
	s = withWiFi(s, retry)
	s.RadioSignal = true
	return s
}

func TestLinkTypes(t *testing.T) {
	dot11 := pcaptest.Dot11{TA: taMAC, RA: raMAC}
	qos := pcaptest.Dot11{QoS: true, TID: 5, Retry: true, TA: taMAC, RA: raMAC}
	wds := pcaptest.Dot11{QoS: true, ToDS: true, FromDS: true, Addr4: pcaptest.MAC{2, 4, 4, 4, 4, 4}, TA: taMAC, RA: raMAC}
	// QoS data with the Order bit (+HTC): a 4-byte HT Control field follows QoS Control.
	htc := qos.Frame(ip4)
	htc[1] |= 0x80
	htc = cat(htc[:26], []byte{0xde, 0xad, 0xbe, 0xef}, htc[26:])
	// A radiotap header with only the Flags field (present bit 1), as for a
	// frame the capturing radio sent.
	noSignal := cat([]byte{0, 0, 10, 0, 2, 0, 0, 0, 0, 0}, dot11.Frame(ip4))
	pppoe := cat(ethHdr(0x8864), []byte{0x11, 0x00, 0x12, 0x34}, binary.BigEndian.AppendUint16(nil, uint16(2+len(ip4))), pcaptest.PPP(ip4))
	llcSnap := cat(pcaptest.DefaultDstMAC[:], pcaptest.DefaultSrcMAC[:], binary.BigEndian.AppendUint16(nil, uint16(8+len(ip4))),
		[]byte{0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00}, ip4)
	tests := []struct {
		name  string
		lt    uint32
		frame []byte
		want  Segment
	}{
		{"ethernet", 1, pcaptest.Ethernet(ip4), want4},
		{"ethernet/ipv6", 1, pcaptest.Ethernet(ip6), want6},
		{"ethernet/802.1q", 1, pcaptest.Ethernet(ip4, 100), want4},
		{"ethernet/802.1q-x2", 1, pcaptest.Ethernet(ip6, 100, 200), want6},
		{"ethernet/qinq-88a8", 1, pcaptest.Eth{VLANs: []uint16{10, 20}, QinQ: true}.Frame(ip4), want4},
		{"ethernet/9100", 1, cat(ethHdr(0x9100), []byte{0, 10, 0x81, 0x00, 0, 20, 0x08, 0x00}, ip4), want4},
		{"ethernet/mpls", 1, pcaptest.Eth{MPLS: []uint32{16}}.Frame(ip4), want4},
		{"ethernet/vlan-mpls-x2/ipv6", 1, pcaptest.Eth{VLANs: []uint16{7}, MPLS: []uint32{16, 17}}.Frame(ip6), want6},
		{"ethernet/802.3-llc-snap", 1, llcSnap, want4},
		{"ethernet/pppoe", 1, pppoe, want4},
		{"ethernet/padded", 1, pcaptest.Eth{Pad: true}.Frame(ip6), want6},
		{"sll", 113, pcaptest.LinuxSLL(ip4), want4},
		{"sll/ipv6", 113, pcaptest.LinuxSLL(ip6), want6},
		{"sll2", 276, pcaptest.LinuxSLL2(ip4, 3), want4},
		{"sll2/ipv6", 276, pcaptest.LinuxSLL2(ip6, 3), want6},
		{"null/le/inet", 0, pcaptest.Null(ip4, pcaptest.AFInet, false), want4},
		{"null/be/inet", 0, pcaptest.Null(ip4, pcaptest.AFInet, true), want4},
		{"null/le/inet6-24", 0, pcaptest.Null(ip6, pcaptest.AFInet6BSD, false), want6},
		{"null/le/inet6-28", 0, pcaptest.Null(ip6, pcaptest.AFInet6FreeBSD, false), want6},
		{"null/le/inet6-30", 0, pcaptest.Null(ip6, pcaptest.AFInet6Darwin, false), want6},
		{"null/be/inet6-24", 0, pcaptest.Null(ip6, pcaptest.AFInet6BSD, true), want6},
		{"null/be/inet6-28", 0, pcaptest.Null(ip6, pcaptest.AFInet6FreeBSD, true), want6},
		{"null/be/inet6-30", 0, pcaptest.Null(ip6, pcaptest.AFInet6Darwin, true), want6},
		{"loop-108/inet", 108, pcaptest.Null(ip4, pcaptest.AFInet, true), want4},
		{"loop-108/inet6", 108, pcaptest.Null(ip6, pcaptest.AFInet6BSD, true), want6},
		{"ppp/bare", 9, pcaptest.PPP(ip4), want4},
		{"ppp/bare/ipv6", 9, pcaptest.PPP(ip6), want6},
		{"ppp/ff03", 9, cat([]byte{0xff, 0x03}, pcaptest.PPP(ip4)), want4},
		{"ppp/ff03/ipv6", 9, cat([]byte{0xff, 0x03}, pcaptest.PPP(ip6)), want6},
		{"ppp-with-dir", 204, cat([]byte{1, 0xff, 0x03}, pcaptest.PPP(ip4)), want4},
		{"raw-101/ipv4", 101, pcaptest.Raw(ip4), want4},
		{"raw-101/ipv6", 101, pcaptest.Raw(ip6), want6},
		{"raw-12", 12, pcaptest.Raw(ip4), want4},
		{"raw-14", 14, pcaptest.Raw(ip6), want6},
		{"ipv4-228", 228, pcaptest.Raw(ip4), want4},
		{"ipv6-229", 229, pcaptest.Raw(ip6), want6},
		{"nflog/ipv4", 239, nflog(2, ip4), want4},
		{"nflog/ipv6", 239, nflog(10, ip6), want6},
		{"nflog/unspec-family", 239, nflog(0, ip6), want6},
		{"802.11/data", 105, dot11.Frame(ip4), withWiFi(want4, false)},
		{"802.11/data/ipv6", 105, dot11.Frame(ip6), withWiFi(want6, false)},
		{"802.11/qos-retry", 105, qos.Frame(ip4), withWiFi(want4, true)},
		{"802.11/qos-htc", 105, htc, withWiFi(want4, true)},
		{"802.11/qos-4addr", 105, wds.Frame(ip4), withWiFi(want4, false)},
		{"radiotap", 127, pcaptest.Radiotap(dot11.Frame(ip4), false), withRadiotap(want4, false)},
		{"radiotap/fcs", 127, pcaptest.Radiotap(qos.Frame(ip6), true), withRadiotap(want6, true)},
		{"radiotap/no-signal", 127, noSignal, withWiFi(want4, false)},
		{"prism", 119, pcaptest.Prism(qos.Frame(ip4)), withWiFi(want4, true)},
		{"avs", 163, avs(dot11.Frame(ip6)), withWiFi(want6, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, st := decodeOne(t, tt.lt, 0, tt.frame)
			if !ok {
				t.Fatalf("no segment; Stats = %+v", st)
			}
			want := tt.want
			want.Frame, want.Time = 1, t0ns
			want.CapLen, want.WireLen = len(tt.frame), len(tt.frame)
			checkSeg(t, got, want)
			if st.Segments != 1 || st.Tunnelled != 0 {
				t.Errorf("Stats Segments, Tunnelled = %d, %d, want 1, 0", st.Segments, st.Tunnelled)
			}
		})
	}
}

// TestChecksumField checks that Segment.Checksum is the TCP checksum as
// captured: bytes 16-17 of the TCP header.
func TestChecksumField(t *testing.T) {
	want := binary.BigEndian.Uint16(ip4[20+16:])
	got, ok, _ := decodeOne(t, 1, 0, pcaptest.Ethernet(ip4))
	if !ok || got.Checksum != want || want == 0 {
		t.Errorf("Checksum = %#04x (ok %v), want %#04x", got.Checksum, ok, want)
	}
}

// TestSkippedFrames checks that each frame that carries no decodable TCP is
// counted in exactly one Stats counter and not returned.
func TestSkippedFrames(t *testing.T) {
	dot11 := pcaptest.Dot11{TA: taMAC, RA: raMAC}
	withFC := func(b []byte, fc0 byte) []byte { b[0] = fc0; return b }
	amsdu := pcaptest.Dot11{QoS: true}.Frame(ip4)
	amsdu[24] |= 0x80
	notSNAP := dot11.Frame(ip4)
	notSNAP[24], notSNAP[25] = 0x42, 0x42 // STP-style LLC
	beacon := cat([]byte{0x80, 0}, make([]byte, 22), make([]byte, 40))
	udp4 := cat(ipv4Hdr(17, 8+4), udp(53, []byte{1, 2, 3, 4}))
	udp6 := cat(ipv6Hdr(17, 8+4), udp(53, []byte{1, 2, 3, 4}))
	icmp := cat(ipv4Hdr(1, 8), make([]byte, 8))
	// VXLAN port but the I flag clear: not VXLAN.
	vxlanNoI := cat(ipv4Hdr(17, 8+8+len(ip4)+14), udp(4789, cat(make([]byte, 8), pcaptest.Ethernet(ip4))))
	frag4 := seg4.Fragments(64)
	frag6 := seg6.Fragments(32)
	badIHL := bytes.Clone(ip4)
	badIHL[0] = 0x44
	badTotal := bytes.Clone(ip4)
	binary.BigEndian.PutUint16(badTotal[2:], 19)
	badOff := bytes.Clone(ip4)
	badOff[20+12] = 0x40 // data offset 4 words
	shortIP := bytes.Clone(ip4)
	binary.BigEndian.PutUint16(shortIP[2:], 20+40) // TCP header says 44 bytes
	deep := bytes.Clone(ip4)
	for range 5 {
		deep = cat(ipv4Hdr(4, len(deep)), deep)
	}
	extCut := cat(ipv6Hdr(0, 8), []byte{6, 0, 1, 4})
	var hbhChain []byte // 17 hop-by-hop headers, the last naming TCP; only 16 are walked
	for i := range 17 {
		next := byte(0)
		if i == 16 {
			next = 6
		}
		hbhChain = append(hbhChain, next, 0, 1, 4, 0, 0, 0, 0)
	}
	hbhChain = cat(ipv6Hdr(0, len(hbhChain)+40), hbhChain, ip6[40:])
	extLong := cat(ipv6Hdr(0, 8), []byte{6, 1}, make([]byte, 14), ip6[40:]) // says 16 bytes, IPv6 payload 8
	mplsNoBottom := cat(ethHdr(0x8847), []byte{0, 0x10, 0, 64})

	type want struct{ nonIP, nonTCP, frags, trunc, badIP, nonData, protected int64 }
	tests := []struct {
		name  string
		lt    uint32
		frame []byte
		want  want
	}{
		{"802.11/ack", 105, pcaptest.Dot11Ack(raMAC), want{nonData: 1}},
		{"802.11/ack/radiotap-fcs", 127, pcaptest.Radiotap(pcaptest.Dot11Ack(raMAC), true), want{nonData: 1}},
		{"802.11/ack/radiotap", 127, pcaptest.Radiotap(pcaptest.Dot11Ack(raMAC), false), want{nonData: 1}},
		{"802.11/ack/prism", 119, pcaptest.Prism(pcaptest.Dot11Ack(raMAC)), want{nonData: 1}},
		{"802.11/beacon", 105, beacon, want{nonData: 1}},
		{"802.11/null-data", 105, withFC(dot11.Frame(nil), 0x48), want{nonData: 1}},
		{"802.11/qos-null", 105, withFC(pcaptest.Dot11{QoS: true}.Frame(nil), 0xc8), want{nonData: 1}},
		{"802.11/a-msdu", 105, amsdu, want{nonData: 1}},
		{"802.11/protected", 105, pcaptest.Dot11{Protected: true}.Frame(ip4), want{protected: 1}},
		{"802.11/protected/radiotap", 127, pcaptest.Radiotap(pcaptest.Dot11{QoS: true, Protected: true}.Frame(ip4), true), want{protected: 1}},
		{"802.11/llc-not-snap", 105, notSNAP, want{nonIP: 1}},
		{"802.11/cut-header", 105, dot11.Frame(ip4)[:20], want{trunc: 1}},
		{"radiotap/len-past-frame", 127, []byte{0, 0, 0xff, 0, 0, 0, 0, 0}, want{trunc: 1}},
		{"ethernet/arp", 1, cat(ethHdr(0x0806), make([]byte, 28)), want{nonIP: 1}},
		{"ethernet/unknown-ethertype", 1, cat(ethHdr(0x88b5), ip4), want{nonIP: 1}},
		{"ethernet/802.3-no-snap", 1, cat(ethHdr(46), []byte{0x42, 0x42, 0x03}, make([]byte, 43)), want{nonIP: 1}},
		{"ethernet/short", 1, make([]byte, 13), want{trunc: 1}},
		{"ethernet/mpls-cut", 1, mplsNoBottom, want{trunc: 1}},
		{"ethernet/vlan-cut", 1, cat(ethHdr(0x8100), []byte{0, 1}), want{trunc: 1}},
		{"ethernet/pppoe-cut", 1, cat(ethHdr(0x8864), []byte{0x11, 0}), want{trunc: 1}},
		{"802.11/qos-cut", 105, pcaptest.Dot11{QoS: true}.Frame(ip4)[:25], want{trunc: 1}},
		{"802.11/llc-cut", 105, pcaptest.Dot11{}.Frame(ip4)[:30], want{trunc: 1}},
		{"nflog/no-payload-tlv", 239, nflog(2, nil)[:12], want{nonIP: 1}},
		{"nflog/tlv-length-2", 239, []byte{2, 0, 0, 0, 2, 0, 9, 0}, want{nonIP: 1}},
		{"ipv6/no-next-header", 101, cat(ipv6Hdr(59, 0)), want{nonTCP: 1}},
		{"ipv6/17-extension-headers", 101, hbhChain, want{nonTCP: 1}},
		{"ipv6/ext-longer-than-payload", 101, extLong, want{trunc: 1}},
		{"ipv6/fragment-header-cut", 101, cat(ipv6Hdr(44, 8), []byte{6, 0, 0, 0}), want{trunc: 1}},
		{"ipv6/ah-cut", 101, cat(ipv6Hdr(51, 12), []byte{6, 1, 0, 0}), want{trunc: 1}},
		{"ethernet/udp", 1, pcaptest.Ethernet(udp4), want{nonTCP: 1}},
		{"ethernet/udp6", 1, pcaptest.Ethernet(udp6), want{nonTCP: 1}},
		{"raw/icmp", 101, icmp, want{nonTCP: 1}},
		{"raw/udp-4789-no-i-flag", 101, vxlanNoI, want{nonTCP: 1}},
		{"raw/version-5", 101, []byte{0x50, 0, 0, 0}, want{nonIP: 1}},
		{"raw/empty", 101, []byte{}, want{trunc: 1}},
		{"null/unknown-family", 0, pcaptest.Null(ip4, 7, false), want{nonIP: 1}},
		{"ppp/lcp", 9, cat([]byte{0xc0, 0x21}, make([]byte, 8)), want{nonIP: 1}},
		{"sll/short", 113, make([]byte, 15), want{trunc: 1}},
		{"sll2/arp", 276, cat([]byte{0x08, 0x06}, make([]byte, 18+28)), want{nonIP: 1}},
		{"ipv4/first-fragment", 101, frag4[0], want{frags: 1}},
		{"ipv4/later-fragment", 101, frag4[1], want{frags: 1}},
		{"ipv4/last-fragment", 101, frag4[len(frag4)-1], want{frags: 1}},
		{"ipv6/first-fragment", 101, frag6[0], want{frags: 1}},
		{"ipv6/later-fragment", 101, frag6[1], want{frags: 1}},
		{"ipv4/header-cut", 1, pcaptest.Ethernet(ip4[:19]), want{trunc: 1}},
		{"ipv4/options-cut", 101, cat([]byte{0x46}, ip4[1:20]), want{trunc: 1}},
		{"ipv6/header-cut", 101, ip6[:39], want{trunc: 1}},
		{"ipv6/ext-cut", 101, extCut, want{trunc: 1}},
		{"ipv4/ihl-4", 101, badIHL, want{badIP: 1}},
		{"ipv4/total-below-ihl", 101, badTotal, want{badIP: 1}},
		{"ipv4/ethertype-says-v4-packet-is-v6", 1, cat(ethHdr(0x0800), ip6), want{badIP: 1}},
		{"tcp/data-offset-4", 101, badOff, want{badIP: 1}},
		{"tcp/header-longer-than-ip-payload", 101, shortIP, want{badIP: 1}},
		{"tcp/header-cut", 101, ip4[:20+19], want{trunc: 1}},
		{"tunnel/too-deep", 101, deep, want{nonTCP: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ok, st := decodeOne(t, tt.lt, 0, tt.frame)
			if ok {
				t.Errorf("frame decoded as a segment, want skipped")
			}
			w := Stats{
				Frames: 1, NonIP: tt.want.nonIP, NonTCP: tt.want.nonTCP, Fragments: tt.want.frags,
				Truncated: tt.want.trunc, BadIP: tt.want.badIP, WiFiNonData: tt.want.nonData,
				WiFiProtected: tt.want.protected, First: t0ns, Last: t0ns,
			}
			if st != w {
				t.Errorf("Stats = %+v, want %+v", st, w)
			}
		})
	}
}

// TestIPHeaders checks IPv4 options, IPv6 extension headers, atomic IPv6
// fragments and IP lengths of 0 (TSO/GSO captures).
func TestIPHeaders(t *testing.T) {
	opt4 := seg4
	opt4.IPOptions = []byte{0x94, 0x04, 0x00, 0x00, 0x01} // router alert, NOP → 8 bytes
	wantOpt4 := want4
	wantOpt4.IPLen = 164 + 8

	ext6 := seg6
	ext6.PayloadLen = 10
	ext6.IPv6Ext = []pcaptest.IPv6Ext{
		{Proto: pcaptest.ProtoHopByHop, Data: []byte{0x05, 0x02, 0x00, 0x00}}, // router alert → 8 bytes
		{Proto: pcaptest.ProtoDstOpts, Data: make([]byte, 10)},                // 16 bytes
		{Proto: pcaptest.ProtoRouting},                                        // 8 bytes
	}
	wantExt6 := want6
	wantExt6.IPLen = 40 + 32 + 40 + 10
	wantExt6.PayloadLen = 10

	atomic6 := seg6
	atomic6.IPv6Ext = []pcaptest.IPv6Ext{{Proto: pcaptest.ProtoFragment, FragID: 99}}
	wantAtomic6 := want6
	wantAtomic6.IPLen = 40 + 8 + 40

	// TSO: IPv4 total length 0 behind a VLAN tag; the length comes from
	// the wire length minus the 18-byte Ethernet+VLAN header.
	tso4 := bytes.Clone(ip4)
	binary.BigEndian.PutUint16(tso4[2:], 0)
	tso6 := bytes.Clone(ip6)
	binary.BigEndian.PutUint16(tso6[4:], 0)

	// IPv6 with an authentication header (RFC 4302: length in 4-byte
	// units minus 2; 3 → 12 bytes) before seg6's TCP header.
	ah6 := cat(ipv6Hdr(51, 12+40), []byte{6, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 9}, ip6[40:])
	wantAH6 := want6
	wantAH6.Src = netip.AddrPortFrom(netip.MustParseAddr("2001:db8:ff::1"), 50000)
	wantAH6.Dst = netip.AddrPortFrom(netip.MustParseAddr("2001:db8:ff::2"), 80)
	wantAH6.TTL, wantAH6.IPLen = 30, 40+12+40

	// A bare ACK is 40 bytes of IP: the NIC pads its frame from 54 to 60 bytes.
	bare := pcaptest.TCP{Src: seg4.Src, Dst: seg4.Dst, Seq: 5, Ack: 6, Flags: pcaptest.ACK, Window: 1024, IPID: 1}
	wantBare := Segment{Src: want4.Src, Dst: want4.Dst, TTL: 64, IPID: 1, IPLen: 40, Seq: 5, Ack: 6, Flags: ACK,
		Window: 1024, HdrLen: 20, Opts: Options{WScale: -1}}

	tests := []struct {
		name  string
		lt    uint32
		frame []byte
		want  Segment
	}{
		{"ipv6-ah", 101, ah6, wantAH6},
		{"ethernet-padding", 1, pcaptest.Eth{Pad: true}.Frame(bare.IP()), wantBare},
		{"ipv4-options", 1, pcaptest.Ethernet(opt4.IP()), wantOpt4},
		{"ipv6-hbh-dstopts-routing", 1, pcaptest.Ethernet(ext6.IP()), wantExt6},
		{"ipv6-atomic-fragment", 101, atomic6.IP(), wantAtomic6},
		{"ipv4-total-length-0", 1, pcaptest.Ethernet(tso4, 5), want4},
		{"ipv6-payload-length-0", 9, pcaptest.PPP(tso6), want6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, st := decodeOne(t, tt.lt, 0, tt.frame)
			if !ok {
				t.Fatalf("no segment; Stats = %+v", st)
			}
			want := tt.want
			want.Frame, want.Time = 1, t0ns
			want.CapLen, want.WireLen = len(tt.frame), len(tt.frame)
			checkSeg(t, got, want)
		})
	}
}

// TestSnaplen checks frames cut by the snap length: the payload length
// comes from the IP header, cut options are flagged, and a TCP header cut
// below 20 bytes is counted.
func TestSnaplen(t *testing.T) {
	// seg4's frame: 14 Ethernet + 20 IPv4 + 44 TCP (options at 34+20..34+44)
	// + 100 payload = 178 bytes. Options: 01 01 08 0a TS(8) 01 01 05 0a SACK(8).
	optsNoSACK := want4.Opts
	optsNoSACK.NSACK, optsNoSACK.SACK, optsNoSACK.Truncated = 0, [4]SACKBlock{}, true
	optsNothing := Options{WScale: -1, Truncated: true}
	tests := []struct {
		name    string
		snaplen int
		opts    Options
		ok      bool
	}{
		{"payload-cut", 14 + 20 + 44 + 10, want4.Opts, true},
		{"no-payload", 14 + 20 + 44, want4.Opts, true},
		{"sack-cut", 14 + 20 + 20 + 12 + 6, optsNoSACK, true},
		{"sack-kind-only", 14 + 20 + 20 + 12 + 3, optsNoSACK, true},
		{"ts-cut", 14 + 20 + 20 + 8, optsNothing, true},
		{"options-absent", 14 + 20 + 20, optsNothing, true},
		{"tcp-19", 14 + 20 + 19, Options{}, false},
		{"tcp-4", 14 + 20 + 4, Options{}, false},
		{"ip-cut", 14 + 10, Options{}, false},
	}
	frame := pcaptest.Ethernet(ip4)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, st := decodeOne(t, 1, tt.snaplen, frame)
			if ok != tt.ok {
				t.Fatalf("decoded = %v, want %v; Stats = %+v", ok, tt.ok, st)
			}
			if !ok {
				if st.Truncated != 1 {
					t.Errorf("Stats.Truncated = %d, want 1", st.Truncated)
				}
				return
			}
			want := want4
			want.Frame, want.Time = 1, t0ns
			want.CapLen, want.WireLen = tt.snaplen, 178
			want.Opts = tt.opts
			checkSeg(t, got, want)
		})
	}
}

// TestOptions checks TCP option parsing on hand-written option bytes.
func TestOptions(t *testing.T) {
	sack4 := [4]SACKBlock{{10, 20}, {30, 40}, {50, 60}, {70, 80}}
	tests := []struct {
		name string
		tcp  pcaptest.TCP
		want Options
	}{
		{"none", pcaptest.TCP{}, Options{WScale: -1}},
		{"syn-linux", pcaptest.TCP{MSS: 1460, SACKPerm: true, TS: true, TSval: 4294967295, TSecr: 0, WS: true, WScale: 14},
			Options{MSS: 1460, WScale: 14, SACKPerm: true, TS: true, TSval: 4294967295}},
		{"sack-perm-only", pcaptest.TCP{SACKPerm: true}, Options{WScale: -1, SACKPerm: true}},
		{"ws-unclamped-15", pcaptest.TCP{WS: true, WScale: 15}, Options{WScale: 15}},
		{"ws-0", pcaptest.TCP{WS: true}, Options{WScale: 0}},
		{"sack-4-blocks", pcaptest.TCP{SACK: [][2]uint32{{10, 20}, {30, 40}, {50, 60}, {70, 80}}},
			Options{WScale: -1, NSACK: 4, SACK: sack4}},
		{"ts-and-3-sack", pcaptest.TCP{TS: true, TSval: 1, TSecr: 2, SACK: [][2]uint32{{10, 20}, {30, 40}, {50, 60}}},
			Options{WScale: -1, TS: true, TSval: 1, TSecr: 2, NSACK: 3, SACK: [4]SACKBlock{{10, 20}, {30, 40}, {50, 60}}}},
		{"sack-wraps", pcaptest.TCP{SACK: [][2]uint32{{0xfffffff0, 0x10}}},
			Options{WScale: -1, NSACK: 1, SACK: [4]SACKBlock{{seq.Num(0xfffffff0), 0x10}}}},
		{"eol-stops", pcaptest.TCP{RawOptions: []byte{2, 4, 1, 0, 0, 3, 3, 9}}, Options{MSS: 256, WScale: -1}},
		{"unknown-kind-skipped", pcaptest.TCP{RawOptions: []byte{30, 4, 0, 0, 2, 4, 0x05, 0xb4}}, Options{MSS: 1460, WScale: -1}},
		{"mss-bad-length-ignored", pcaptest.TCP{RawOptions: []byte{2, 3, 5, 1, 1, 1, 1, 1}}, Options{WScale: -1}},
		{"length-1-malformed", pcaptest.TCP{RawOptions: []byte{1, 1, 3, 1}}, Options{WScale: -1, Malformed: true}},
		{"length-past-header-malformed", pcaptest.TCP{RawOptions: []byte{1, 1, 8, 10, 0, 0, 0, 1}}, Options{WScale: -1, Malformed: true}},
		{"kind-at-end-malformed", pcaptest.TCP{RawOptions: []byte{1, 1, 1, 8}}, Options{WScale: -1, Malformed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.tcp
			p.Src, p.Dst = seg4.Src, seg4.Dst
			p.Flags = pcaptest.ACK
			got, ok, st := decodeOne(t, 101, 0, p.IP())
			if !ok {
				t.Fatalf("no segment; Stats = %+v", st)
			}
			if got.Opts != tt.want {
				t.Errorf("Opts = %+v, want %+v", got.Opts, tt.want)
			}
			if got.HdrLen != p.TCPHeaderLen() {
				t.Errorf("HdrLen = %d, want %d", got.HdrLen, p.TCPHeaderLen())
			}
		})
	}
}

// TestTunnels checks that VXLAN, GRE and IP-in-IP yield the inner
// segment and count Stats.Tunnelled.
func TestTunnels(t *testing.T) {
	gre := func(flags uint16, proto uint16, extra int, inner []byte) []byte {
		b := binary.BigEndian.AppendUint16(nil, flags)
		b = binary.BigEndian.AppendUint16(b, proto)
		b = append(b, make([]byte, extra)...)
		return append(b, inner...)
	}
	vxlan := func(inner []byte) []byte {
		return udp(4789, cat([]byte{0x08, 0, 0, 0, 0, 0x12, 0x34, 0}, inner))
	}
	in4 := func(proto byte, p []byte) []byte { return cat(ipv4Hdr(proto, len(p)), p) }
	in6 := func(proto byte, p []byte) []byte { return cat(ipv6Hdr(proto, len(p)), p) }
	tests := []struct {
		name  string
		lt    uint32
		frame []byte
		want  Segment
	}{
		{"ipip", 1, pcaptest.Ethernet(in4(4, ip4)), want4},
		{"6in4", 1, pcaptest.Ethernet(in4(41, ip6)), want6},
		{"4in6", 101, in6(4, ip4), want4},
		{"gre/ipv4", 1, pcaptest.Ethernet(in4(47, gre(0, 0x0800, 0, ip4))), want4},
		{"gre/key-seq/ipv6", 101, in4(47, gre(0x3000, 0x86dd, 8, ip6)), want6},
		{"gre/checksum-key-seq", 101, in4(47, gre(0xb000, 0x0800, 12, ip4)), want4},
		{"gre/teb", 101, in6(47, gre(0, 0x6558, 0, pcaptest.Ethernet(ip4, 42))), want4},
		{"vxlan", 1, pcaptest.Ethernet(in4(17, vxlan(pcaptest.Ethernet(ip4)))), want4},
		{"vxlan/ipv6-outer", 101, in6(17, vxlan(pcaptest.Ethernet(ip6, 9))), want6},
		{"vxlan-in-gre", 101, in4(47, gre(0, 0x0800, 0, in4(17, vxlan(pcaptest.Ethernet(ip4))))), want4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, st := decodeOne(t, tt.lt, 0, tt.frame)
			if !ok {
				t.Fatalf("no segment; Stats = %+v", st)
			}
			want := tt.want
			want.Frame, want.Time = 1, t0ns
			want.CapLen, want.WireLen = len(tt.frame), len(tt.frame)
			checkSeg(t, got, want)
			if st.Tunnelled != 1 || st.Segments != 1 {
				t.Errorf("Stats Tunnelled, Segments = %d, %d, want 1, 1", st.Tunnelled, st.Segments)
			}
		})
	}
	t.Run("gre-version-1", func(t *testing.T) {
		_, ok, st := decodeOne(t, 101, 0, in4(47, gre(0x0001, 0x880b, 0, ip4)))
		if ok || st.NonTCP != 1 {
			t.Errorf("decoded, NonTCP = %v, %d, want false, 1", ok, st.NonTCP)
		}
	})
	t.Run("count-once-per-tunnelled-segment", func(t *testing.T) {
		segs, r := readAll(t, pcapOf(101, 0, in4(4, ip4), ip4, in4(4, ip4)))
		if st := r.Stats(); len(segs) != 3 || st.Tunnelled != 2 {
			t.Errorf("segments, Stats.Tunnelled = %d, %d, want 3, 2", len(segs), st.Tunnelled)
		}
	})
}

// TestDecodeNeverPanics decodes every prefix of every test frame with every
// supported link type.
func TestDecodeNeverPanics(t *testing.T) {
	frames := [][]byte{
		pcaptest.Ethernet(ip4, 1, 2), pcaptest.Eth{MPLS: []uint32{1, 2}}.Frame(ip6),
		pcaptest.Radiotap(pcaptest.Dot11{QoS: true, ToDS: true, FromDS: true}.Frame(ip4), true),
		pcaptest.Prism(pcaptest.Dot11{}.Frame(ip6)), nflog(2, ip4), pcaptest.LinuxSLL2(ip6, 1),
		cat(ipv4Hdr(47, 4+len(ip4)), []byte{0xb0, 0, 0x08, 0}, ip4),
		cat(ipv4Hdr(17, 16+14+len(ip4)), udp(4789, cat([]byte{8, 0, 0, 0, 0, 0, 0, 0}, pcaptest.Ethernet(ip4)))),
	}
	lts := []int{LinkNull, LinkEthernet, LinkPPP, LinkRaw, LinkLoop, LinkLinuxSLL, LinkIEEE80211, LinkPrism,
		LinkRadiotap, LinkAVS, LinkIPv4, LinkIPv6, LinkNFLOG, LinkIPoIB, LinkLinuxSLL2, LinkPPPWithDir, 9999}
	var s Segment
	for _, f := range frames {
		for _, lt := range lts {
			for n := 0; n <= len(f); n++ {
				for _, wire := range []int{n, len(f), 0} {
					d := decoder{s: &s, wireLen: wire}
					func() {
						defer func() {
							if p := recover(); p != nil {
								t.Fatalf("decode(%d, % x) panicked: %v", lt, f[:n], p)
							}
						}()
						if d.decode(lt, f[:n]) == vTCP && s.PayloadLen < 0 {
							t.Errorf("decode(%d, % x): PayloadLen = %d, want >= 0", lt, f[:n], s.PayloadLen)
						}
					}()
				}
			}
		}
	}
}

func TestFlagsString(t *testing.T) {
	tests := []struct {
		f    Flags
		want string
	}{
		{0, "none"}, {SYN, "S"}, {SYN | ACK, "S."}, {FIN | PSH | ACK, "FP."}, {RST, "R"}, {ECE | CWR | SYN, "SEW"},
	}
	for _, tt := range tests {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("Flags(%#x).String() = %q, want %q", uint16(tt.f), got, tt.want)
		}
	}
	// The table String reads is name's, for every value (bits above CWR
	// are not named), and a lookup allocates nothing.
	for f := range 1 << 16 {
		if got, want := Flags(f).String(), Flags(f&0xff).name(); got != want {
			t.Fatalf("Flags(%#x).String() = %q, want %q", f, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = (SYN | ACK).String() }); n != 0 {
		t.Errorf("Flags.String allocates %v times, want 0", n)
	}
}

func TestSeqLen(t *testing.T) {
	tests := []struct {
		s    Segment
		want seq.Size
	}{
		{Segment{Seq: 10, PayloadLen: 100}, 100},
		{Segment{Seq: 10, Flags: SYN}, 1},
		{Segment{Seq: 0xffffffff, Flags: FIN | ACK, PayloadLen: 5}, 6},
		{Segment{Seq: 10, Flags: SYN | FIN, PayloadLen: 1}, 3},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s/%d", tt.s.Flags, tt.s.PayloadLen)
		if got := tt.s.SeqLen(); got != tt.want {
			t.Errorf("%s: SeqLen() = %d, want %d", name, got, tt.want)
		}
		if got, want := tt.s.End(), tt.s.Seq.Add(tt.want); got != want {
			t.Errorf("%s: End() = %d, want %d", name, got, want)
		}
	}
}

// TestParseOptionsShortcut checks that the NOP-NOP-timestamps shortcut of
// parseOptions gives what the option loop gives, on that layout and on
// near misses of it (other lengths, kinds, header lengths, cut captures).
func TestParseOptionsShortcut(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		b := make([]byte, 20+rng.IntN(24))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if len(b) >= 32 && i%2 == 0 {
			copy(b[20:], []byte{1, 1, 8, 10})
			if i%6 == 0 { // one byte off the layout
				b[20+rng.IntN(4)] ^= byte(1 << rng.IntN(8))
			}
		}
		hl := []int{20, 28, 32, 36, 40}[rng.IntN(5)]
		var got, want Options
		parseOptions(&got, b, hl)
		parseOptionList(&want, b, hl)
		if got != want {
			t.Fatalf("options % x, header length %d: shortcut %+v, loop %+v", b[20:], hl, got, want)
		}
	}
}
