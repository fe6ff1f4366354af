package pcaptest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"time"
)

// GenOptions configures WriteBulk and WriteShort.
type GenOptions struct {
	// Packets is the number of packets to write; 0 means 1 000 000.
	// WriteBulk writes exactly Packets; WriteShort writes at most Packets and
	// fewer by less than one short connection (10 packets).
	Packets int
	// Flows is, for WriteBulk, the number of concurrent bulk flows (0 means
	// 8); for WriteShort, the number of connections open at once (0 means 64).
	Flows int
	// Seed makes the output deterministic: the same options give the same bytes.
	Seed int64
	// Snaplen is the snap length in bytes; 0 means 128, so full-size
	// segments are written with caplen < len. Payload bytes are still
	// covered by the TCP checksum.
	Snaplen int
}

// GenStart is the capture time of the first packet of WriteBulk and
// WriteShort. Treat it as a constant.
var GenStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// genMSS is the payload length in bytes of a full segment with timestamps.
const genMSS = 1448

// genWriter streams Ethernet/IPv4/TCP frames into a little-endian µs pcap
// without allocating per packet.
type genWriter struct {
	enc    encoder
	w      *bufio.Writer
	frame  []byte
	rec    []byte
	left   int // packets still to write
	ethHdr []byte
	err    error
}

func newGenWriter(w io.Writer, o *GenOptions, defFlows int) (*genWriter, error) {
	if o.Packets == 0 {
		o.Packets = 1_000_000
	}
	if o.Flows == 0 {
		o.Flows = defFlows
	}
	if o.Snaplen == 0 {
		o.Snaplen = 128
	}
	if o.Packets < 0 || o.Flows < 0 || o.Snaplen < 0 {
		return nil, errors.New("negative packets, flows or snaplen")
	}
	g := &genWriter{
		enc:    newEncoder(Options{Format: PcapMicro, LinkType: LinkEthernet, Snaplen: o.Snaplen}),
		w:      bufio.NewWriterSize(w, 1<<20),
		frame:  make([]byte, 0, 65536+256),
		rec:    make([]byte, 0, 65536+256),
		left:   o.Packets,
		ethHdr: (&Eth{}).appendHeader(nil, EtherTypeIPv4),
	}
	_, g.err = g.w.Write(g.enc.appendFileHeader(nil))
	return g, g.err
}

// put writes s at time ts; only the first snaplen bytes of payload are built.
func (g *genWriter) put(ts time.Time, s *TCP) {
	if g.err != nil {
		return
	}
	f := append(g.frame[:0], g.ethHdr...)
	f = s.appendIP(f, false)
	orig := len(f) + s.payloadLen()
	if need := min(g.enc.opts.Snaplen, orig) - len(f); need > 0 {
		f = append(f, patternTable[s.Seq&0xff:][:need]...)
	}
	g.rec = g.enc.appendPacket(g.rec[:0], ts, 0, f, orig)
	_, g.err = g.w.Write(g.rec)
	g.left--
}

func (g *genWriter) finish() error {
	if g.err == nil {
		g.err = g.w.Flush()
	}
	return g.err
}

// bulkFlow is the state of one WriteBulk transfer: the client sends, the
// server acknowledges.
type bulkFlow struct {
	c       Conn
	unacked int    // segments since the last ACK
	hole    bool   // a segment was dropped and not yet retransmitted
	holeRel uint32 // relative sequence number of the dropped segment
	dups    int    // duplicate ACKs sent for the hole
}

