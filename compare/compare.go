// Package compare puts several labelled runs side by side: the same series
// for each, aligned at a chosen reference point, and a summary table with
// each value's ratio to the first run (docs/metrics.md#compare). It draws
// nothing; package plot does.
package compare

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/pep"
	"github.com/tcpviz/tcpviz/query"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// Spec names one run: LABEL=FILE[#conn], or LABEL=CLIENT+SERVER[#conn] for
// captures on each side of a PEP (LABEL=FILE+ for one pcapng with the
// client side as interface 0 and the server side as interface 1). Conn is
// -1 when not given (the connection that carried most data); it indexes
// the client-side capture.
type Spec struct {
	Label, File string
	// ServerFile is the server-side capture of a pair ("" for one
	// capture; equal to File for a two-interface pcapng).
	ServerFile string
	Conn       int
}

// shown is how outputs and messages name a run's capture path p:
// "stdin" for standard input ("-", or its spool, which capture.FileName
// names), else p.
func shown(p string) string {
	if p == "-" {
		return "stdin"
	}
	return capture.FileName(p)
}

// ParseSpec parses LABEL=FILE[#conn] and LABEL=CLIENT+SERVER[#conn]. It
// returns an error for a missing label or file, or a connection index that
// is not a number.
func ParseSpec(s string) (Spec, error) {
	i := strings.IndexByte(s, '=')
	if i <= 0 || i == len(s)-1 {
		return Spec{}, fmt.Errorf("run %q: want LABEL=FILE[#conn]", s)
	}
	sp := Spec{Label: s[:i], File: s[i+1:], Conn: -1}
	if j := strings.LastIndexByte(sp.File, '#'); j > 0 {
		n, err := strconv.Atoi(sp.File[j+1:])
		if err != nil || n < 0 {
			return Spec{}, fmt.Errorf("run %q: connection %q is not an index", s, sp.File[j+1:])
		}
		sp.File, sp.Conn = sp.File[:j], n
	}
	explicit := !strings.HasSuffix(sp.File, "+") // FILE+ is one two-interface pcapng
	sp.File, sp.ServerFile = splitFile(sp.File)
	if sp.File == "" {
		return Spec{}, fmt.Errorf("run %q: want LABEL=FILE[#conn] or LABEL=CLIENT+SERVER[#conn]", s)
	}
	if explicit && sp.IsPair() && sameCapture(sp.File, sp.ServerFile) {
		return Spec{}, fmt.Errorf("run %q: %s is given as both the client and the server side; a pair is two captures, one on each side of the PEP (one pcapng holding both sides as interfaces 0 and 1: LABEL=FILE+)", s, sp.File)
	}
	return sp, nil
}

// Run is one analysed run: the chosen connection (with its series kept) and
// data direction, and the reference time its series are aligned at. For a
// pair (Spec.IsPair) Result is the client-side half.
type Run struct {
	Spec
	Result *tcpanalysis.ConnResult
	Dir    flows.Direction
	Ref    capture.Timestamp
	// RefUsed is the reference point Ref is: the one asked for, or what
	// it fell back to when the run's direction has none (query.Ref.Resolve).
	RefUsed query.Ref
	// From and To are the selected window, seconds after Ref (To 0: to
	// the end): Summary's rows hold what lies in it, or say that they are
	// whole-connection numbers.
	From, To time.Duration
	// PEP is the one-capture evidence for a proxy acknowledging Dir's data
	// (pep.DetectIn on Result with Links, when it decides; set by NewRun
	// and NewPairRun).
	PEP pep.Verdict
	// Links is the link-layer evidence of File's analysis (pep.LinksOf
	// its report); nil when not known. LinkOwn and LinkOwnCut are that
	// report's (tcpanalysis.Report.LinkOwn), for a report of this run's
	// connection alone (the HTML report's compare mode) to judge as this
	// run does.
	Links      *pep.Links
	LinkOwn    []capture.LinkOwn
	LinkOwnCut bool
	// Server and Split are the server-side half and the two-capture
	// analysis of a pair run; nil for one capture.
	Server *tcpanalysis.ConnResult
	Split  *pep.SplitResult
	// Swapped reports that the pair was given server side first
	// (LABEL=SERVER+CLIENT) and NewPairRun put it back in order: File is
	// then the client side (see SwappedPair).
	Swapped bool
	// Start and ServerStart are the first frames of File and ServerFile
	// (0 when not known): the origin of the captures' own time base, as
	// flows' start_s counts from it.
	Start, ServerStart capture.Timestamp
	// End is the last frame of a one-capture run's File (0 when not
	// known): where its end-to-end goodput's interval ends when the
	// receiver did not close, as the batch goodput's run end
	// (pep.ReceiverGoodputTo).
	End capture.Timestamp
}

