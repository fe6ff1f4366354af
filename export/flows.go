// Package export holds tcpviz's output schemas (docs/schema.md): one typed
// row per record, with its CSV header and writers, and the aligned text
// tables the commands print. It reads no captures and knows no flags:
// cmd/tcpviz, the report and any program writing tcpviz files share it.
package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/textcol"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// FlowsSchema names the version of the flows CSV/JSON schema
// (docs/schema.md#flows). Bump it when a column changes meaning or goes away.
const FlowsSchema = "tcpviz.flows/4"

// FlowColumns is the flows CSV header, in order (docs/schema.md#flows).
var FlowColumns = []string{
	"file", "conn", "a_addr", "a_port", "b_addr", "b_port", "start_s", "duration_s",
	"pkts_ab", "pkts_ba", "wire_bytes_ab", "wire_bytes_ba", "bytes_ab", "bytes_ba", "unique_ab", "unique_ba",
	"retx_bytes_ab", "retx_bytes_ba", "acked_ab", "acked_ba", "goodput_bytes_ab", "goodput_bytes_ba",
	"throughput_ab_kbps", "throughput_ba_kbps", "goodput_ab_kbps", "goodput_ba_kbps",
	"handshake", "wscale_a", "wscale_b", "wscale_source", "retx_segs_ab", "retx_segs_ba",
	"ooo_segs_ab", "ooo_segs_ba", "folded_dups", "reused_ports",
	"hs_syn_synack_ms", "hs_synack_ack_ms",
	"rtt_ack_n_ab", "rtt_ack_min_ab_ms", "rtt_ack_mean_ab_ms", "rtt_ack_max_ab_ms",
	"rtt_ack_n_ba", "rtt_ack_min_ba_ms", "rtt_ack_mean_ba_ms", "rtt_ack_max_ba_ms",
	"rtt_ts_n_ab", "rtt_ts_min_ab_ms", "rtt_ts_mean_ab_ms", "rtt_ts_max_ab_ms",
	"rtt_ts_n_ba", "rtt_ts_min_ba_ms", "rtt_ts_mean_ba_ms", "rtt_ts_max_ba_ms",
	"rto_ab", "rto_ba", "fast_ab", "fast_ba", "spurious_ab", "spurious_ba", "dup_ack_ab", "dup_ack_ba",
	"zero_window_ab", "zero_window_ba", "zw_probe_ab", "zw_probe_ba", "keepalive_ab", "keepalive_ba",
	"dsack_ab", "dsack_ba", "syn_retx", "synack_retx", "fin_retx_ab", "fin_retx_ba",
	"hs_syn_evidence", "hs_synack_evidence", "rtt_dropped_negative",
	"icmp_frag_needed_ab", "icmp_frag_needed_ba", "icmp_unreachable_ab", "icmp_unreachable_ba",
	"icmp_time_exceeded_ab", "icmp_time_exceeded_ba",
	"acks_from_pep_ab", "acks_from_pep_ba",
	"pmtu_ab", "pmtu_ba",
	"syn_fin_retx_ab", "syn_fin_retx_ba",
	"overheard",
	"unknown_ab", "unknown_ba",
	"pep_possible_ab", "pep_possible_ba",
}

