package export

import (
	"fmt"
	"io"
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Row schemas of the per-analysis outputs (docs/schema.md). rtt/2,
// retrans/3, window/2, tput/2: t_s is seconds since the capture's first
// frame in every output, conn_t_s seconds since the connection's first
// packet (retrans/2 added the evidence column; retrans/4 has rows for a
// SYN, SYN-ACK or FIN sent again without payload; retrans/5 has the class
// unknown where the capture cannot show the timer; tput/3 lays its
// intervals from the reference point, cut to the --from/--to window;
// tput/4 adds acked_by, the PEP verdict of every row).
const (
	RTTSchema     = "tcpviz.rtt/2"
	RetransSchema = "tcpviz.retrans/5"
	WindowSchema  = "tcpviz.window/2"
	TputSchema    = "tcpviz.tput/4"
)

// Table is one output of a per-analysis verb: the rows (CSV/JSON, with
// their schema and header; built only when asked, they can be millions) and
// the human summary table (first row: the column names).
type Table struct {
	Schema string
	Header []string
	Rows   [][]string
	// Each, when set, yields the rows one at a time instead of Rows (a
	// million-row output is never held); the slice it yields is reused
	// for the next row.
	Each iter.Seq[[]string]
	// EachErr, when set, reports an error that ended Each early (a
	// temporary file that could not be read back).
	EachErr func() error
	// CSV, when set, writes the header and the rows as CSV exactly as
	// WriteRows would from Header and AllRows, only faster (rows appended
	// as bytes, formatted on several cores: a million-row window CSV).
	CSV     func(w io.Writer) error
	Summary [][]string
	// KeyValue says the summary is metric/value pairs: printed
	// left-aligned, each value read as a sentence.
	KeyValue bool
}

// RowsErr is EachErr's error, if any.
func (t Table) RowsErr() error {
	if t.EachErr == nil {
		return nil
	}
	return t.EachErr()
}

// AllRows yields the rows: Each when set, else Rows.
func (t Table) AllRows() iter.Seq[[]string] {
	if t.Each != nil {
		return t.Each
	}
	return slices.Values(t.Rows)
}

// times are the two time columns of every row: since the capture's first
// frame, and since the connection's first packet.
func times(v *query.View, r *tcpanalysis.ConnResult, t capture.Timestamp) (string, string) {
	return FormatS(v.CaptureS(t)), FormatSeconds(t.Sub(r.Conn.First))
}

// FormatMS prints a duration in milliseconds, 3 decimals (µs).
func FormatMS(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1000, 'f', 3, 64) }

// FormatSeconds prints a duration in seconds, 6 decimals (µs), as
// strconv.FormatFloat(d.Seconds(), 'f', 6, 64).
func FormatSeconds(d time.Duration) string { return FormatS(d.Seconds()) }

// FormatS prints seconds, 6 decimals (µs), as strconv.FormatFloat(s, 'f',
// 6, 64) does (appendFixed).
func FormatS(s float64) string {
	var buf [32]byte
	return string(appendFixed(buf[:0], s, 6))
}

// sortRowsByFrame orders rows by connection (column 0), then frame
// (column frameCol): capture order within each connection.
func sortRowsByFrame(rows [][]string, frameCol int) {
	num := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	sort.SliceStable(rows, func(i, j int) bool {
		if a, b := num(rows[i][0]), num(rows[j][0]); a != b {
			return a < b
		}
		return num(rows[i][frameCol]) < num(rows[j][frameCol])
	})
}

// method is the RTT method of an RTT metric.
func method(m query.Metric) tcpanalysis.Method {
	switch m {
	case query.MetricRTT:
		return tcpanalysis.MethodACK
	case query.MetricRTTTS:
		return tcpanalysis.MethodTS
	}
	return tcpanalysis.MethodHandshake
}

// MethodName is the rtt method column for an RTT metric.
func MethodName(m query.Metric) string {
	switch m {
	case query.MetricRTT:
		return tcpanalysis.MethodACK.String()
	case query.MetricRTTTS:
		return tcpanalysis.MethodTS.String()
	}
	return tcpanalysis.MethodHandshake.String()
}

