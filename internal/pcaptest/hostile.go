package pcaptest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"time"
)

// Hostile names an adversarial capture that WriteHostile builds: inputs that
// once made tcpviz take quadratic time or unbounded memory (issue 16).
type Hostile string

// The hostile captures. Each is one little-endian µs pcap (Ethernet/IPv4).
const (
	// HostileDescending: one connection, a handshake, then n one-byte
	// segments at relative offsets 2n, 2n−2, …, 2 (descending, each one
	// byte below the previous with a one-byte hole between, so every
	// segment opens a hole below all the others), then one ACK of the
	// first byte.
	HostileDescending Hostile = "descending"
	// HostileFillHoles: n one-byte segments at even offsets (n holes), then
	// the n holes filled in ascending order.
	HostileFillHoles Hostile = "fill-holes"
	// HostileRetransmitAll: n/2 one-byte segments, each sent twice
	// (original, then retransmission, interleaved in ascending order
	// after all originals).
	HostileRetransmitAll Hostile = "retransmit-all"
	// HostileSACKDescending: the receiver acknowledges 1 and reports one
	// SACK block per ACK, the blocks descending through n one-byte
	// segments sent in ascending order with the first one missing.
	HostileSACKDescending Hostile = "sack-descending"
	// HostileSACKHoles: n one-byte segments at relative offsets 1, 3, …,
	// 2n−1 (a one-byte hole after each), then 2n−1 ACKs of byte 1, each
	// with one one-byte SACK block, descending with a hole between: the
	// first n−1 above the highest byte sent (data the capture missed),
	// then one per segment down to offset 3. Once SACKed spans lay both
	// above and below the highest sequence sent, every window point
	// walked those below (SACK-aware bytes in flight, issue 16's kind).
	HostileSACKHoles Hostile = "sack-holes"
	// HostileSeqJumps: n one-byte segments whose sequence numbers jump by
	// ±2^31 (alternately +2^31 and −2^31+2) around the ISN.
	HostileSeqJumps Hostile = "seq-jumps"
	// HostileSYNFlood: n SYN-only connections (MSS, window scale 7) from
	// distinct client ports and addresses, none answered.
	HostileSYNFlood Hostile = "syn-flood"
)

// Hostiles lists every Hostile kind, for command-line help and tests.
var Hostiles = []Hostile{HostileDescending, HostileFillHoles, HostileRetransmitAll, HostileSACKDescending, HostileSACKHoles, HostileSeqJumps, HostileSYNFlood}