// NewRun builds a one-capture run: r (a connection of rep, the analysis
// of spec.File) in direction d, aligned at align, with the PEP evidence
// from r and rep's link layer (pep.DetectIn, no path RTT: a caller that
// has one judges again with it).
func NewRun(spec Spec, rep *tcpanalysis.Report, r *tcpanalysis.ConnResult, d flows.Direction, align string) (Run, error) {
	ref, used, err := resolve(r, d, align)
	if err != nil {
		return Run{}, err
	}
	links := pep.LinksOf(rep)
	run := Run{Spec: spec, Result: r, Dir: d, Ref: ref, RefUsed: used, Links: links, PEP: pep.DetectWith(r, d, pep.Options{Links: links})}
	if rep != nil {
		run.LinkOwn, run.LinkOwnCut = rep.LinkOwn, rep.LinkOwnCut
	}
	return run, nil
}

// resolve is RefTime with the reference point actually used.
func resolve(r *tcpanalysis.ConnResult, d flows.Direction, align string) (capture.Timestamp, query.Ref, error) {
	if align == "" {
		align = "bulk"
	}
	ref, err := query.ParseRef(align)
	if err != nil {
		return 0, ref, err
	}
	t, used := ref.Resolve(r, d)
	return t, used, nil
}

// RefTime returns the reference time named align ("syn", "data" or
// "bulk", any case; "" is bulk) of connection r in direction d: see
// query.Ref, which it wraps. Errors wrap query.ErrRef.
func RefTime(r *tcpanalysis.ConnResult, d flows.Direction, align string) (capture.Timestamp, error) {
	t, _, err := resolve(r, d, align)
	return t, err
}

// Windowed reports whether the run's rows are limited to a window
// (From or To set).
func (r Run) Windowed() bool { return r.From > 0 || r.To > 0 }

// InWindow reports whether t, a time since r.Ref, lies in r's window.
func (r Run) InWindow(t time.Duration) bool { return query.InWindow(t, r.From, r.To) }

// inRows reports whether something at t, a time since r.Ref, counts in
// the summary's rows of the whole run: anywhere in the connection without
// a window (as the event counts, and the rtt verb's samples: a TSval
// sample of the SYN, before the bulk start compare aligns at by default,
// had been left out of the RTT rows alone), else in the window.
func (r Run) inRows(t time.Duration) bool { return !r.Windowed() || r.InWindow(t) }

// Row is one line of the summary table: a metric's value per run (NaN when
// it does not apply) and how to print it.
type Row struct {
	Metric string
	Values []float64
	Unit   query.Unit
}