// RTT is the rtt output (docs/schema.md#rtt) of v's connection (every
// verb reads one, query.Selection.Pick) in the selected directions, in the
// selected window: samples of the RTT metrics in want (rows only with
// withRows) and, per direction and method, count, min, p50, mean, p95 and
// max in ms. When the window is the whole connection (query.View.Whole)
// the table reads the analyzer's quantiles (query.Options.RTT); otherwise
// it needs the samples (query.Options.RTTSamples).
func RTT(v *query.View, want map[query.Metric]bool, withRows bool) Table {
	sel := v.Sel
	metrics := []query.Metric{query.MetricRTTHandshake, query.MetricRTT, query.MetricRTTTS}
	header := []string{"conn", "dir", "method", "t_s", "conn_t_s", "rtt_ms", "frame"}
	var rows [][]string
	table := [][]string{{"conn", "dir", "method", "count", "min_ms", "p50_ms", "mean_ms", "p95_ms", "max_ms"}}
	for _, r := range []*tcpanalysis.ConnResult{v.Conn} {
		for _, d := range sel.Dir.Dirs() {
			whole := v.Whole(r, d)
			for _, m := range metrics {
				if !want[m] {
					continue
				}
				var ds []time.Duration
				if !whole || withRows {
					s := v.SeriesOf(r, d, m)
					if m == query.MetricRTTHandshake {
						s = v.HandshakeOf(r, d) // the connection's unless a window is given
					}
					for _, p := range s.Points {
						ds = append(ds, time.Duration(p.V*float64(time.Millisecond)))
						if withRows {
							t, ct := times(v, r, p.Time)
							rows = append(rows, []string{strconv.Itoa(r.Conn.Index), d.String(), MethodName(m), t, ct,
								strconv.FormatFloat(p.V, 'f', 6, 64), strconv.FormatInt(p.Frame, 10)})
						}
					}
				}
				if whole {
					// The whole connection: the analyzer's bounded
					// quantiles (docs/metrics.md#rtt-percentiles).
					a := &r.RTTAgg[d][method(m)]
					p50, ok50 := a.Quantile(0.5)
					p95, ok95 := a.Quantile(0.95)
					if a.N > 0 && ok50 && ok95 {
						table = append(table, []string{strconv.Itoa(r.Conn.Index), d.String(), MethodName(m), strconv.FormatInt(a.N, 10), FormatMS(a.Min), FormatMS(p50), FormatMS(a.Mean()), FormatMS(p95), FormatMS(a.Max)})
					}
				} else if n, mn, p50, mean, p95, mx, ok := tcpanalysis.Percentiles(ds); ok {
					table = append(table, []string{strconv.Itoa(r.Conn.Index), d.String(), MethodName(m), strconv.Itoa(n), FormatMS(mn), FormatMS(p50), FormatMS(mean), FormatMS(p95), FormatMS(mx)})
				}
			}
		}
	}
	sortRowsByFrame(rows, 6)
	return Table{Schema: RTTSchema, Header: header, Rows: rows, Summary: refColumn(v, table)}
}

// Retrans is the retrans output (docs/schema.md#retrans): every event of
// v's connection in the selected directions and window (rows only with
// withRows), and the counts per class.
func Retrans(v *query.View, withRows bool) Table {
	sel := v.Sel
	header := []string{"conn", "dir", "t_s", "conn_t_s", "frame", "class", "seq", "len", "original_frame", "evidence"}
	var rows [][]string
	head := []string{"conn", "dir"}
	for _, c := range tcpanalysis.Classes() {
		head = append(head, c.String())
	}
	table := [][]string{head}
	for _, r := range []*tcpanalysis.ConnResult{v.Conn} {
		for _, d := range sel.Dir.Dirs() {
			evs := Events(v, r, d)
			counts := map[tcpanalysis.Class]int{}
			for _, ev := range evs {
				counts[ev.Class]++
				if withRows {
					orig := ""
					if ev.Original > 0 {
						orig = strconv.FormatInt(ev.Original, 10)
					}
					t, ct := times(v, r, ev.Time)
					rows = append(rows, []string{strconv.Itoa(r.Conn.Index), d.String(), t, ct,
						strconv.FormatInt(ev.Frame, 10), ev.Class.String(), strconv.FormatInt(ev.Seq, 10), strconv.Itoa(ev.Len), orig, ev.Evidence.String()})
				}
			}
			row := []string{strconv.Itoa(r.Conn.Index), d.String()}
			for _, c := range tcpanalysis.Classes() {
				row = append(row, strconv.Itoa(counts[c]))
			}
			table = append(table, row)
		}
	}
	sortRowsByFrame(rows, 4)
	return Table{Schema: RetransSchema, Header: header, Rows: rows, Summary: refColumn(v, table)}
}