// WriteBulk writes a little-endian µs pcap (Ethernet) of exactly o.Packets
// packets: o.Flows interleaved IPv4 bulk transfers from 10.0.0.1:40000+i to
// 10.0.1.1:5001, each with a handshake (MSS 1460, WS 7, SACK-permitted,
// timestamps), 1448-byte segments ~12 µs apart, an ACK every 2 segments
// and a FIN teardown at the end. About one segment in 2000 is missing from
// the capture; the receiver then sends 3 duplicate ACKs with a SACK block
// and the sender retransmits. About one timestamp in 20000 is 30 µs before
// its predecessor, as real captures have.
func WriteBulk(w io.Writer, o GenOptions) error {
	g, err := newGenWriter(w, &o, 8)
	if err != nil {
		return fmt.Errorf("write bulk capture: %w", err)
	}
	if o.Packets < 7*o.Flows {
		return fmt.Errorf("write bulk capture: %d packets cannot hold %d flows (7 each)", o.Packets, o.Flows)
	}
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x6275_6c6b))
	now := GenStart
	step := func() { now = now.Add(11*time.Microsecond + time.Duration(rng.IntN(2000))*time.Nanosecond) }
	put := func(s *Segment) {
		ts := s.T
		if rng.IntN(20000) == 0 {
			ts = ts.Add(-30 * time.Microsecond)
		}
		g.put(ts, &s.TCP)
	}
	sack := make([][2]uint32, 1)

	flows := make([]bulkFlow, o.Flows)
	server := netip.MustParseAddr("10.0.1.1")
	client := netip.MustParseAddr("10.0.0.1")
	syn := SynOptions{MSS: 1460, WS: true, WScale: 7, SACKPerm: true, TS: true}
	for i := range flows {
		f := &flows[i]
		f.c = *NewConn(netip.AddrPortFrom(client, uint16(40000+i)), netip.AddrPortFrom(server, 5001), rng.Uint32(), rng.Uint32())
		f.c.Window = [2]uint16{64240, 65160}
		f.c.SynOpts(C2S, syn)
		f.c.SynOpts(S2C, syn)
		for _, s := range []Segment{f.c.Syn(now, C2S), f.c.Syn(now.Add(50*time.Microsecond), S2C)} {
			put(&s)
		}
		now = now.Add(50 * time.Microsecond)
		s := f.c.Ack(now, C2S, 1, 502)
		put(&s)
		step()
	}
	// After the handshakes the server advertises 2048<<7 bytes.
	for i := range flows {
		flows[i].c.Window[S2C] = 2048
	}

	ackAll := func(f *bulkFlow) {
		s := f.c.Ack(now, S2C, f.c.Next(C2S), 2048)
		put(&s)
		f.unacked = 0
	}
	// Main phase: each step writes at most 3 packets; keep 6 per flow for
	// closing holes and the teardown.
	for g.left > 6*o.Flows+3 && g.err == nil {
		f := &flows[rng.IntN(len(flows))]
		s := f.c.Data(now, C2S, genMSS)
		if !f.hole && rng.IntN(2000) == 0 {
			f.hole, f.holeRel, f.dups = true, f.c.Next(C2S)-genMSS, 0
			step()
			continue // lost before the capture point
		}
		put(&s)
		step()
		if !f.hole {
			if f.unacked++; f.unacked == 2 {
				ackAll(f)
			}
			continue
		}
		// Duplicate ACK for the hole, SACKing what arrived after it (RFC 2018).
		sack[0] = [2]uint32{f.c.Seq(C2S, f.holeRel+genMSS), f.c.Seq(C2S, f.c.Next(C2S))}
		d := f.c.Ack(now, S2C, f.holeRel, 2048)
		d.SACK = sack
		put(&d)
		if f.dups++; f.dups == 3 {
			r := f.c.DataAt(now, C2S, f.holeRel, genMSS)
			put(&r)
			ackAll(f)
			f.hole = false
		}
		step()
	}
	// Close open holes, pad with data to leave exactly 4 packets per flow.
	for i := range flows {
		if f := &flows[i]; f.hole {
			r := f.c.DataAt(now, C2S, f.holeRel, genMSS)
			put(&r)
			ackAll(f)
			f.hole = false
			step()
		}
	}
	for i := 0; g.left > 4*o.Flows; i++ {
		s := flows[i%len(flows)].c.Data(now, C2S, genMSS)
		put(&s)
		step()
	}
	for i := range flows {
		c := &flows[i].c
		for _, s := range [...]Segment{
			c.Fin(now, C2S),
			c.Ack(now.Add(20*time.Microsecond), S2C, c.Next(C2S), 2048),
			c.Fin(now.Add(30*time.Microsecond), S2C),
			c.Ack(now.Add(60*time.Microsecond), C2S, c.Next(S2C), 502),
		} {
			put(&s)
		}
		step()
	}
	if err := g.finish(); err != nil {
		return fmt.Errorf("write bulk capture: %w", err)
	}
	return nil
}

// shortConn is one WriteShort connection in progress.
type shortConn struct {
	c     Conn
	data  int // server data segments in total
	sent  int // server data segments sent
	step  int // next step of the script
	total int // packets this connection writes
	last  int // bytes in the last data segment
}