// WriteHostile streams the hostile capture kind with about n data segments
// (n connections for HostileSYNFlood) to w, packets 1 µs apart starting at
// GenStart. Frames are written whole (snaplen 128 covers the 1-byte
// payloads).
func WriteHostile(w io.Writer, kind Hostile, n int) error {
	if n < 1 {
		return fmt.Errorf("write %s capture: n = %d, want ≥ 1", kind, n)
	}
	o := GenOptions{Packets: 1, Snaplen: 128}
	g, err := newGenWriter(w, &o, 1)
	if err != nil {
		return fmt.Errorf("write %s capture: %w", kind, err)
	}
	g.left = 1 << 62 // put counts down; the generator decides the count
	now := GenStart
	tick := func() time.Time { now = now.Add(time.Microsecond); return now }
	put := func(s Segment) { g.put(s.T, &s.TCP) }
	c := NewConn(netip.MustParseAddrPort("10.0.0.1:40000"), netip.MustParseAddrPort("10.0.1.1:5001"), 1000, 5000)
	syn := SynOptions{MSS: 1460, WS: true, WScale: 7, SACKPerm: true}
	c.SynOpts(C2S, syn)
	c.SynOpts(S2C, syn)
	handshake := func() {
		for _, s := range c.Handshake(tick(), time.Microsecond) {
			put(s)
		}
		tick()
	}
	switch kind {
	case HostileDescending:
		handshake()
		for i := n; i >= 1; i-- {
			put(c.DataAt(tick(), C2S, uint32(2*i), 1))
		}
		put(c.Ack(tick(), S2C, 1, 1000))
	case HostileFillHoles:
		handshake()
		for i := 0; i < n; i++ {
			put(c.DataAt(tick(), C2S, uint32(2+2*i), 1))
		}
		for i := 0; i < n; i++ {
			put(c.DataAt(tick(), C2S, uint32(1+2*i), 1))
		}
		put(c.Ack(tick(), S2C, uint32(2*n+1), 1000))
	case HostileRetransmitAll:
		handshake()
		half := max(n/2, 1)
		for i := 0; i < half; i++ {
			put(c.DataAt(tick(), C2S, uint32(1+i), 1))
		}
		for i := 0; i < half; i++ {
			put(c.DataAt(tick(), C2S, uint32(1+i), 1))
		}
		put(c.Ack(tick(), S2C, uint32(half+1), 1000))
	case HostileSACKDescending:
		handshake()
		for i := 1; i < n; i++ {
			put(c.DataAt(tick(), C2S, uint32(1+i), 1))
		}
		for i := n - 1; i >= 1; i-- {
			a := c.Ack(tick(), S2C, 1, 1000)
			a.SACK = [][2]uint32{{c.Seq(C2S, uint32(1+i)), c.Seq(C2S, uint32(2+i))}}
			put(a)
		}
		put(c.DataAt(tick(), C2S, 1, 1))
		put(c.Ack(tick(), S2C, uint32(n+1), 1000))
	case HostileSACKHoles:
		handshake()
		for i := 0; i < n; i++ {
			put(c.DataAt(tick(), C2S, uint32(1+2*i), 1))
		}
		for i := 2*n - 1; i >= 1; i-- {
			a := c.Ack(tick(), S2C, 1, 1000)
			a.SACK = [][2]uint32{{c.Seq(C2S, uint32(1+2*i)), c.Seq(C2S, uint32(2+2*i))}}
			put(a)
		}
	case HostileSeqJumps:
		handshake()
		rel := uint32(1)
		for i := 0; i < n; i++ {
			put(c.DataAt(tick(), C2S, rel, 1))
			if i%2 == 0 {
				rel += 1 << 31
			} else {
				rel -= 1<<31 - 2
			}
		}
	case HostileSYNFlood:
		for i := 0; i < n; i++ {
			cl := netip.AddrFrom4([4]byte{10, byte(64 + i>>24&63), byte(i >> 16), byte(i >> 8)})
			t := TCP{
				Src:    netip.AddrPortFrom(cl, uint16(1024+i&0xff)),
				Dst:    netip.MustParseAddrPort("10.0.1.1:80"),
				Seq:    uint32(i) * 2654435761,
				Flags:  SYN,
				Window: 64240,
				MSS:    1460,
				WS:     true,
				WScale: 7,
			}
			g.put(tick(), &t)
		}
	default:
		return fmt.Errorf("unknown hostile capture %q", kind)
	}
	if err := g.finish(); err != nil {
		return fmt.Errorf("write %s capture: %w", kind, err)
	}
	return nil
}

// WriteBomb writes a little-endian µs pcap (Ethernet, snaplen 2^32−1) whose
// first record is a normal TCP SYN and whose second record claims, and
// really holds, recLen bytes (zeros after an Ethernet/IPv4/TCP header): a
// decompression bomb once compressed, since zeros compress about 1000:1.
// The record is streamed, never held in memory.
func WriteBomb(w io.Writer, recLen uint32) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := newEncoder(Options{Format: PcapMicro, LinkType: LinkEthernet, Snaplen: 1<<32 - 1})
	bw.Write(enc.appendFileHeader(nil))
	eth := (&Eth{}).appendHeader(nil, EtherTypeIPv4)
	s := TCP{Src: netip.MustParseAddrPort("10.0.0.1:40000"), Dst: netip.MustParseAddrPort("10.0.1.1:80"), Seq: 1, Flags: SYN, Window: 1000}
	f := s.appendIP(append([]byte(nil), eth...), false)
	bw.Write(enc.appendPacket(nil, GenStart, 0, f, len(f)))
	var hdr [16]byte
	ts := GenStart.Add(time.Millisecond)
	binary.LittleEndian.PutUint32(hdr[0:], uint32(ts.Unix()))
	binary.LittleEndian.PutUint32(hdr[4:], uint32(ts.Nanosecond()/1000))
	binary.LittleEndian.PutUint32(hdr[8:], recLen)
	binary.LittleEndian.PutUint32(hdr[12:], recLen)
	bw.Write(hdr[:])
	n := min(int(recLen), len(f))
	bw.Write(f[:n])
	zero := make([]byte, 1<<16)
	for left := int64(recLen) - int64(n); left > 0; {
		k := min(left, int64(len(zero)))
		if _, err := bw.Write(zero[:k]); err != nil {
			return fmt.Errorf("write bomb: %w", err)
		}
		left -= k
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write bomb: %w", err)
	}
	return nil
}