// refColumn adds, when --ref is not syn, a column "ref" after conn and dir
// (the first two columns) naming the reference point each row's window
// counts from: the one asked for, or what it fell back to in that
// direction (query.Ref.Resolve; docs/metrics.md#slow-start).
func refColumn(v *query.View, table [][]string) [][]string {
	if v.Sel.Ref == query.RefSYN || len(table) == 0 {
		return table
	}
	for i, row := range table {
		ref := "ref"
		if i > 0 {
			d := flows.AtoB
			if row[1] == flows.BtoA.String() {
				d = flows.BtoA
			}
			ref = v.RefUsedOf(v.Conn, d).String()
		}
		table[i] = append(append(append([]string{}, row[:2]...), ref), row[2:]...)
	}
	return table
}

// Events are the events of r in data direction d inside the selection's
// time range.
func Events(v *query.View, r *tcpanalysis.ConnResult, d flows.Direction) []tcpanalysis.Event {
	return slices.Collect(v.Events(r, d))
}

// Window is the window output (docs/schema.md#window) of v's connection and
// direction: rwnd and bytes in flight at every data segment and ACK, and
// the zero-window periods.
func Window(v *query.View) Table {
	r, d := v.Conn, v.Dir
	header := []string{"conn", "dir", "t_s", "conn_t_s", "frame", "rwnd_bytes", "inflight_bytes", "inflight_sack_bytes"}
	rows := func(yield func([]string) bool) {
		if r.Series == nil {
			return
		}
		row := make([]string, len(header))
		conn, dir := strconv.Itoa(r.Conn.Index), d.String()
		for w := range v.WindowPoints(r, d) {
			rw, fl, fs := "", "", ""
			if w.RwndKnown {
				rw = strconv.FormatInt(w.Rwnd, 10)
			}
			if w.FlightValid {
				fl, fs = strconv.FormatInt(w.InFlight, 10), strconv.FormatInt(w.InFlightSACK, 10)
			}
			t, ct := times(v, r, w.Time)
			row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7] = conn, dir, t, ct, strconv.FormatInt(w.Frame, 10), rw, fl, fs
			if !yield(row) {
				return
			}
		}
	}
	// start_s/end_s count from the capture's first frame as t_s does
	// (docs/schema.md: one meaning per column name), conn_start_s and
	// conn_end_s from the connection's first packet as conn_t_s.
	table := [][]string{{"conn", "dir", "zero-window start_s", "end_s", "conn_start_s", "conn_end_s", "duration_ms", "frames"}}
	for z := range v.ZeroWindows(r, d) {
		t, ct := times(v, r, z.Start)
		if z.End == 0 {
			table = append(table, []string{strconv.Itoa(r.Conn.Index), d.String(), t, "open at the end", ct, "", FormatMS(r.Conn.Last.Sub(z.Start)) + "+", fmt.Sprintf("%d-", z.StartFrame)})
		} else {
			te, cte := times(v, r, z.End)
			table = append(table, []string{strconv.Itoa(r.Conn.Index), d.String(), t, te, ct, cte, FormatMS(z.End.Sub(z.Start)), fmt.Sprintf("%d-%d", z.StartFrame, z.EndFrame)})
		}
	}
	if len(table) == 1 {
		table = append(table, []string{strconv.Itoa(r.Conn.Index), d.String(), "none", "", "", "", "", ""})
	}
	csvRows := func(w io.Writer) error {
		head := []byte(strings.Join(header, ",") + "\n")
		if r.Series == nil {
			_, err := w.Write(head)
			return err
		}
		conn, dir, t0 := strconv.Itoa(r.Conn.Index), d.String(), r.Conn.First
		return writeLines(w, head, v.WindowPoints(r, d), func(b []byte, p *tcpanalysis.WindowPoint) []byte {
			b = append(append(append(append(b, conn...), ','), dir...), ',')
			b = appendFixed(b, v.CaptureS(p.Time), 6)
			b = appendFixed(append(b, ','), p.Time.Sub(t0).Seconds(), 6)
			b = appendCell(b, p.Frame)
			if p.RwndKnown {
				b = appendCell(b, p.Rwnd)
			} else {
				b = append(b, ',')
			}
			if p.FlightValid {
				b = appendCell(appendCell(b, p.InFlight), p.InFlightSACK)
			} else {
				b = append(b, ',', ',')
			}
			return append(b, '\n')
		})
	}
	return Table{Schema: WindowSchema, Header: header, Each: rows, CSV: csvRows, Summary: table}
}