// FlowRow is one connection in the flows schema (docs/schema.md#flows).
type FlowRow struct {
	File         string  `json:"file"`
	Conn         int     `json:"conn"`
	AAddr        string  `json:"a_addr"`
	APort        uint16  `json:"a_port"`
	BAddr        string  `json:"b_addr"`
	BPort        uint16  `json:"b_port"`
	StartS       float64 `json:"start_s"`
	DurationS    float64 `json:"duration_s"`
	PktsAB       int64   `json:"pkts_ab"`
	PktsBA       int64   `json:"pkts_ba"`
	WireAB       int64   `json:"wire_bytes_ab"`
	WireBA       int64   `json:"wire_bytes_ba"`
	BytesAB      int64   `json:"bytes_ab"`
	BytesBA      int64   `json:"bytes_ba"`
	UniqueAB     int64   `json:"unique_ab"`
	UniqueBA     int64   `json:"unique_ba"`
	RetxBytesAB  int64   `json:"retx_bytes_ab"`
	RetxBytesBA  int64   `json:"retx_bytes_ba"`
	AckedAB      int64   `json:"acked_ab"`
	AckedBA      int64   `json:"acked_ba"`
	GoodBytesAB  int64   `json:"goodput_bytes_ab"`
	GoodBytesBA  int64   `json:"goodput_bytes_ba"`
	TputABKbps   float64 `json:"throughput_ab_kbps"`
	TputBAKbps   float64 `json:"throughput_ba_kbps"`
	GoodputAB    float64 `json:"goodput_ab_kbps"`
	GoodputBA    float64 `json:"goodput_ba_kbps"`
	Handshake    bool    `json:"handshake"`
	WScaleA      *int    `json:"wscale_a"` // null when unknown
	WScaleB      *int    `json:"wscale_b"`
	WScaleSource string  `json:"wscale_source"`
	RetxSegsAB   int64   `json:"retx_segs_ab"`
	RetxSegsBA   int64   `json:"retx_segs_ba"`
	OOOSegsAB    int64   `json:"ooo_segs_ab"`
	OOOSegsBA    int64   `json:"ooo_segs_ba"`
	FoldedDups   int64   `json:"folded_dups"`
	ReusedPorts  bool    `json:"reused_ports"`
	// RTT and event columns (docs/metrics.md#rtt, #events); RTT values in
	// ms, null when there is no sample.
	HSSynSynAck *float64         `json:"hs_syn_synack_ms"`
	HSSynAckAck *float64         `json:"hs_synack_ack_ms"`
	RTT         map[string]any   `json:"rtt"`
	Events      map[string]int64 `json:"events"`
	// HSEvidence says how each handshake split was paired: "single",
	// "tsecr" or "ambiguous" (no sample); "" when not seen.
	HSEvidence [2]string `json:"hs_evidence"`
	// FoldedBy splits folded_dups by the evidence that decided.
	FoldedBy map[string]int64 `json:"folded_by"`
	// Overheard counts the connection's 802.11 frames that the capturing
	// node only overheard (addressed to another node's MAC), left out of
	// every other column but the ACK numbers (docs/metrics.md#own-frames).
	// JSON only.
	Overheard int64 `json:"overheard"`
	// PEPAB and PEPBA report that a split-TCP PEP sent the ACKs of a>b
	// (b>a) data (pep_note.go): acked and goodput columns of that
	// direction are bytes the PEP accepted, not delivered.
	PEPAB bool `json:"acks_from_pep_ab"`
	PEPBA bool `json:"acks_from_pep_ba"`
	// PEPPossibleAB and PEPPossibleBA report that a split-TCP PEP may
	// have sent the ACKs of a>b (b>a) data: one capture cannot tell
	// (package pep, Verdict.Possible: the acknowledger is on the sender's
	// link). Those acked and goodput columns are end-to-end only if the
	// acknowledger is the receiver; the note under the table says how to
	// decide. Appended in /3, after overheard.
	PEPPossibleAB bool `json:"pep_possible_ab"`
	PEPPossibleBA bool `json:"pep_possible_ba"`
	// PMTUAB and PMTUBA count retransmissions after an ICMP
	// fragmentation-needed (class pmtu, docs/metrics.md#events).
	PMTUAB int64 `json:"-"`
	PMTUBA int64 `json:"-"`
	// CtlRetxAB and CtlRetxBA count the SYNs, SYN-ACKs and FINs sent again
	// without payload (tcpanalysis.DirStats.CtlRetx): retransmission events
	// in no retx_segs; the columns syn_fin_retx_ab/ba (new in /3) and the
	// table's "syn/fin retx".
	CtlRetxAB int64 `json:"-"`
	CtlRetxBA int64 `json:"-"`
	// UnknownAB and UnknownBA count the retransmissions of class unknown:
	// no duplicate ACK or SACK preceded them in a capture that cannot
	// show none came (docs/metrics.md#events); in rto_* before /4. The
	// columns unknown_ab/ba (new in /4) and the JSON events'.
	UnknownAB int64 `json:"-"`
	UnknownBA int64 `json:"-"`
	// nums are the CSV columns from hs_syn_synack_ms on that have no
	// exported field (they are in RTT and Events for JSON), as numbers:
	// formatted only when the row is written.
	nums flowNums
}

// flowNums are the RTT, event and handshake-evidence columns of a flows
// row, in FlowColumns order (rtt_ack_n_ab … icmp_time_exceeded_ba).
type flowNums struct {
	rtt     [2][2]rttCols           // [method: ACK, TS][direction]
	events  [7][2]int64             // flowEventClasses × direction
	dsack   [2]int64                // by direction
	synRetx [2]int64                // syn_retx (a>b), synack_retx (b>a)
	finRetx [2]int64                // by direction
	hsEv    [2]tcpanalysis.Evidence // SYN, SYN-ACK
	negRTT  int64
	icmp    [3][2]int64 // flowICMPClasses × direction
}

// rttCols are one direction's and method's RTT summary columns: n, and
// min, mean and max in ms (empty cells when n is 0).
type rttCols struct {
	n              int64
	min, mean, max time.Duration
}

