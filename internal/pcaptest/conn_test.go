package pcaptest

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// line renders a segment the way the expectations below are written:
// direction, flags, relative seq/ack (tshark style), length, window, TS,
// time since t0.
func line(c *Conn, s Segment) string {
	ack := "-"
	if s.Flags&ACK != 0 {
		ack = fmt.Sprint(s.Ack - c.ISN[s.Dir.Reverse()])
	}
	out := fmt.Sprintf("%v %s seq=%d ack=%s len=%d win=%d", []string{"C2S", "S2C"}[s.Dir], flagString(s.Flags), s.Seq-c.ISN[s.Dir], ack, s.PayloadLen, s.Window)
	if s.TS {
		out += fmt.Sprintf(" ts=%d/%d", s.TSval, s.TSecr)
	}
	if s.MSS != 0 || s.WS || s.SACKPerm {
		out += fmt.Sprintf(" mss=%d ws=%v/%d sackperm=%v", s.MSS, s.WS, s.WScale, s.SACKPerm)
	}
	for _, b := range s.SACK {
		out += fmt.Sprintf(" sack=%d-%d", b[0]-c.ISN[s.Dir.Reverse()], b[1]-c.ISN[s.Dir.Reverse()])
	}
	return out + fmt.Sprintf(" @%v", s.T.Sub(t0))
}

func flagString(f Flags) string {
	var b []byte
	for i, c := range "FSRPAUEC" {
		if f&(1<<i) != 0 {
			b = append(b, byte(c))
		}
	}
	return string(b)
}