// Tput is the tput output (docs/schema.md#tput) of v's connection and
// direction: throughput and goodput per interval of v.Interval laid from
// the reference point (query.View.Intervals), and the summary: the
// reference point actually used, the selected window, slow-start end,
// bytes acknowledged at 1, 5, 10 s (those inside the window and the
// connection) and at each of at, time to toBytes when > 0, the bytes sent
// and acknowledged in the window (what the rows add up to) and goodput.
// Every row's acked_by is by: who sent the ACKs it counts (the caller's
// PEP verdict). Errors: tcpanalysis.ErrTooManyBins.
func Tput(v *query.View, at []float64, toBytes int64, by AckedBy) (Table, error) {
	sel := v.Sel
	r, d, w := v.Conn, v.Dir, v.Interval
	iv, err := v.Intervals(r, d)
	if err != nil {
		return Table{}, err
	}
	header := []string{"conn", "dir", "t_s", "conn_t_s", "interval_s", "throughput_kbps", "goodput_kbps", "cum_acked_bytes", "acked_by"}
	var rows [][]string
	var sent, acked int64
	for _, b := range iv {
		sent, acked = sent+b.Bytes, acked+b.Acked
		t, ct := times(v, r, b.Start)
		tp, gp := strconv.FormatFloat(b.Kbps(b.Bytes), 'f', 3, 64), strconv.FormatFloat(b.Kbps(b.Acked), 'f', 3, 64)
		if b.Width <= 0 {
			// An interval cut to nothing by the window's end (a window
			// that lasts no time): bytes but no rate (empty, not 0).
			tp, gp = "", ""
		}
		rows = append(rows, []string{strconv.Itoa(r.Conn.Index), d.String(), t, ct, FormatSeconds(b.Width), tp, gp, strconv.FormatInt(b.CumAcked, 10), string(by)})
	}
	ref := v.Ref
	lasted := r.Conn.Last.Sub(ref)
	lo, hi, _ := v.Span(r, d)
	ss := tcpanalysis.SlowStartEnd(r, d, ref)
	table := [][]string{{"metric", "value"}}
	table = append(table, []string{"connection", fmt.Sprintf("%d, data %s", r.Conn.Index, fmt.Sprintf("%s → %s", r.Conn.Half[d].Addr, r.Conn.Half[d.Reverse()].Addr))})
	table = append(table, []string{"interval", w.String() + ", laid from the reference point"})
	table = append(table, []string{"reference point", RefText(v, r, d)})
	table = append(table, []string{"window", WindowText(v, r, d)})
	inWindow := sel.Within
	if ss.Rule != tcpanalysis.SlowStartNotEnded {
		val := fmt.Sprintf("%.3f s after the reference point (rule: %s, frame %d)", ss.End.Seconds(), ss.Rule, ss.Frame)
		if !inWindow(ss.End) { // the whole connection's, not the window's
			val += "; outside the window"
		}
		table = append(table, []string{"slow start ended", val})
	} else {
		table = append(table, []string{"slow start ended", "not detected"})
	}
	var shown []float64 // each time once (--at 1 and the default row)
	for i, t := range append([]float64{1, 5, 10}, at...) {
		if i < 3 && (secs(t) > lasted || !inWindow(secs(t))) || slices.Contains(shown, t) {
			continue // default rows only inside the window and the connection
		}
		shown = append(shown, t)
		val := fmt.Sprintf("%d bytes (sent up to %d)", tcpanalysis.AckedAt(r, d, ref, secs(t)), tcpanalysis.SentAt(r, d, ref, secs(t)))
		if secs(t) > lasted {
			val += fmt.Sprintf("; the connection ended %.3f s after the reference point", lasted.Seconds())
		}
		if !inWindow(secs(t)) {
			val += "; outside the selected window"
		}
		table = append(table, []string{fmt.Sprintf("acked after %g s", t), val})
	}
	if toBytes > 0 {
		if tt, ok := tcpanalysis.TimeTo(r, d, ref, toBytes); ok {
			table = append(table, []string{fmt.Sprintf("time to %d bytes", toBytes), fmt.Sprintf("%.3f s after the reference point", tt.Seconds())})
		} else {
			table = append(table, []string{fmt.Sprintf("time to %d bytes", toBytes), "never"})
		}
	}
	if hi.Sub(lo) > 0 {
		table = append(table, []string{"sent in window", fmt.Sprintf("%d payload bytes (retransmissions included; the throughput rows add up to it)", sent)})
		table = append(table, []string{"acked in window", fmt.Sprintf("%d bytes (the goodput rows add up to it)", acked)})
	} else {
		// A window of one instant (the reference point at the
		// connection's last packet): bytes, no rate to add up.
		table = append(table, []string{"sent in window", fmt.Sprintf("%d payload bytes (retransmissions included) in a window that lasts no time: no rate", sent)})
		table = append(table, []string{"acked in window", fmt.Sprintf("%d bytes in a window that lasts no time: no rate", acked)})
	}
	// On 802.11 the goodput bytes add, to the acknowledged ones, the
	// in-order bytes the receiver's MAC took after the last ACK
	// (DeliveredBytes, docs/metrics.md#goodput): a window that reaches the
	// connection's end counts them too, so that over the whole connection
	// the two goodput lines agree.
	delivered := acked
	if over := r.Dir[d].AckedBytes - ownAckedAtEnd(v, r, d, acked); over > 0 && r.Conn.Overheard > 0 {
		// The highest ACK came in a frame the node only overheard
		// (docs/metrics.md#own-frames): it counts in the acknowledged
		// bytes but gives no row, and when it came is not kept. A
		// window that holds every acknowledgement counts the bytes:
		// the whole connection, or, at the data sender's own radio
		// (nothing is acknowledged before it sent the data), one from
		// its first data segment to the end. Any other says they exist
		// and leaves them out: a relay overhears ACKs before the first
		// data it carries (ns-3 aodv r2 node 8: 3.0 MB of its 5.5 MB
		// acknowledged before). Before session 16 a window from --ref
		// bulk or data left them out silently, even at the sender (ns-3
		// olsr r1 node 14: 0.8 against 312.2 kbit/s).
		if hi >= r.Conn.Last && (v.Whole(r, d) || lo <= r.Dir[d].FirstData && tcpanalysis.RadioOf(r, d) == tcpanalysis.RadioSender) {
			delivered += over
			table = append(table, []string{"acked by overheard ACKs", fmt.Sprintf("%d bytes more, by ACKs this 802.11 node only overheard on their way to another node (docs/metrics.md#own-frames): in the goodput below, not in the rows nor in the acked-after rows", over)})
		} else {
			table = append(table, []string{"acked by overheard ACKs", fmt.Sprintf("%d bytes over the whole connection, by ACKs this 802.11 node only overheard on their way to another node, at times not kept (docs/metrics.md#own-frames): not in the rows, the acked-after rows nor the goodput below; the whole connection (--ref syn, no --from/--to) counts them", over)})
		}
	}
	if tail := r.Dir[d].DeliveredBytes - r.Dir[d].AckedBytes; tail > 0 && hi >= r.Conn.Last {
		delivered += tail
		table = append(table, []string{"received after the last ACK", fmt.Sprintf("%d bytes in frames addressed to the receiver's MAC, after its last ACK (docs/metrics.md#goodput): in the goodput below, not in the rows", tail)})
	}
	// Over the part of the window the connection lasted.
	if span := min(hi, r.Conn.Last).Sub(lo); span > 0 {
		table = append(table, []string{"goodput in window", fmt.Sprintf("%.1f kbit/s over %.3f s", query.RateKbps(delivered, span.Seconds()), span.Seconds())})
	}
	table = append(table, []string{"goodput, whole connection", fmt.Sprintf("%.1f kbit/s over %.3f s (docs/metrics.md#goodput)", r.GoodputKbps(d), r.Duration().Seconds())})
	if row := runEndGoodput(v, r, d); row != nil {
		table = append(table, row)
	}
	return Table{Schema: TputSchema, Header: header, Rows: rows, Summary: table, KeyValue: true}, nil
}