// flowEventClasses and flowICMPClasses are the event columns of the flows
// schema, in order (each with _ab and _ba).
var (
	flowEventClasses = [7]tcpanalysis.Class{tcpanalysis.RTO, tcpanalysis.Fast, tcpanalysis.Spurious, tcpanalysis.DupAck, tcpanalysis.ZeroWindow, tcpanalysis.ZWProbe, tcpanalysis.KeepAlive}
	flowICMPClasses  = [3]tcpanalysis.Class{tcpanalysis.ICMPFragNeeded, tcpanalysis.ICMPUnreachable, tcpanalysis.ICMPTimeExceeded}
	flowRTTMethods   = [2]tcpanalysis.Method{tcpanalysis.MethodACK, tcpanalysis.MethodTS}
)

// NewFlowRow builds the row of connection r of capture file (rep); with
// withJSON it also fills the nested RTT and Events maps of the JSON output.
func NewFlowRow(file string, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, withJSON bool) (row FlowRow) {
	c := r.Conn
	a, b := &c.Half[flows.AtoB], &c.Half[flows.BtoA]
	// The optional numbers pointed to (window scales, handshake RTTs),
	// in one allocation.
	var opt *flowOpts
	if a.WScale >= 0 || b.WScale >= 0 || r.Handshake.SynToSynAckOk || r.Handshake.SynAckToAckOk {
		opt = new(flowOpts)
	}
	ws := func(h *flows.Half, v *int) *int {
		if h.WScale < 0 {
			return nil
		}
		*v = h.WScale
		return v
	}
	// Both addresses' texts, and the window scales' sources when they
	// differ, in one string.
	var buf [96]byte
	t := appendAddr(buf[:0], a.Addr.Addr())
	na := len(t)
	t = appendAddr(t, b.Addr.Addr())
	nb := len(t)
	if b.WScaleFrom != a.WScaleFrom {
		t = append(append(append(t, a.WScaleFrom.String()...), '/'), b.WScaleFrom.String()...)
	}
	text := string(t)
	src := text[nb:]
	if b.WScaleFrom == a.WScaleFrom {
		src = a.WScaleFrom.String()
	}
	ab, ba := &r.Dir[flows.AtoB], &r.Dir[flows.BtoA]
	row = FlowRow{
		File: file, Conn: c.Index,
		AAddr: text[:na], APort: a.Addr.Port(),
		BAddr: text[na:nb], BPort: b.Addr.Port(),
		StartS:    c.First.Sub(rep.Start).Seconds(),
		DurationS: c.Duration().Seconds(),
		PktsAB:    ab.Pkts, PktsBA: ba.Pkts,
		WireAB: ab.WireBytes, WireBA: ba.WireBytes,
		BytesAB: ab.Bytes, BytesBA: ba.Bytes,
		UniqueAB: ab.Unique, UniqueBA: ba.Unique,
		RetxBytesAB: ab.RetxBytes, RetxBytesBA: ba.RetxBytes,
		AckedAB: ab.AckedBytes, AckedBA: ba.AckedBytes,
		GoodBytesAB: ab.DeliveredBytes, GoodBytesBA: ba.DeliveredBytes,
		TputABKbps: r.ThroughputKbps(flows.AtoB), TputBAKbps: r.ThroughputKbps(flows.BtoA),
		GoodputAB: r.GoodputKbps(flows.AtoB), GoodputBA: r.GoodputKbps(flows.BtoA),
		Handshake:    c.HandshakeSeen,
		WScaleSource: src,
		RetxSegsAB:   ab.RetxSegs, RetxSegsBA: ba.RetxSegs,
		OOOSegsAB: ab.OOOSegs, OOOSegsBA: ba.OOOSegs,
		CtlRetxAB: ab.CtlRetx, CtlRetxBA: ba.CtlRetx,
		FoldedDups:  c.Folded,
		ReusedPorts: c.Reused,
		Overheard:   c.Overheard,
	}
	msp := func(d time.Duration, ok bool) *float64 {
		if !ok {
			return nil
		}
		v := ms(d)
		return &v
	}
	if opt != nil {
		row.WScaleA, row.WScaleB = ws(a, &opt.ws[0]), ws(b, &opt.ws[1])
		hs := func(d time.Duration, ok bool, v *float64) *float64 {
			if !ok {
				return nil
			}
			*v = ms(d)
			return v
		}
		row.HSSynSynAck = hs(r.Handshake.SynToSynAck, r.Handshake.SynToSynAckOk, &opt.hs[0])
		row.HSSynAckAck = hs(r.Handshake.SynAckToAck, r.Handshake.SynAckToAckOk, &opt.hs[1])
	}
	if withJSON {
		row.RTT = map[string]any{}
		row.Events = map[string]int64{}
	}
	nm := &row.nums
	for mi, m := range flowRTTMethods {
		for _, d := range []flows.Direction{flows.AtoB, flows.BtoA} {
			a := &r.RTTAgg[d][m]
			nm.rtt[mi][d] = rttCols{n: a.N, min: a.Min, mean: a.Mean(), max: a.Max}
			if withJSON {
				ok := a.N > 0
				row.RTT[m.String()+"_"+d.String()] = map[string]any{"n": a.N, "min_ms": msp(a.Min, ok), "mean_ms": msp(a.Mean(), ok), "max_ms": msp(a.Max, ok)}
			}
		}
	}
	cn := &r.Counts
	for ci, cl := range flowEventClasses {
		nm.events[ci] = [2]int64{cn[flows.AtoB][cl], cn[flows.BtoA][cl]}
	}
	nm.dsack = [2]int64{ab.DSACKs, ba.DSACKs}
	nm.synRetx = [2]int64{ab.SynRetx, ba.SynRetx}
	nm.finRetx = [2]int64{ab.FinRetx, ba.FinRetx}
	nm.hsEv = [2]tcpanalysis.Evidence{r.Handshake.SynEvidence, r.Handshake.SynAckEvidence}
	nm.negRTT = r.NegativeRTT
	for ci, cl := range flowICMPClasses {
		nm.icmp[ci] = [2]int64{cn[flows.AtoB][cl], cn[flows.BtoA][cl]}
	}
	row.PMTUAB, row.PMTUBA = r.Counts[flows.AtoB][tcpanalysis.PMTU], r.Counts[flows.BtoA][tcpanalysis.PMTU]
	row.UnknownAB, row.UnknownBA = r.Counts[flows.AtoB][tcpanalysis.RetxUnknown], r.Counts[flows.BtoA][tcpanalysis.RetxUnknown]
	if withJSON {
		for _, cl := range flowEventClasses {
			for _, d := range []flows.Direction{flows.AtoB, flows.BtoA} {
				row.Events[cl.String()+"_"+d.String()] = cn[d][cl]
			}
		}
		for _, cl := range flowICMPClasses {
			for _, d := range []flows.Direction{flows.AtoB, flows.BtoA} {
				row.Events[cl.String()+"_"+d.String()] = cn[d][cl]
			}
		}
		row.Events["pmtu_ab"], row.Events["pmtu_ba"] = row.PMTUAB, row.PMTUBA
		row.Events["unknown_ab"], row.Events["unknown_ba"] = row.UnknownAB, row.UnknownBA
		row.Events["syn_fin_retx_ab"], row.Events["syn_fin_retx_ba"] = row.CtlRetxAB, row.CtlRetxBA
		row.Events["dsack_ab"], row.Events["dsack_ba"] = ab.DSACKs, ba.DSACKs
		row.Events["syn_retx"], row.Events["synack_retx"] = ab.SynRetx, ba.SynRetx
		row.Events["fin_retx_ab"], row.Events["fin_retx_ba"] = ab.FinRetx, ba.FinRetx
		row.Events["rtt_dropped_negative"] = r.NegativeRTT
		row.HSEvidence = [2]string{r.Handshake.SynEvidence.String(), r.Handshake.SynAckEvidence.String()}
		row.FoldedBy = map[string]int64{}
		for k, v := range c.FoldedBy {
			if v > 0 {
				row.FoldedBy[flows.FoldReason(k).String()] = v
			}
		}
	}
	return row
}

