package pcaptest

import (
	"fmt"
	"io"
	"net/netip"
	"time"
)

// TurnoverPackets is the number of packets WriteTurnover writes per
// connection.
const TurnoverPackets = 8

// WriteTurnover writes a little-endian µs pcap (Ethernet, IPv4) of conns
// short connections, one starting every gap, each over well before the
// next starts: a handshake (MSS 1460, SACK-permitted), a 100-byte request,
// a 500-byte response, FINs both ways and the last ACK, 100 µs apart
// (TurnoverPackets packets). Client i is 10.x.y.z:1024+i%60000 with
// x.y.z = i>>16, i>>8, i (first octet 10 + i>>24), the server 10.255.0.1:80,
// so no 4-tuple repeats below 60 000 × 2^24 connections. Its memory test:
// a capture that only grows in length, never in connections open at once.
func WriteTurnover(w io.Writer, conns int, gap time.Duration) error {
	if conns < 0 || gap < TurnoverPackets*100*time.Microsecond {
		return fmt.Errorf("write turnover capture: %d connections every %v: want ≥ 0 and a gap ≥ 800µs", conns, gap)
	}
	o := GenOptions{Packets: 1}
	g, err := newGenWriter(w, &o, 1)
	if err != nil {
		return fmt.Errorf("write turnover capture: %w", err)
	}
	g.left = 1 << 62 // put counts down; conns decides the count
	server := netip.MustParseAddrPort("10.255.0.1:80")
	syn := SynOptions{MSS: 1460, SACKPerm: true}
	const step = 100 * time.Microsecond
	for i := 0; i < conns && g.err == nil; i++ {
		cl := netip.AddrFrom4([4]byte{byte(10 + i>>24), byte(i >> 16), byte(i >> 8), byte(i)})
		c := NewConn(netip.AddrPortFrom(cl, uint16(1024+i%60000)), server, uint32(i)*2654435761, uint32(i)*40503+7)
		c.SynOpts(C2S, syn)
		c.SynOpts(S2C, syn)
		t := GenStart.Add(time.Duration(i) * gap)
		next := func() time.Time { t = t.Add(step); return t }
		segs := c.Handshake(t, step)
		next()
		segs = append(segs, c.Data(next(), C2S, 100))
		c.Ack(t, S2C, 101, c.Window[S2C])
		segs = append(segs, c.Data(next(), S2C, 500))
		c.Ack(t, C2S, 501, c.Window[C2S])
		segs = append(segs, c.Fin(next(), C2S))
		c.Ack(t, S2C, 102, c.Window[S2C])
		segs = append(segs, c.Fin(next(), S2C))
		segs = append(segs, c.Ack(next(), C2S, 502, c.Window[C2S]))
		for k := range segs {
			g.put(segs[k].T, &segs[k].TCP)
		}
	}
	if err := g.finish(); err != nil {
		return fmt.Errorf("write turnover capture: %w", err)
	}
	return nil
}
