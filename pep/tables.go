package pep

import (
	"encoding/csv"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// FlowNotes lists the connections of rep (the analysis of the capture at
// path, without per-connection detail) whose ACKs come from a PEP or may
// (Likely or Possible): one note per connection ("conn 3: …",
// Verdict.AckNote), in index order, and per connection the data direction
// a PEP likely acknowledged (likely) or may have (possible). pathRTT is
// Options.PathRTT (0: unknown). Without detail a zero-window stall still
// open at the end is invisible: Recheck looks again from path with opts
// (path "-", standard input read once, skips that, and so does a second
// read that fails); an acknowledger on the sender's link is judged with
// the capture's link layer (LinksOf rep). It is 'tcpviz flows' rule for a whole report.
func FlowNotes(path string, rep *tcpanalysis.Report, opts tcpanalysis.Options, pathRTT time.Duration) (notes []string, likely, possible map[int]flows.Direction) {
	verdicts := map[int]Verdict{}
	rc := Recheck{PathRTT: pathRTT, Links: LinksOf(rep)}
	for _, r := range rep.Conns {
		v := Acknowledger(r, pathRTT)
		if !rc.Add(r, v) && v.Flagged() {
			verdicts[r.Conn.Index] = v
		}
	}
	rc.Run(path, opts, nil, func(i int, v Verdict) {
		if v.Flagged() {
			verdicts[i] = v
		}
	})
	likely, possible = map[int]flows.Direction{}, map[int]flows.Direction{}
	for _, i := range slices.Sorted(maps.Keys(verdicts)) {
		v := verdicts[i]
		notes = append(notes, v.NoteOn(i))
		if v.Likely {
			likely[i] = v.Dir
		} else {
			possible[i] = v.Dir
		}
	}
	return notes, likely, possible
}

// AcceptedRows renames, in tput's summary table (rows of metric, value),
// the rows that count acknowledged bytes when v (the verdict on the
// table's direction) says a PEP acknowledged them: they are bytes the PEP
// accepted ("acked after 1 s" → "accepted by PEP after 1 s"; "goodput" →
// "accepted by PEP (not end-to-end goodput)"); when a PEP may have
// (Possible), they are named as either ("goodput" → "goodput or accepted
// by PEP? (unknown: see note)"). It changes table in place and returns it.
func AcceptedRows(table [][]string, v Verdict) [][]string {
	if !v.Flagged() {
		return table
	}
	accepted, rate := "accepted by PEP", "accepted by PEP (not end-to-end goodput)"
	if v.Possible {
		accepted, rate = "acked (receiver or PEP?)", "goodput or accepted by PEP? (unknown: see note)"
	}
	for _, row := range table {
		switch {
		case strings.HasPrefix(row[0], "acked after"):
			row[0] = accepted + " after" + strings.TrimPrefix(row[0], "acked after")
		case row[0] == "goodput", row[0] == "goodput, whole connection":
			row[0] = rate
		case row[0] == "acked in window":
			row[0] = accepted + " in window"
		case row[0] == "goodput in window":
			row[0] = accepted + " in window, rate"
		}
	}
	return table
}

// AckLegend names the series of newly acknowledged bytes of the direction
// v judged: goodput, the bytes a PEP accepted when a PEP acknowledged
// them (Likely), or either when one may have (Possible).
func AckLegend(v Verdict) string {
	switch {
	case v.Likely:
		return "accepted, likely by a PEP (newly acknowledged; not end-to-end goodput)"
	case v.Possible:
		return "newly acknowledged: goodput, or accepted by a PEP? (unknown: see note)"
	}
	return "goodput (newly acknowledged)"
}

// WriteHeldCSV writes the bytes held inside the PEP over time, per split
// connection (schema tcpviz.pep-held/1: client_conn, server_conn, t_s
// since start — the client capture's first frame —, held_bytes).
func WriteHeldCSV(w io.Writer, results []SplitResult, start capture.Timestamp) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"client_conn", "server_conn", "t_s", "held_bytes"})
	for _, r := range results {
		for _, h := range r.Held {
			cw.Write([]string{strconv.Itoa(r.Client), strconv.Itoa(r.Server), strconv.FormatFloat(h.Time.Sub(start).Seconds(), 'f', 6, 64), strconv.FormatInt(h.Bytes, 10)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// msText prints a duration in milliseconds with 3 decimals.
func msText(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1000, 'f', 3, 64) }

// SplitTable is the table of split connections: a header, then one row per
// result (connections, direction, split or not, each leg's RTT in ms — for
// a connection no PEP split, the end-to-end RTT each capture saw, marked
// "(end to end)" —, the most bytes held in the PEP, bytes delivered,
// end-to-end goodput).
func SplitTable(results []SplitResult) [][]string {
	rows := [][]string{{"client conn", "server conn", "dir", "split", "client↔PEP ms", "PEP↔server ms", "max held bytes", "delivered bytes", "end-to-end goodput kbit/s"}}
	for _, r := range results {
		split, cl, sv := "yes", msText(r.ClientPEPRTT), msText(r.PEPServerRTT)
		if r.SameConn {
			// No PEP between the captures: each is the one connection's
			// RTT as that capture saw it, not a leg's.
			split, cl, sv = "no (one connection)", cl+" (end to end)", sv+" (end to end)"
		}
		rows = append(rows, []string{strconv.Itoa(r.Client), strconv.Itoa(r.Server), r.Dir.String(), split,
			cl, sv, strconv.FormatInt(r.MaxHeldBytes, 10), strconv.FormatInt(r.DeliveredBytes, 10),
			strconv.FormatFloat(r.GoodputKbps, 'f', 1, 64)})
	}
	return rows
}

// Table is the evidence of v as rows: a header, then per criterion its
// name, whether it supports a PEP ("YES", "no", or "unknown" when it could
// not decide: Item.Open), what was observed and
// what an end-to-end connection would show.
func (v Verdict) Table() [][]string {
	rows := [][]string{{"criterion", "supports", "observed", "an end-to-end connection would show"}}
	for _, it := range v.Evidence {
		s := "no"
		switch {
		case it.Supports:
			s = "YES"
		case it.Open:
			s = "unknown"
		}
		rows = append(rows, []string{it.Name, s, it.Observed, it.Expected})
	}
	return rows
}
