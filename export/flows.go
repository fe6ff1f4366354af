// Package export holds tcpviz's output schemas (docs/schema.md): one typed
// row per record, with its CSV header and writers, and the aligned text
// tables the commands print. It reads no captures and knows no flags:
// cmd/tcpviz, the report and any program writing tcpviz files share it.
package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/internal/textcol"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// FlowsSchema names the version of the flows CSV/JSON schema
// (docs/schema.md#flows). Bump it when a column changes meaning or goes away.
const FlowsSchema = "tcpviz.flows/2"

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
	// PEPAB and PEPBA report that a split-TCP PEP sent the ACKs of a>b
	// (b>a) data (pep_note.go): acked and goodput columns of that
	// direction are bytes the PEP accepted, not delivered.
	PEPAB bool `json:"acks_from_pep_ab"`
	PEPBA bool `json:"acks_from_pep_ba"`
	// PMTUAB and PMTUBA count retransmissions after an ICMP
	// fragmentation-needed (class pmtu, docs/metrics.md#events).
	PMTUAB int64 `json:"-"`
	PMTUBA int64 `json:"-"`
	extra  []string
}

// NewFlowRow builds the row of connection r of capture file (rep); with
// withJSON it also fills the nested RTT and Events maps of the JSON output.
func NewFlowRow(file string, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, withJSON bool) FlowRow {
	c := r.Conn
	a, b := &c.Half[flows.AtoB], &c.Half[flows.BtoA]
	ws := func(h *flows.Half) *int {
		if h.WScale < 0 {
			return nil
		}
		v := h.WScale
		return &v
	}
	src := a.WScaleFrom.String()
	if b.WScaleFrom != a.WScaleFrom {
		src = a.WScaleFrom.String() + "/" + b.WScaleFrom.String()
	}
	ab, ba := &r.Dir[flows.AtoB], &r.Dir[flows.BtoA]
	row := FlowRow{
		File: file, Conn: c.Index,
		AAddr: a.Addr.Addr().String(), APort: a.Addr.Port(),
		BAddr: b.Addr.Addr().String(), BPort: b.Addr.Port(),
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
		Handshake: c.HandshakeSeen,
		WScaleA:   ws(a), WScaleB: ws(b), WScaleSource: src,
		RetxSegsAB: ab.RetxSegs, RetxSegsBA: ba.RetxSegs,
		OOOSegsAB: ab.OOOSegs, OOOSegsBA: ba.OOOSegs,
		FoldedDups:  c.Folded,
		ReusedPorts: c.Reused,
	}
	msp := func(d time.Duration, ok bool) *float64 {
		if !ok {
			return nil
		}
		v := d.Seconds() * 1000
		return &v
	}
	f3 := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'f', 3, 64)
	}
	row.HSSynSynAck = msp(r.Handshake.SynToSynAck, r.Handshake.SynToSynAckOk)
	row.HSSynAckAck = msp(r.Handshake.SynAckToAck, r.Handshake.SynAckToAckOk)
	row.extra = append(row.extra, f3(row.HSSynSynAck), f3(row.HSSynAckAck))
	if withJSON {
		row.RTT = map[string]any{}
		row.Events = map[string]int64{}
	}
	for _, m := range []tcpanalysis.Method{tcpanalysis.MethodACK, tcpanalysis.MethodTS} {
		for _, d := range []flows.Direction{flows.AtoB, flows.BtoA} {
			a := r.RTTAgg[d][m]
			ok := a.N > 0
			mn, me, mx := msp(a.Min, ok), msp(a.Mean(), ok), msp(a.Max, ok)
			row.extra = append(row.extra, strconv.FormatInt(a.N, 10), f3(mn), f3(me), f3(mx))
			if withJSON {
				row.RTT[m.String()+"_"+d.String()] = map[string]any{"n": a.N, "min_ms": mn, "mean_ms": me, "max_ms": mx}
			}
		}
	}
	for _, cl := range []tcpanalysis.Class{tcpanalysis.RTO, tcpanalysis.Fast, tcpanalysis.Spurious, tcpanalysis.DupAck, tcpanalysis.ZeroWindow, tcpanalysis.ZWProbe, tcpanalysis.KeepAlive} {
		for _, d := range []flows.Direction{flows.AtoB, flows.BtoA} {
			v := r.Counts[d][cl]
			row.extra = append(row.extra, strconv.FormatInt(v, 10))
			if withJSON {
				row.Events[cl.String()+"_"+d.String()] = v
			}
		}
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	row.extra = append(row.extra, i(ab.DSACKs), i(ba.DSACKs), i(ab.SynRetx), i(ba.SynRetx), i(ab.FinRetx), i(ba.FinRetx),
		r.Handshake.SynEvidence.String(), r.Handshake.SynAckEvidence.String(), i(r.NegativeRTT))
	for _, cl := range []tcpanalysis.Class{tcpanalysis.ICMPFragNeeded, tcpanalysis.ICMPUnreachable, tcpanalysis.ICMPTimeExceeded} {
		for _, d := range []flows.Direction{flows.AtoB, flows.BtoA} {
			row.extra = append(row.extra, i(r.Counts[d][cl]))
			if withJSON {
				row.Events[cl.String()+"_"+d.String()] = r.Counts[d][cl]
			}
		}
	}
	row.PMTUAB, row.PMTUBA = r.Counts[flows.AtoB][tcpanalysis.PMTU], r.Counts[flows.BtoA][tcpanalysis.PMTU]
	if withJSON {
		row.Events["pmtu_ab"], row.Events["pmtu_ba"] = row.PMTUAB, row.PMTUBA
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

// CSV is the row's record, in FlowColumns order.
func (r *FlowRow) CSV() []string {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := func(v float64, p int) string { return strconv.FormatFloat(v, 'f', p, 64) }
	ws := func(p *int) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(*p)
	}
	rec := []string{
		r.File, strconv.Itoa(r.Conn), r.AAddr, strconv.Itoa(int(r.APort)), r.BAddr, strconv.Itoa(int(r.BPort)),
		f(r.StartS, 6), f(r.DurationS, 6),
		i(r.PktsAB), i(r.PktsBA), i(r.WireAB), i(r.WireBA), i(r.BytesAB), i(r.BytesBA), i(r.UniqueAB), i(r.UniqueBA),
		i(r.RetxBytesAB), i(r.RetxBytesBA), i(r.AckedAB), i(r.AckedBA), i(r.GoodBytesAB), i(r.GoodBytesBA),
		f(r.TputABKbps, 3), f(r.TputBAKbps, 3), f(r.GoodputAB, 3), f(r.GoodputBA, 3),
		strconv.FormatBool(r.Handshake), ws(r.WScaleA), ws(r.WScaleB), r.WScaleSource,
		i(r.RetxSegsAB), i(r.RetxSegsBA), i(r.OOOSegsAB), i(r.OOOSegsBA),
		i(r.FoldedDups), strconv.FormatBool(r.ReusedPorts),
	}
	return append(append(rec, r.extra...), strconv.FormatBool(r.PEPAB), strconv.FormatBool(r.PEPBA), i(r.PMTUAB), i(r.PMTUBA))
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
	// PEPNotes name the connections whose ACKs come from a PEP.
	PEPNotes []string `json:"pep_notes,omitempty"`
	rep      *tcpanalysis.Report
	pepDirs  map[int]flows.Direction // connection → data direction a PEP acknowledged
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
// connection the data direction the PEP acknowledged, which sets the rows'
// acks_from_pep_ab/ba and marks their goodput cells.
func (ff *FlowsFile) SetPEP(notes []string, dirs map[int]flows.Direction) {
	ff.PEPNotes, ff.pepDirs = notes, dirs
	for i := range ff.Conns {
		ff.markPEP(&ff.Conns[i])
	}
}

// markPEP sets the row's acks_from_pep columns.
func (ff *FlowsFile) markPEP(r *FlowRow) {
	if d, ok := ff.pepDirs[r.Conn]; ok {
		r.PEPAB, r.PEPBA = d == flows.AtoB, d == flows.BtoA
	}
}

// pepHead renames the flows table's goodput columns of a direction some
// connection of f had acknowledged by a PEP: "goodput or PEP-accepted".
func pepHead(head []string, f FlowsFile) []string {
	var ab, ba bool
	for _, d := range f.pepDirs {
		ab, ba = ab || d == flows.AtoB, ba || d == flows.BtoA
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
// PEP sent the ACKs (the rate is of bytes it accepted).
func pepCell(v float64, proxied bool) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if proxied {
		s += " PEP"
	}
	return s
}

// pepFooter extends the flows table's footer when some cell is marked.
func pepFooter(files []FlowsFile) string {
	for _, f := range files {
		if len(f.pepDirs) > 0 {
			return "; PEP = the ACKs came from a split-TCP PEP: that rate is of bytes accepted by the PEP, not delivered to the receiver (docs/metrics.md#pep)"
		}
	}
	return ""
}
