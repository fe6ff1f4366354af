package sat

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// iperfCookieBytes is the size of the cookie iperf3 sends first on every
// connection (COOKIE_SIZE in iperf3).
const iperfCookieBytes = 37

// Summary holds the headline numbers of one capture taken at the TCP
// sender (the client of an upload). All times come from the capture.
type Summary struct {
	Frames int `json:"frames"` // frames read
	Conns  int `json:"conns"`  // TCP connections seen (by SYN)
	// Bulk is the connection that carried the most client→server payload,
	// as "client -> server" endpoints.
	Bulk string `json:"bulk"`
	// HandshakeRTT is SYN → SYN-ACK of the bulk connection; 0 if either is
	// missing.
	HandshakeRTT time.Duration `json:"handshake_rtt_ns"`
	// FirstHandshakeRTT is SYN → SYN-ACK of the first connection in the
	// capture (iperf3's control connection); 0 if absent.
	FirstHandshakeRTT time.Duration `json:"first_handshake_rtt_ns"`
	// ACKRTTMedian and ACKRTTP90 summarise the bulk sender's RTT samples:
	// time from sending a never-retransmitted segment to the first ACK that
	// covers it (Karn, RFC 6298 §3; delayed ACKs included). 0 without samples.
	ACKRTTMedian time.Duration `json:"ack_rtt_median_ns"`
	ACKRTTP90    time.Duration `json:"ack_rtt_p90_ns"`  // 90th percentile of the same samples
	ACKRTTCount  int           `json:"ack_rtt_samples"` // number of RTT samples
	// BulkStart is the time of the first bulk data segment (the first
	// segment after iperf3's 37-byte cookie) since the bulk SYN.
	BulkStart time.Duration `json:"bulk_start_ns"`
	// SeqProgress1s is how far, in bytes, the highest sequence number sent
	// advanced from BulkStart to BulkStart + 1 s.
	SeqProgress1s int64 `json:"seq_progress_1s_bytes"`
	// Acked1s is how many bytes past the first bulk segment's start were
	// cumulatively acknowledged by BulkStart + 1 s.
	Acked1s int64 `json:"acked_1s_bytes"`
	// PayloadBytes is the bulk connection's client→server payload, bytes,
	// retransmissions included.
	PayloadBytes int64 `json:"payload_bytes"`
	// Retransmits counts bulk data segments that did not advance the
	// highest sequence number sent.
	Retransmits int `json:"retransmits"`
}

type endpointPair struct{ src, dst netip.AddrPort }

type connState struct {
	key       endpointPair // client → server
	synAt     time.Time
	synAckAt  time.Time
	isn       uint32
	payload   int64
	firstData bool
	firstEnd  int64 // relative end of the first payload segment
	bulkAt    time.Time
	bulkSeq   int64
	highSent  int64 // relative
	highAck   int64
	sent      []sentSeg
	rtts      []time.Duration
	prog1s    int64
	acked1s   int64
	retrans   int
}

type sentSeg struct {
	start int64
	end   int64
	at    time.Time
	retx  bool
}

// rel returns n relative to the ISN, unwrapped near ref.
func rel(n, isn uint32, ref int64) int64 {
	d := int64(n - isn)
	// Choose the representative closest to ref (captures here are < 4 GiB).
	for d < ref-(1<<31) {
		d += 1 << 32
	}
	return d
}