// ownAckedAtEnd is the bytes acknowledged at the connection's end by the
// ACKs the node itself received (its ACK series): acked, the rows' sum,
// when the window is the whole connection. Without the series (never for
// tput's connection, which keeps its ACKs) it is unknown: AckedBytes,
// so that nothing is claimed for overheard ACKs.
func ownAckedAtEnd(v *query.View, r *tcpanalysis.ConnResult, d flows.Direction, acked int64) int64 {
	switch {
	case v.Whole(r, d):
		return acked
	case r.Series == nil:
		return r.Dir[d].AckedBytes
	}
	return tcpanalysis.AckedAt(r, d, r.Conn.First, r.Conn.Last.Sub(r.Conn.First))
}

// runEndGoodput is tput's row for a connection whose receiver never closed
// and whose packets stopped well before the capture did (over 1 s and
// over 2 % of the connection's duration): the goodput bytes over the time
// from the connection's first packet to the capture's last frame, the
// receiving application's run as the batch goodput and compare count it
// (docs/metrics.md#pep). The whole connection's row alone reads the same
// bytes over a shorter time, and so differs between captures of one flow
// (ns-3 olsr r2 flow 2: 961.6 kbit/s at the source, 1061.0 at the sink,
// PacketSink 836.2). nil otherwise, and at a relay or a node that only
// overheard the connection (their first and last packets are their own).
func runEndGoodput(v *query.View, r *tcpanalysis.ConnResult, d flows.Direction) []string {
	end := v.Report.Stats.Last
	rh := r.Conn.Half[d.Reverse()]
	if end == 0 || rh.FinSeen || rh.RstSeen || query.RelayNote(r, d) != "" || query.OverheardNote(r, d) != "" {
		return nil
	}
	tail, span := end.Sub(r.Conn.Last), end.Sub(r.Conn.First)
	if tail <= time.Second || tail*50 <= span {
		return nil
	}
	return []string{"goodput to the capture's end", fmt.Sprintf("%.1f kbit/s over %.3f s, if the receiving application ran to the capture's last frame, %.1f s after the connection's last packet (its receiver never closed), as compare and the batch goodput count it (docs/metrics.md#pep)",
		query.RateKbps(r.Dir[d].DeliveredBytes, span.Seconds()), span.Seconds(), tail.Seconds())}
}