// flowOpts hold the numbers a flows row's optional fields point to:
// WScaleA and WScaleB, HSSynSynAck and HSSynAckAck.
type flowOpts struct {
	ws [2]int
	hs [2]float64
}

// appendAddr appends ip's text, as ip.String() gives it.
func appendAddr(b []byte, ip netip.Addr) []byte {
	if !ip.IsValid() {
		return append(b, ip.String()...) // "invalid IP", where AppendTo appends nothing
	}
	return ip.AppendTo(b)
}

// ms converts a duration to milliseconds, as every RTT column gives it.
func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

// CSV is the row's record, in FlowColumns order (fields). AppendCSV
// writes the same record without building it.
func (r *FlowRow) CSV() []string {
	c := cells{rec: make([]string, 0, len(FlowColumns))}
	r.fields(&c)
	return c.rec
}

// AppendCSV appends the row's CSV line, as encoding/csv writes CSV()
// (fields quoted where it would quote them, ended by \n), to dst. It lists
// the columns as fields does, written straight out: streamed flows formats
// every connection's row with it (TestAppendCSVAsEncodingCSV holds the
// two to one order).
func (r *FlowRow) AppendCSV(b []byte) []byte {
	return r.appendCSVAfterFile(appendCSVString(b, r.File))
}

// appendCSVAfterFile is AppendCSV after the file's cell, which b ends
// with: a stream writes that cell, the same in every row of a file, from
// a copy (FlowsStream.Put).
func (r *FlowRow) appendCSVAfterFile(b []byte) []byte {
	b = appendCell(b, int64(r.Conn))
	b = appendCSVString(append(b, ','), r.AAddr)
	b = appendCell(b, int64(r.APort))
	b = appendCSVString(append(b, ','), r.BAddr)
	b = appendCell(b, int64(r.BPort))
	b = appendFixed(append(b, ','), r.StartS, 6)
	b = appendFixed(append(b, ','), r.DurationS, 6)
	// A number equal to one written before it is copied from there, not
	// formatted again: without retransmissions a direction's bytes,
	// unique, acked and goodput bytes are one number, its goodput is its
	// throughput, and one RTT sample is its min, mean and max.
	var last [2]struct { // by direction: the last count of 10 or more
		v  int64
		at cellText
	}
	for k, v := range [...]int64{r.PktsAB, r.PktsBA, r.WireAB, r.WireBA, r.BytesAB, r.BytesBA, r.UniqueAB, r.UniqueBA,
		r.RetxBytesAB, r.RetxBytesBA, r.AckedAB, r.AckedBA, r.GoodBytesAB, r.GoodBytesBA} {
		l := &last[k&1]
		if v >= 10 && v == l.v {
			b = l.at.appendAgain(append(b, ','))
			continue
		}
		start := len(b) + 1
		b = appendCell(b, v)
		if v >= 10 {
			l.v, l.at = v, cellText{start, len(b)}
		}
	}
	tputs := [...]float64{r.TputABKbps, r.TputBAKbps}
	var tput [2]cellText
	for d, v := range tputs {
		b = append(b, ',')
		start := len(b)
		b = appendFixed(b, v, 3)
		tput[d] = cellText{start, len(b)}
	}
	for d, v := range [...]float64{r.GoodputAB, r.GoodputBA} {
		if math.Float64bits(v) == math.Float64bits(tputs[d]) { // the same bits: the same text, -0 and NaN included
			b = tput[d].appendAgain(append(b, ','))
			continue
		}
		b = appendFixed(append(b, ','), v, 3)
	}
	b = appendBoolCell(b, r.Handshake)
	for _, p := range [...]*int{r.WScaleA, r.WScaleB} {
		b = append(b, ',')
		if p != nil {
			b = strconv.AppendInt(b, int64(*p), 10)
		}
	}
	b = appendCSVString(append(b, ','), r.WScaleSource)
	for _, v := range [...]int64{r.RetxSegsAB, r.RetxSegsBA, r.OOOSegsAB, r.OOOSegsBA, r.FoldedDups} {
		b = appendCell(b, v)
	}
	b = appendBoolCell(b, r.ReusedPorts)
	for _, p := range [...]*float64{r.HSSynSynAck, r.HSSynAckAck} {
		b = append(b, ',')
		if p != nil {
			b = appendFixed(b, *p, 3)
		}
	}
	nm := &r.nums
	for mi := range nm.rtt {
		for d := range nm.rtt[mi] {
			rc := &nm.rtt[mi][d]
			b = appendCell(b, rc.n)
			if rc.n == 0 {
				b = append(b, ",,,"...)
				continue
			}
			var at cellText
			vals := [3]time.Duration{rc.min, rc.mean, rc.max}
			for j, v := range vals {
				b = append(b, ',')
				if j > 0 && v == vals[j-1] {
					b = at.appendAgain(b)
					continue
				}
				start := len(b)
				b = appendFixed(b, ms(v), 3)
				at = cellText{start, len(b)}
			}
		}
	}
	for ci := range nm.events {
		b = appendCell(appendCell(b, nm.events[ci][0]), nm.events[ci][1])
	}
	for _, v := range [...]int64{nm.dsack[0], nm.dsack[1], nm.synRetx[0], nm.synRetx[1], nm.finRetx[0], nm.finRetx[1]} {
		b = appendCell(b, v)
	}
	// Evidence names are words csv never quotes (TestEvidenceNamesPlain).
	b = append(append(b, ','), nm.hsEv[0].String()...)
	b = append(append(b, ','), nm.hsEv[1].String()...)
	b = appendCell(b, nm.negRTT)
	for ci := range nm.icmp {
		b = appendCell(appendCell(b, nm.icmp[ci][0]), nm.icmp[ci][1])
	}
	b = appendBoolCell(b, r.PEPAB)
	b = appendBoolCell(b, r.PEPBA)
	b = appendCell(b, r.PMTUAB)
	b = appendCell(b, r.PMTUBA)
	b = appendCell(b, r.CtlRetxAB)
	b = appendCell(b, r.CtlRetxBA)
	b = appendCell(b, r.Overheard)
	b = appendCell(b, r.UnknownAB)
	b = appendCell(b, r.UnknownBA)
	b = appendBoolCell(b, r.PEPPossibleAB)
	b = appendBoolCell(b, r.PEPPossibleBA)
	return append(b, '\n')
}

