package sat

import (
	"fmt"
	"slices"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Summary holds the headline numbers of one capture taken at the TCP
// sender (the client of an upload). All times come from the capture; every
// number is read from package tcpanalysis (docs/metrics.md), so the
// testbed and 'tcpviz tput'/'compare' agree.
type Summary struct {
	Frames int `json:"frames"` // frames read
	Conns  int `json:"conns"`  // TCP connections seen
	// Bulk is the connection that carried the most payload (query.Pick),
	// as "client -> server" endpoints, the client being the SYN sender.
	Bulk string `json:"bulk"`
	// HandshakeRTT is SYN → SYN-ACK of the bulk connection; 0 if either is
	// missing.
	HandshakeRTT time.Duration `json:"handshake_rtt_ns"`
	// FirstHandshakeRTT is SYN → SYN-ACK of the first connection in the
	// capture (iperf3's control connection); 0 if absent.
	FirstHandshakeRTT time.Duration `json:"first_handshake_rtt_ns"`
	// ACKRTTMedian and ACKRTTP90 summarise the bulk sender's ACK-method
	// RTT samples (docs/metrics.md#rtt: a segment to the ACK that first
	// covers exactly its end, Karn's rule; delayed ACKs included), nearest
	// rank. 0 without samples.
	ACKRTTMedian time.Duration `json:"ack_rtt_median_ns"`
	ACKRTTP90    time.Duration `json:"ack_rtt_p90_ns"`  // 90th percentile of the same samples
	ACKRTTCount  int           `json:"ack_rtt_samples"` // number of RTT samples
	// BulkStart is the time of the first bulk data segment (the first with
	// at least 512 payload bytes, after iperf3's 37-byte cookie;
	// tcpanalysis.BulkStart) since the bulk connection's first packet.
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
	// Retransmits counts bulk data segments with at least one byte sent
	// before (DirStats.RetxSegs).
	Retransmits int `json:"retransmits"`
}

// Summarize reads a capture taken at the sender and returns its Summary.
// Errors are those of tcpanalysis.AnalyzeFile, or a capture without TCP.
func Summarize(path string) (Summary, error) {
	v, err := query.Analyze(path, query.Selection{Conn: -1, Dir: query.AB, Ref: query.RefBulk}, query.Options{})
	if err != nil {
		return Summary{}, fmt.Errorf("summarize %s: %w", path, err)
	}
	rep, r, d := v.Report, v.Conn, flows.AtoB
	s := Summary{
		Frames: int(rep.Stats.Frames), Conns: len(rep.Conns),
		Bulk:         fmt.Sprintf("%s -> %s", r.Conn.Half[flows.AtoB].Addr, r.Conn.Half[flows.BtoA].Addr),
		PayloadBytes: r.Dir[d].Bytes,
		Retransmits:  int(r.Dir[d].RetxSegs),
	}
	if r.Handshake.SynToSynAckOk {
		s.HandshakeRTT = r.Handshake.SynToSynAck
	}
	if h := rep.Conns[0].Handshake; h.SynToSynAckOk {
		s.FirstHandshakeRTT = h.SynToSynAck
	}
	var rtts []time.Duration
	for _, x := range r.RTT {
		if x.Method == tcpanalysis.MethodACK && x.Dir == d {
			rtts = append(rtts, x.RTT)
		}
	}
	slices.Sort(rtts)
	s.ACKRTTCount = len(rtts)
	s.ACKRTTMedian, s.ACKRTTP90 = rank(rtts, 0.5), rank(rtts, 0.9)
	if r.Dir[d].FirstData == 0 {
		return s, nil
	}
	bulk := v.Ref
	s.BulkStart = bulk.Sub(r.Conn.First)
	var start int64 // relative sequence offset of the bulk segment
	for _, p := range r.Series.Segs[d] {
		if p.Time == bulk && p.Payload > 0 {
			start = p.Start
			break
		}
	}
	// SentAt and AckedAt count from the first data byte (offset 1); the
	// Summary counts from the bulk segment's first byte.
	s.SeqProgress1s = max(tcpanalysis.SentAt(r, d, bulk, time.Second)+1-start, 0)
	s.Acked1s = max(tcpanalysis.AckedAt(r, d, bulk, time.Second)+1-start, 0)
	return s, nil
}

// rank is the nearest-rank p-quantile of sorted samples, 0 when empty.
func rank(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