// RefText describes the reference point used on connection r in direction
// d: its name, what it fell back from, and its time since the
// connection's first packet and the capture's first frame.
func RefText(v *query.View, r *tcpanalysis.ConnResult, d flows.Direction) string {
	// The reference point of a connection is taken in its data
	// direction, for both directions (View.RefOf).
	ref, used := v.RefOf(r, d), v.RefUsedOf(r, d)
	s := fmt.Sprintf("%s (%s)", used.Describe(), used)
	if used != v.Sel.Ref {
		s += fmt.Sprintf(", since %s sent no %s (--ref %s)", v.Sel.Dir.Of(r), v.Sel.Ref.Needs(), v.Sel.Ref)
	}
	return s + fmt.Sprintf(": %.6f s after the connection's first packet, t_s %.6f", ref.Sub(r.Conn.First).Seconds(), v.CaptureS(ref))
}

// WindowText describes the selected window of connection r in direction d.
func WindowText(v *query.View, r *tcpanalysis.ConnResult, d flows.Direction) string {
	lo, hi, clipped := v.Span(r, d)
	sel := v.Sel
	switch {
	case v.Whole(r, d):
		return "the whole connection"
	case clipped:
		return fmt.Sprintf("%g to %g s after the reference point (t_s %.6f to %.6f)", sel.From.Seconds(), sel.To.Seconds(), v.CaptureS(lo), v.CaptureS(hi))
	}
	if hi < lo {
		// --from past the connection's end: an empty window, not one
		// that ends before it starts.
		return fmt.Sprintf("%g s after the reference point to the end (t_s %.6f onwards: after the connection's last packet, t_s %.6f)", sel.From.Seconds(), v.CaptureS(lo), v.CaptureS(hi))
	}
	return fmt.Sprintf("%g s after the reference point to the end (t_s %.6f to %.6f)", sel.From.Seconds(), v.CaptureS(lo), v.CaptureS(hi))
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// AckedBy says who sent the ACKs a tput row's goodput_kbps and
// cum_acked_bytes count (package pep's verdict for the direction,
// docs/metrics.md#pep): the receiver, a split-TCP PEP (bytes it accepted,
// not delivered end to end), or either, one capture cannot tell. The
// column carries the verdict into every CSV and JSON row, where a note on
// standard error is lost.
type AckedBy string

// The AckedBy values, as the batch goodput's vantage names them.
const (
	AckedByReceiver AckedBy = "receiver"
	AckedByPEP      AckedBy = "pep"
	AckedByPEPMaybe AckedBy = "pep?"
)