// Summary builds the comparison table (docs/metrics.md#compare):
// slow-start end; at 1, 5, 10 s and at each of at (seconds after the
// reference point) the bytes sent (the sender's sequence progress), the
// bytes acknowledged to the sender and the bytes delivered end to end; time
// to toBytes delivered (if > 0); RTT p50/p95 per method at the capture
// point and the samples they rest on; for pairs the RTT of each leg and the bytes held in the PEP;
// end-to-end goodput and the goodput accepted by a PEP; retransmissions by
// class (rto, fast, spurious; pmtu and unknown when some run has one)
// and the dup_ack and zero_window counts. When a proxy acknowledged a run (Run.ProxyAcked), its
// acknowledged bytes are the PEP's: "delivered" and end-to-end goodput
// then come from the server-side capture of a pair, or are NaN (unknown)
// for one capture; when one capture cannot tell whether a proxy did
// (Run.ProxyPossible) they are NaN too, and the row "acked, receiver or
// PEP?" holds its acknowledged rate. A run whose capturing node only overheard the
// connection (Run.OverheardOnly) has NaN in every row. Rows that apply to
// no run are left out. A run captured at a relay (Run.Relay) has NaN in
// the progress, goodput and receiver-event rows; a run captured away from
// its sender (Run.AwayFromSender: a relay, a sink) has NaN in the rows of
// the sender's side (SenderRows).
func Summary(runs []Run, at []float64, toBytes int64) []Row {
	var rows []Row
	// A one-capture run whose ACKs a proxy sent, or may have, has no
	// receiver's numbers: the end-to-end rows are kept for it, "–", so
	// that the table shows what it cannot say (its note says why).
	unknownEnd := false
	for _, r := range runs {
		unknownEnd = unknownEnd || (r.Split == nil && (r.ProxyAcked() || r.ProxyPossible()))
	}
	keep := false // the row being added is an end-to-end row (receiverRow)
	add := func(name string, unit query.Unit, f func(r Run) float64) {
		row := Row{Metric: name, Unit: unit}
		any := keep && unknownEnd
		for _, r := range runs {
			v := f(r)
			if r.OverheardOnly() {
				v = math.NaN() // nothing of the connection's (query.OverheardNote)
			}
			any = any || !math.IsNaN(v)
			row.Values = append(row.Values, v)
		}
		if any {
			rows = append(rows, row)
		}
	}
	// A relay holds only the frames routed through it, from wherever in
	// the connection the route first passed it: its progress rows
	// (sequence and ACK numbers from a mid-connection start) and its
	// goodput (ns-3 aodv r1 node 12, flow 0: 2126.5 kbit/s on a 2 Mbit/s
	// link) are not the connection's, so they are "–" with its note
	// (query.RelayNote); its RTT samples and events are what passed it.
	progress := func(name string, unit query.Unit, f func(r Run) float64) {
		add(name, unit, func(r Run) float64 {
			if !r.OwnNumbers() {
				return math.NaN()
			}
			return f(r)
		})
	}
	// receiverRow is progress for a row of the final receiver's numbers
	// (delivered, end-to-end goodput).
	receiverRow := func(name string, unit query.Unit, f func(r Run) float64) {
		keep = true
		progress(name, unit, f)
		keep = false
	}
	// Rows of the whole connection say so when a window is given: the
	// slow-start end, the per-leg RTTs and the PEP's held bytes, goodput.
	whole := ""
	for _, r := range runs {
		if r.Windowed() {
			whole = " (whole connection)"
		}
	}
	// Away from the sender (Run.AwayFromSender: a relay, a sink) the
	// rows of the sender's side are not the sender's: "–" (Run.AwayNote).
	sender := func(name string, unit query.Unit, f func(r Run) float64) {
		add(name, unit, func(r Run) float64 {
			if r.AwayFromSender() {
				return math.NaN()
			}
			return f(r)
		})
	}
	sender("slow start ended"+whole, query.Seconds, func(r Run) float64 {
		ss := tcpanalysis.SlowStartEnd(r.Result, r.Dir, r.Ref)
		if ss.Rule == tcpanalysis.SlowStartNotEnded {
			return math.NaN()
		}
		return ss.End.Seconds()
	})
	seen := map[float64]bool{}
	for i, t := range append([]float64{1, 5, 10}, at...) {
		t := t
		if seen[t] {
			continue // --at 1 beside the default 1 s row: one row
		}
		if !Lasted(runs, t) || (i < 3 && !inWindows(runs, secs(t))) {
			continue // rows only while a run lasts (Lasted), defaults in the window
		}
		seen[t] = true
		out := "" // an --at row outside the window says so
		if !inWindows(runs, secs(t)) {
			out = " (outside the window)"
		}
		sender(fmt.Sprintf("sent after %g s%s", t, out), query.Bytes, func(r Run) float64 {
			return float64(tcpanalysis.SentAt(r.Result, r.Dir, r.Ref, secs(t)))
		})
		sender(fmt.Sprintf("acked to sender after %g s%s", t, out), query.Bytes, func(r Run) float64 {
			return float64(tcpanalysis.AckedAt(r.Result, r.Dir, r.Ref, secs(t)))
		})
		receiverRow(fmt.Sprintf("delivered after %g s%s", t, out), query.Bytes, func(r Run) float64 {
			rc, ok := r.receiver()
			if !ok {
				return math.NaN()
			}
			return float64(tcpanalysis.AckedAt(rc, r.Dir, r.Ref, secs(t)))
		})
	}
	if toBytes > 0 {
		receiverRow(fmt.Sprintf("time to %d bytes delivered", toBytes), query.Seconds, func(r Run) float64 {
			rc, ok := r.receiver()
			if !ok {
				return math.NaN()
			}
			d, ok := tcpanalysis.TimeTo(rc, r.Dir, r.Ref, toBytes)
			if !ok {
				return math.NaN()
			}
			return d.Seconds()
		})
	}
	for _, m := range []tcpanalysis.Method{tcpanalysis.MethodHandshake, tcpanalysis.MethodACK, tcpanalysis.MethodTS} {
		m := m
		for _, q := range []string{"p50", "p95"} {
			if m == tcpanalysis.MethodHandshake && q == "p95" {
				continue
			}
			q := q
			name := fmt.Sprintf("RTT %s %s", m, q)
			if m == tcpanalysis.MethodHandshake {
				name += whole
			}
			sender(name, query.Milliseconds, func(r Run) float64 {
				var ds []time.Duration
				for _, s := range r.Result.RTT {
					// The handshake is the connection's, whatever the
					// window (it precedes every reference point but syn):
					// its row says so when a window is given.
					if s.Method == m && s.Dir == r.Dir && (m == tcpanalysis.MethodHandshake || r.inRows(s.Time.Sub(r.Ref))) {
						ds = append(ds, s.RTT)
					}
				}
				_, _, p50, _, p95, _, ok := tcpanalysis.Percentiles(ds)
				if !ok {
					return math.NaN()
				}
				if q == "p50" {
					return float64(p50) / 1e6
				}
				return float64(p95) / 1e6
			})
		}
		if m != tcpanalysis.MethodHandshake {
			// How many samples the percentiles rest on: a p95 of one
			// sample reads as a distribution (a relay's ts p50 = p95 from
			// one sample, fresh-eyes trial 4).
			sender(fmt.Sprintf("RTT %s samples", m), query.Count, func(r Run) float64 {
				n := 0
				for _, s := range r.Result.RTT {
					if s.Method == m && s.Dir == r.Dir && r.inRows(s.Time.Sub(r.Ref)) {
						n++
					}
				}
				if n == 0 {
					return math.NaN()
				}
				return float64(n)
			})
		}
	}
	split := func(f func(s *pep.SplitResult) float64) func(r Run) float64 {
		return func(r Run) float64 {
			if r.Split == nil || r.Split.SameConn {
				return math.NaN()
			}
			return f(r.Split)
		}
	}
	add("RTT client↔PEP"+whole, query.Milliseconds, split(func(s *pep.SplitResult) float64 { return float64(s.ClientPEPRTT) / 1e6 }))
	add("RTT PEP↔server"+whole, query.Milliseconds, split(func(s *pep.SplitResult) float64 { return float64(s.PEPServerRTT) / 1e6 }))
	add("held in PEP max"+whole, query.Bytes, split(func(s *pep.SplitResult) float64 { return float64(s.MaxHeldBytes) }))
	receiverRow("goodput end to end"+whole, query.Kbps, func(r Run) float64 { return r.EndToEndKbps() })
	progress("accepted by PEP"+whole, query.Kbps, func(r Run) float64 {
		if !r.ProxyAcked() {
			return math.NaN()
		}
		return r.acceptedKbps()
	})
	progress(PossibleRow+whole, query.Kbps, func(r Run) float64 {
		if !r.ProxyPossible() {
			return math.NaN()
		}
		return r.acceptedKbps()
	})
	count := func(r Run, c tcpanalysis.Class) float64 {
		if !r.Windowed() {
			return float64(r.Result.Counts[r.Dir][c])
		}
		n := 0
		for _, ev := range r.Result.Events {
			if ev.Dir == r.Dir && ev.Class == c && r.InWindow(ev.Time.Sub(r.Ref)) {
				n++
			}
		}
		return float64(n)
	}
	for _, c := range []tcpanalysis.Class{tcpanalysis.RTO, tcpanalysis.Fast, tcpanalysis.Spurious, tcpanalysis.PMTU, tcpanalysis.RetxUnknown, tcpanalysis.DupAck, tcpanalysis.ZeroWindow} {
		c := c
		if c == tcpanalysis.PMTU || c == tcpanalysis.RetxUnknown {
			// The retransmission classes past rto, fast and spurious,
			// each a row when some run has one: a run's retransmissions
			// are the sum of these rows (docs/metrics.md#events).
			seen := false
			for _, r := range runs {
				seen = seen || count(r, c) > 0
			}
			if !seen {
				continue
			}
		}
		// Retransmissions are the sender's side; dup ACKs and zero
		// windows the receiver's, whole at a sink, partial at a relay.
		row := progress
		switch c {
		case tcpanalysis.RTO, tcpanalysis.Fast, tcpanalysis.Spurious, tcpanalysis.PMTU, tcpanalysis.RetxUnknown:
			row = sender
		}
		row(c.String(), query.Count, func(r Run) float64 { return count(r, c) })
	}
	return rows
}