// shortPackets is the packet count of a short connection with d server
// data segments: handshake 3, request 1, data d, ACKs ceil(d/2), teardown 4.
func shortPackets(d int) int { return 8 + d + (d+1)/2 }

// WriteShort writes a little-endian µs pcap (Ethernet) of many short IPv4
// connections, o.Flows of them open at once, interleaved at random: a
// handshake (MSS 1460, SACK-permitted, no timestamps), a request of
// 100..599 bytes, 4..36 response segments (1460 bytes, the last shorter)
// with an ACK every 2, then the server's FIN, the client's ACK and FIN,
// and the server's ACK (about 40 packets, 2..20 µs apart). Client i is
// 10.1.x.y:32768+(i>>16) with x.y = i&0xffff, servers are 10.2.0.1..4:80.
func WriteShort(w io.Writer, o GenOptions) error {
	g, err := newGenWriter(w, &o, 64)
	if err != nil {
		return fmt.Errorf("write short capture: %w", err)
	}
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x7368_6f72))
	now := GenStart
	budget := o.Packets // packets not yet promised to a connection
	next := 0           // index of the next connection
	syn := SynOptions{MSS: 1460, SACKPerm: true}

	start := func(sc *shortConn) bool {
		if budget < shortPackets(1) {
			return false
		}
		d := 4 + rng.IntN(33)
		for shortPackets(d) > budget {
			d--
		}
		i := next
		next++
		cl := netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)})
		sv := netip.AddrFrom4([4]byte{10, 2, 0, byte(1 + i%4)})
		*sc = shortConn{data: d, total: shortPackets(d), last: 1 + rng.IntN(1460)}
		sc.c = Conn{
			Client: netip.AddrPortFrom(cl, uint16(32768+(i>>16)%28000)),
			Server: netip.AddrPortFrom(sv, 80),
			ISN:    [2]uint32{rng.Uint32(), rng.Uint32()},
			Window: [2]uint16{64240, 65160},
			Opts:   [2]SynOptions{syn, syn},
		}
		budget -= sc.total
		return true
	}
	active := make([]shortConn, o.Flows)
	n := 0
	for n < len(active) && start(&active[n]) {
		n++
	}
	active = active[:n]
	for len(active) > 0 && g.err == nil {
		k := rng.IntN(len(active))
		sc := &active[k]
		s := sc.next(now, rng)
		g.put(s.T, &s.TCP)
		now = now.Add(2*time.Microsecond + time.Duration(rng.IntN(18000))*time.Nanosecond)
		if sc.step == sc.total && !start(sc) {
			active[k] = active[len(active)-1]
			active = active[:len(active)-1]
		}
	}
	if err := g.finish(); err != nil {
		return fmt.Errorf("write short capture: %w", err)
	}
	return nil
}

// next returns the connection's next segment at time t and advances it.
func (sc *shortConn) next(t time.Time, rng *rand.Rand) Segment {
	c := &sc.c
	i := sc.step
	sc.step++
	teardown := sc.total - 4
	switch {
	case i == 0:
		return c.Syn(t, C2S)
	case i == 1:
		return c.Syn(t, S2C)
	case i == 2:
		return c.Ack(t, C2S, 1, 64240)
	case i == 3:
		c.ack[S2C] = 1 + uint32(100+rng.IntN(500)) // the server's data acks the request
		return c.Data(t, C2S, int(c.ack[S2C]-1))
	case i < teardown:
		// Data, data, ACK, ...; an odd last segment gets its own ACK.
		if sc.sent > 0 && (sc.sent%2 == 0 || sc.sent == sc.data) && c.ack[C2S] != c.Next(S2C) {
			return c.Ack(t, C2S, c.Next(S2C), 64240)
		}
		sc.sent++
		n := 1460
		if sc.sent == sc.data {
			n = sc.last
		}
		return c.Data(t, S2C, n)
	case i == teardown:
		return c.Fin(t, S2C)
	case i == teardown+1:
		return c.Ack(t, C2S, c.Next(S2C), 64240)
	case i == teardown+2:
		return c.Fin(t, C2S)
	default:
		return c.Ack(t, S2C, c.Next(C2S), c.Window[S2C])
	}
}