// cellText is where a cell's text is in the row being written:
// b[start:end].
type cellText struct{ start, end int }

// appendAgain appends the text of the cell at c in b (b's own bytes) to b.
func (c cellText) appendAgain(b []byte) []byte { return append(b, b[c.start:c.end]...) }

// appendCell appends a comma and v.
func appendCell(b []byte, v int64) []byte {
	if uint64(v) < 10 { // most counts of a short connection
		return append(b, ',', byte('0'+v))
	}
	return appendCellLong(b, v)
}

// appendBoolCell appends a comma and v, as strconv.FormatBool writes it.
func appendBoolCell(b []byte, v bool) []byte {
	if v {
		return append(b, ',', 't', 'r', 'u', 'e')
	}
	return append(b, ',', 'f', 'a', 'l', 's', 'e')
}

// appendCellLong is appendCell for v < 0 or v ≥ 10.
func appendCellLong(b []byte, v int64) []byte {
	if v < 0 {
		return strconv.AppendInt(append(b, ','), v, 10)
	}
	return appendDecimal(append(b, ','), uint64(v))
}

// cells receives a row's cells in order, as strings (CSV).
type cells struct{ rec []string }

func (c *cells) str(s string) { c.rec = append(c.rec, s) }
func (c *cells) int(v int64)  { c.rec = append(c.rec, strconv.FormatInt(v, 10)) }
func (c *cells) bool(v bool)  { c.rec = append(c.rec, strconv.FormatBool(v)) }
func (c *cells) empty()       { c.rec = append(c.rec, "") }
func (c *cells) float(v float64, prec int) {
	c.rec = append(c.rec, strconv.FormatFloat(v, 'f', prec, 64))
}