// Lasted reports whether some run's connection lasted t seconds after its
// reference point: Summary gives "after t s" rows only then, and a caller
// says so of an --at it left out.
func Lasted(runs []Run, t float64) bool {
	for _, r := range runs {
		end := r.Result.Conn.Last
		if r.Server != nil && r.Server.Conn.Last > end {
			end = r.Server.Conn.Last
		}
		if end.Sub(r.Ref) >= secs(t) {
			return true
		}
	}
	return false
}

// inWindows reports whether t (since each run's reference point) lies in
// some run's window.
func inWindows(runs []Run, t time.Duration) bool {
	for _, r := range runs {
		if r.InWindow(t) {
			return true
		}
	}
	return false
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Ratio returns v / first, or NaN when either is NaN or first is 0.
func Ratio(v, first float64) float64 {
	if math.IsNaN(v) || math.IsNaN(first) || first == 0 {
		return math.NaN()
	}
	return v / first
}

// Format prints a value of a row in its unit.
func Format(v float64, unit query.Unit) string {
	if math.IsNaN(v) {
		return "–"
	}
	switch unit {
	case query.Bytes, query.Count:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case query.Seconds:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// SummaryTable lays rows (Summary of runs) out as a table: a header
// (metric, unit, then per run its label and, after the first, "× FIRST"),
// then per row its values (Format) and each one's Ratio to the first run's
// ("1.25×"; "–" when there is none).
func SummaryTable(runs []Run, rows []Row) [][]string {
	head := []string{"metric", "unit"}
	for i, r := range runs {
		if i == 0 {
			head = append(head, r.Label)
		} else {
			head = append(head, r.Label, "× "+runs[0].Label)
		}
	}
	table := [][]string{head}
	for _, row := range rows {
		line := []string{row.Metric, string(row.Unit)}
		for i, v := range row.Values {
			line = append(line, Format(v, row.Unit))
			if i > 0 {
				rt := Ratio(v, row.Values[0])
				s := "–"
				if !math.IsNaN(rt) {
					s = strconv.FormatFloat(rt, 'f', 2, 64) + "×"
				}
				line = append(line, s)
			}
		}
		table = append(table, line)
	}
	return table
}

// sameCapture reports whether a and b name one file: the same path, or
// two paths of one file (os.SameFile; stat opens nothing, so a FIFO does
// not block).
func sameCapture(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// acceptedKbps is the rate of the bytes r's acknowledger accepted, over
// the interval "goodput end to end" takes (pep.ReceiverGoodputTo: from
// the first data to the acknowledger's close or the capture's end), so
// that the rows "accepted by PEP" and "acked, receiver or PEP?" of one run
// compare with "goodput end to end" of another; NaN without data.
func (r Run) acceptedKbps() float64 {
	if kb, ok := pep.ReceiverGoodputTo(r.Result, r.Dir, r.End); ok {
		return kb
	}
	return math.NaN()
}