func TestConnScript(t *testing.T) {
	ms := time.Millisecond
	c := NewConn(cli4, srv4, 0xfffffff0, 7000) // the client's ISN wraps during the dialogue
	c.SynOpts(C2S, SynOptions{MSS: 1460, WS: true, WScale: 7, SACKPerm: true, TS: true})
	c.SynOpts(S2C, SynOptions{MSS: 1400, WS: true, WScale: 2, TS: true})

	segs := c.Handshake(t0, 10*ms)
	segs = append(segs,
		c.Data(t0.Add(11*ms), C2S, 100),
		c.Data(t0.Add(12*ms), C2S, 200),
		c.Ack(t0.Add(21*ms), S2C, 101, 1000, [2]uint32{201, 301}), // 101..201 lost
		c.DataAt(t0.Add(22*ms), C2S, 101, 100),
		c.Ack(t0.Add(32*ms), S2C, 301, 0), // zero window
		c.Data(t0.Add(33*ms), S2C, 10),
		c.Fin(t0.Add(40*ms), C2S),
		c.Ack(t0.Add(50*ms), S2C, 302, 1000),
		c.Fin(t0.Add(51*ms), S2C),
		c.Ack(t0.Add(61*ms), C2S, 12, 65535),
	)
	want := []string{
		"C2S S seq=0 ack=- len=0 win=65535 ts=1000/0 mss=1460 ws=true/7 sackperm=true @0s",
		"S2C SA seq=0 ack=1 len=0 win=65535 ts=5010/1000 mss=1400 ws=true/2 sackperm=false @10ms",
		"C2S A seq=1 ack=1 len=0 win=65535 ts=1010/5010 @10ms",
		"C2S PA seq=1 ack=1 len=100 win=65535 ts=1011/5010 @11ms",
		"C2S PA seq=101 ack=1 len=200 win=65535 ts=1012/5010 @12ms",
		"S2C A seq=1 ack=101 len=0 win=1000 ts=5021/1012 sack=201-301 @21ms",
		"C2S PA seq=101 ack=1 len=100 win=65535 ts=1022/5021 @22ms",
		"S2C A seq=1 ack=301 len=0 win=0 ts=5032/1022 @32ms",
		"S2C PA seq=1 ack=301 len=10 win=0 ts=5033/1022 @33ms",
		"C2S FA seq=301 ack=1 len=0 win=65535 ts=1040/5033 @40ms",
		"S2C A seq=11 ack=302 len=0 win=1000 ts=5050/1040 @50ms",
		"S2C FA seq=11 ack=302 len=0 win=1000 ts=5051/1040 @51ms",
		"C2S A seq=302 ack=12 len=0 win=65535 ts=1061/5051 @61ms",
	}
	if len(segs) != len(want) {
		t.Fatalf("got %d segments, want %d", len(segs), len(want))
	}
	for i, s := range segs {
		if got := line(c, s); got != want[i] {
			t.Errorf("segment %d:\n got %s\nwant %s", i+1, got, want[i])
		}
	}
	if c.Next(C2S) != 302 || c.Next(S2C) != 12 {
		t.Errorf("Next = %d, %d, want 302, 12", c.Next(C2S), c.Next(S2C))
	}
	if got := segs[3].Seq; got != 0xfffffff1 {
		t.Errorf("first data seq = %#x, want 0xfffffff1", got)
	}
	if got := segs[9].Seq; got != 301-16 {
		t.Errorf("FIN seq = %#x, want ISN+301 wrapped to 285", got)
	}

	// Through a pcapng file and back: every frame decodes to the same numbers.
	f := New(Options{Format: Pcapng, LinkType: LinkEthernet})
	for _, s := range segs {
		f.Add(s.T, 0, Ethernet(s.IP(), 42))
	}
	r, err := pcapgo.NewNgReader(bytes.NewReader(f.Bytes()), pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range segs {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			t.Fatal(err)
		}
		p := gopacket.NewPacket(data, layers.LinkTypeEthernet, gopacket.Default)
		tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if !ok {
			t.Fatalf("frame %d: no TCP in %v", i+1, p.Layers())
		}
		if !ci.Timestamp.Equal(s.T.Truncate(time.Microsecond)) || tcp.Seq != s.Seq || tcp.Ack != s.Ack || len(tcp.Payload) != s.PayloadLen || gotFlags(tcp) != s.Flags {
			t.Errorf("frame %d: ts %v seq %d ack %d len %d flags %v, want %v %d %d %d %v",
				i+1, ci.Timestamp, tcp.Seq, tcp.Ack, len(tcp.Payload), flagString(gotFlags(tcp)), s.T, s.Seq, s.Ack, s.PayloadLen, flagString(s.Flags))
		}
		if q := p.Layer(layers.LayerTypeDot1Q); q == nil || q.(*layers.Dot1Q).VLANIdentifier != 42 {
			t.Errorf("frame %d: VLAN tag missing or wrong: %v", i+1, p.Layers())
		}
	}
}

func TestConnNoTimestampsAndRst(t *testing.T) {
	c := NewConn(cli6, srv6, 1, 2)
	c.SynOpts(C2S, SynOptions{TS: true}) // the server does not agree: no TS after the SYN
	segs := append(c.Handshake(t0, time.Millisecond), c.Data(t0.Add(2*time.Millisecond), C2S, 5), c.Rst(t0.Add(3*time.Millisecond), S2C))
	want := []string{
		"C2S S seq=0 ack=- len=0 win=65535 ts=1000/0 @0s",
		"S2C SA seq=0 ack=1 len=0 win=65535 @1ms",
		"C2S A seq=1 ack=1 len=0 win=65535 @1ms",
		"C2S PA seq=1 ack=1 len=5 win=65535 @2ms",
		"S2C RA seq=1 ack=1 len=0 win=65535 @3ms",
	}
	for i, s := range segs {
		if got := line(c, s); got != want[i] {
			t.Errorf("segment %d:\n got %s\nwant %s", i+1, got, want[i])
		}
		decodeIP(t, s.IP())
	}
	if !segs[0].IsIPv6() || segs[1].Src != srv6 {
		t.Errorf("IPv6 conn gave IsIPv6 %v, SYN-ACK from %v", segs[0].IsIPv6(), segs[1].Src)
	}
}