// appendCSVString appends s as one encoding/csv field: as it is, or, when
// csv might quote it, through a csv.Writer.
func appendCSVString(dst []byte, s string) []byte {
	if !mayNeedQuotes(s) {
		return append(dst, s...)
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write([]string{s})
	w.Flush()
	return append(dst, strings.TrimSuffix(b.String(), "\n")...)
}

// mayNeedQuotes reports whether encoding/csv could quote s (a superset of
// its rule: a comma, quote or line break, `\.`, or a first rune that may be
// a space).
func mayNeedQuotes(s string) bool {
	if s == "" {
		return false
	}
	if c := s[0]; c == ' ' || c >= '\t' && c <= '\r' || c >= utf8.RuneSelf || s == `\.` {
		return true
	}
	for i := 0; i < len(s); i++ {
		if csvSpecial[s[i]] {
			return true
		}
	}
	return false
}

// csvSpecial marks the bytes that make encoding/csv quote a field
// wherever they are.
var csvSpecial = [256]bool{',': true, '"': true, '\r': true, '\n': true}

// fields gives c each cell of the row, in FlowColumns order.
func (r *FlowRow) fields(c *cells) {
	opt := func(p *float64) {
		if p == nil {
			c.empty()
			return
		}
		c.float(*p, 3)
	}
	ws := func(p *int) {
		if p == nil {
			c.empty()
			return
		}
		c.int(int64(*p))
	}
	c.str(r.File)
	c.int(int64(r.Conn))
	c.str(r.AAddr)
	c.int(int64(r.APort))
	c.str(r.BAddr)
	c.int(int64(r.BPort))
	c.float(r.StartS, 6)
	c.float(r.DurationS, 6)
	for _, v := range [...]int64{r.PktsAB, r.PktsBA, r.WireAB, r.WireBA, r.BytesAB, r.BytesBA, r.UniqueAB, r.UniqueBA,
		r.RetxBytesAB, r.RetxBytesBA, r.AckedAB, r.AckedBA, r.GoodBytesAB, r.GoodBytesBA} {
		c.int(v)
	}
	c.float(r.TputABKbps, 3)
	c.float(r.TputBAKbps, 3)
	c.float(r.GoodputAB, 3)
	c.float(r.GoodputBA, 3)
	c.bool(r.Handshake)
	ws(r.WScaleA)
	ws(r.WScaleB)
	c.str(r.WScaleSource)
	for _, v := range [...]int64{r.RetxSegsAB, r.RetxSegsBA, r.OOOSegsAB, r.OOOSegsBA, r.FoldedDups} {
		c.int(v)
	}
	c.bool(r.ReusedPorts)
	opt(r.HSSynSynAck)
	opt(r.HSSynAckAck)
	nm := &r.nums
	for mi := range nm.rtt {
		for d := range nm.rtt[mi] {
			rc := &nm.rtt[mi][d]
			c.int(rc.n)
			for _, v := range [3]time.Duration{rc.min, rc.mean, rc.max} {
				if rc.n > 0 {
					c.float(ms(v), 3)
				} else {
					c.empty()
				}
			}
		}
	}
	for ci := range nm.events {
		c.int(nm.events[ci][0])
		c.int(nm.events[ci][1])
	}
	for _, v := range [...]int64{nm.dsack[0], nm.dsack[1], nm.synRetx[0], nm.synRetx[1], nm.finRetx[0], nm.finRetx[1]} {
		c.int(v)
	}
	c.str(nm.hsEv[0].String())
	c.str(nm.hsEv[1].String())
	c.int(nm.negRTT)
	for ci := range nm.icmp {
		c.int(nm.icmp[ci][0])
		c.int(nm.icmp[ci][1])
	}
	c.bool(r.PEPAB)
	c.bool(r.PEPBA)
	c.int(r.PMTUAB)
	c.int(r.PMTUBA)
	c.int(r.CtlRetxAB)
	c.int(r.CtlRetxBA)
	c.int(r.Overheard)
	c.int(r.UnknownAB)
	c.int(r.UnknownBA)
	c.bool(r.PEPPossibleAB)
	c.bool(r.PEPPossibleBA)
}

// FlowsFile is one file's part of the flows JSON output.
type FlowsFile struct {
	File     string    `json:"file"`
	Format   string    `json:"format"`
	Frames   int64     `json:"frames"`
	Segments int64     `json:"tcp_segments"`
	Stats    any       `json:"read_stats"`
	Warnings []string  `json:"warnings"`
	Conns    []FlowRow `json:"conns"` // JSON only: CSV and table rows are built as they are written
	// PEPNotes name the connections whose ACKs come from a PEP, or may
	// (one note per connection, as under the table).
	PEPNotes []string `json:"pep_notes,omitempty"`
	rep      *tcpanalysis.Report
	pepDirs  map[int]flows.Direction // connection → data direction a PEP acknowledged
	pepMaybe map[int]flows.Direction // connection → data direction a PEP may have acknowledged
}

// count is the number of connections: of Conns when given (JSON, or rows
// built by the caller, as a live capture does), else of the report.
func (ff *FlowsFile) count() int {
	if ff.Conns != nil || ff.rep == nil {
		return len(ff.Conns)
	}
	return len(ff.rep.Conns)
}

// rows calls f for each connection's row, built on the fly.
func (ff *FlowsFile) rows(f func(*FlowRow)) {
	if ff.Conns != nil {
		for i := range ff.Conns {
			f(&ff.Conns[i])
		}
		return
	}
	if ff.rep == nil {
		return
	}
	for _, r := range ff.rep.Conns {
		row := NewFlowRow(ff.File, ff.rep, r, false)
		ff.markPEP(&row)
		f(&row)
	}
}

// NewFlowsFile builds the flows output of one analysed capture.
func NewFlowsFile(path string, rep *tcpanalysis.Report, withJSON bool) FlowsFile {
	ff := FlowsFile{File: path, Format: string(rep.Format), Frames: rep.Stats.Frames, Segments: rep.Stats.Segments,
		Stats: rep.Stats, Warnings: rep.Warnings, rep: rep}
	if ff.Warnings == nil {
		ff.Warnings = []string{}
	}
	if withJSON {
		ff.Conns = []FlowRow{}
		for _, r := range rep.Conns {
			ff.Conns = append(ff.Conns, NewFlowRow(path, rep, r, withJSON))
		}
	}
	return ff
}

// WriteFlowsCSV writes the flows CSV (header and one row per connection).
func WriteFlowsCSV(w io.Writer, files []FlowsFile) error {
	cw := csv.NewWriter(w)
	cw.Write(FlowColumns)
	for _, f := range files {
		f.rows(func(r *FlowRow) { cw.Write(r.CSV()) })
	}
	cw.Flush()
	return cw.Error()
}

// WriteFlowsTable prints the human flows table, one block per file.
func WriteFlowsTable(w io.Writer, files []FlowsFile) error {
	head := flowsTableHead
	for _, f := range files {
		name := f.File
		if name == "-" {
			name = "stdin" // as every message names standard input
		}
		fmt.Fprintf(w, "%s: %s, %d frames, %d TCP segments, %d connections\n", name, f.Format, f.Frames, f.Segments, f.count())
		rows := make([][]string, 0, f.count()+1)
		rows = append(rows, pepHead(head, f))
		f.rows(func(r *FlowRow) { rows = append(rows, r.tableCells()) })
		if err := WriteAligned(w, rows); err != nil {
			return err
		}
		for _, n := range f.PEPNotes {
			fmt.Fprintln(w, "note:", n)
		}
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintln(w, flowsTableFooter+pepFooter(files))
	return err
}

// WriteAligned prints rows as right-aligned columns separated by two spaces.
func WriteAligned(w io.Writer, rows [][]string) error { return WriteColumns(w, rows, true) }

// WriteColumns prints rows as columns separated by two spaces, right- or
// left-aligned (internal/textcol).
func WriteColumns(w io.Writer, rows [][]string, right bool) error {
	return textcol.Write(w, rows, right)
}

// HostPort joins an address and a port, IPv6 addresses in brackets.
func HostPort(addr string, port uint16) string {
	for i := 0; i < len(addr); i++ {
		if addr[i] == ':' {
			return "[" + addr + "]:" + strconv.Itoa(int(port))
		}
	}
	return addr + ":" + strconv.Itoa(int(port))
}

// SetPEP records which connections' ACKs came from a split-TCP PEP
// (docs/metrics.md#pep): the notes printed under the table, and per
// connection the data direction a PEP likely acknowledged (likely), or may
// have (possible: one capture cannot tell), which set the rows'
// acks_from_pep_ab/ba or pep_possible_ab/ba and mark their goodput cells
// "PEP" or "PEP?".
func (ff *FlowsFile) SetPEP(notes []string, likely, possible map[int]flows.Direction) {
	ff.PEPNotes, ff.pepDirs, ff.pepMaybe = notes, likely, possible
	for i := range ff.Conns {
		ff.markPEP(&ff.Conns[i])
	}
}

// markPEP sets the row's acks_from_pep and pep_possible columns.
func (ff *FlowsFile) markPEP(r *FlowRow) {
	if d, ok := ff.pepDirs[r.Conn]; ok {
		r.MarkPEP(d)
	}
	if d, ok := ff.pepMaybe[r.Conn]; ok {
		r.MarkPEPPossible(d)
	}
}

// pepHead renames the flows table's goodput columns of a direction some
// connection of f had acknowledged by a PEP, or possibly: "goodput or
// PEP-accepted".
func pepHead(head []string, f FlowsFile) []string {
	var ab, ba bool
	for _, m := range []map[int]flows.Direction{f.pepDirs, f.pepMaybe} {
		for _, d := range m {
			ab, ba = ab || d == flows.AtoB, ba || d == flows.BtoA
		}
	}
	if !ab && !ba {
		return head
	}
	out := append([]string(nil), head...)
	for i, h := range out {
		switch {
		case ab && h == "goodput a>b kbit/s":
			out[i] = "goodput or PEP-accepted a>b kbit/s"
		case ba && h == "goodput b>a kbit/s":
			out[i] = "goodput or PEP-accepted b>a kbit/s"
		}
	}
	return out
}

// pepCell prints a goodput cell of the flows table: marked "PEP" when a
// PEP likely sent the ACKs (the rate is of bytes it accepted), "PEP?" when
// one may have (unknown).
func pepCell(v float64, proxied, maybe bool) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	switch {
	case proxied:
		s += " PEP"
	case maybe:
		s += " PEP?"
	}
	return s
}

// pepFooter extends the flows table's footer when some cell is marked:
// likely, possible (by the files' marks).
func pepFooter(files []FlowsFile) string {
	var likely, possible bool
	for _, f := range files {
		likely = likely || len(f.pepDirs) > 0
		possible = possible || len(f.pepMaybe) > 0
	}
	return pepFooterText(likely, possible)
}

// pepFooterText is pepFooter's text for marks "PEP" (likely) and "PEP?"
// (possible).
func pepFooterText(likely, possible bool) string {
	s := ""
	if likely {
		s += "; PEP = the ACKs likely came from a split-TCP PEP (the note says why): that rate is of bytes accepted by the PEP, not delivered to the receiver (docs/metrics.md#pep)"
	}
	if possible {
		s += "; PEP? = unknown whether the ACKs came from the receiver or a split-TCP PEP on the sender's link: that rate is end-to-end only if they came from the receiver (the note says how to decide: --path-rtt, or a capture behind it; docs/metrics.md#pep)"
	}
	return s
}