// Summarize reads a pcap or pcapng capture (optionally .gz) taken at the
// sender of an iperf3 upload and returns its Summary.
func Summarize(path string) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	var rd io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(rd)
		if err != nil {
			return Summary{}, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		rd = bufio.NewReader(gz)
	}
	br := rd.(*bufio.Reader)
	magic, err := br.Peek(4)
	if err != nil {
		return Summary{}, fmt.Errorf("%s: %w", path, err)
	}
	var src interface {
		ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	}
	if string(magic) == "\x0a\x0d\x0d\x0a" {
		ng, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return Summary{}, fmt.Errorf("%s: %w", path, err)
		}
		src = ng
	} else {
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return Summary{}, fmt.Errorf("%s: %w", path, err)
		}
		if pr.LinkType() != layers.LinkTypeEthernet {
			return Summary{}, fmt.Errorf("%s: link type %v, want Ethernet", path, pr.LinkType())
		}
		src = pr
	}
	var (
		eth     layers.Ethernet
		ip4     layers.IPv4
		tcp     layers.TCP
		decoded []gopacket.LayerType
	)
	parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &ip4, &tcp)
	parser.IgnoreUnsupported = true
	var s Summary
	conns := map[endpointPair]*connState{}
	var order []*connState
	for {
		data, ci, err := src.ReadPacketData()
		if err == io.EOF {
			break
		}
		if err != nil {
			return s, fmt.Errorf("%s: frame %d: %w", path, s.Frames+1, err)
		}
		s.Frames++
		if parser.DecodeLayers(data, &decoded) != nil || !slices.Contains(decoded, layers.LayerTypeTCP) {
			continue
		}
		sa, _ := netip.AddrFromSlice(ip4.SrcIP.To4())
		da, _ := netip.AddrFromSlice(ip4.DstIP.To4())
		src, dst := netip.AddrPortFrom(sa, uint16(tcp.SrcPort)), netip.AddrPortFrom(da, uint16(tcp.DstPort))
		t := ci.Timestamp
		plen := int64(int(ip4.Length) - int(ip4.IHL)*4 - int(tcp.DataOffset)*4)
		if plen < 0 {
			plen = 0
		}
		if tcp.SYN && !tcp.ACK {
			k := endpointPair{src, dst}
			if c, ok := conns[k]; ok && !c.synAt.IsZero() {
				continue // SYN retransmission: keep the first
			}
			c := &connState{key: k, synAt: t, isn: tcp.Seq}
			conns[k] = c
			order = append(order, c)
			continue
		}
		if c, ok := conns[endpointPair{src, dst}]; ok { // client → server
			if plen == 0 || tcp.SYN {
				continue
			}
			start := rel(tcp.Seq, c.isn, c.highSent)
			end := start + plen
			c.payload += plen
			if !c.firstData {
				c.firstData = true
				c.firstEnd = end
				if plen != iperfCookieBytes {
					c.bulkAt, c.bulkSeq = t, start
				}
			} else if c.bulkAt.IsZero() && start >= c.firstEnd && c.firstEnd == 1+iperfCookieBytes {
				c.bulkAt, c.bulkSeq = t, start
			}
			if end <= c.highSent {
				c.retrans++
				for i := range c.sent {
					if c.sent[i].end > start && c.sent[i].start < end {
						c.sent[i].retx = true
					}
				}
			} else {
				c.sent = append(c.sent, sentSeg{start: start, end: end, at: t})
				c.highSent = end
			}
			if !c.bulkAt.IsZero() && !t.After(c.bulkAt.Add(time.Second)) {
				c.prog1s = c.highSent - c.bulkSeq
			}
			continue
		}
		if c, ok := conns[endpointPair{dst, src}]; ok { // server → client
			if tcp.SYN && tcp.ACK {
				if c.synAckAt.IsZero() {
					c.synAckAt = t
				}
				continue
			}
			if !tcp.ACK {
				continue
			}
			a := rel(tcp.Ack, c.isn, c.highAck)
			if a <= c.highAck {
				continue
			}
			c.highAck = a
			i := 0
			var last *sentSeg
			for i < len(c.sent) && c.sent[i].end <= a {
				last = &c.sent[i]
				i++
			}
			if last != nil && !last.retx && last.end == a {
				c.rtts = append(c.rtts, t.Sub(last.at))
			}
			c.sent = c.sent[i:]
			if !c.bulkAt.IsZero() && !t.After(c.bulkAt.Add(time.Second)) {
				c.acked1s = a - c.bulkSeq
			}
		}
	}
	s.Conns = len(order)
	if len(order) == 0 {
		return s, nil
	}
	if f := order[0]; !f.synAckAt.IsZero() {
		s.FirstHandshakeRTT = f.synAckAt.Sub(f.synAt)
	}
	bulk := order[0]
	for _, c := range order {
		if c.payload > bulk.payload {
			bulk = c
		}
	}
	s.Bulk = bulk.key.src.String() + " -> " + bulk.key.dst.String()
	if !bulk.synAckAt.IsZero() {
		s.HandshakeRTT = bulk.synAckAt.Sub(bulk.synAt)
	}
	if !bulk.bulkAt.IsZero() {
		s.BulkStart = bulk.bulkAt.Sub(bulk.synAt)
	}
	s.SeqProgress1s, s.Acked1s = bulk.prog1s, max(bulk.acked1s, 0)
	s.PayloadBytes, s.Retransmits = bulk.payload, bulk.retrans
	if n := len(bulk.rtts); n > 0 {
		r := slices.Clone(bulk.rtts)
		slices.Sort(r)
		s.ACKRTTMedian, s.ACKRTTP90, s.ACKRTTCount = r[n/2], r[n*9/10], n
	}
	return s, nil
}
