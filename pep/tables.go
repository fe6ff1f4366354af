package pep

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/flows"
	"github.com/tcpviz/tcpviz/tcpanalysis"
)

// FlowNotes lists the connections of rep (the analysis of the capture at
// path, without per-connection detail) whose ACKs come from a PEP: one
// note per connection ("conn 3: …", Verdict.AckNote), and per connection
// the data direction the PEP acknowledged. Without detail a zero-window
// stall still open at the end is invisible, so the connections NeedsDetail
// names are analysed again from path with opts and their detail kept
// (Recheck); path "-" (standard input, read once) skips that, and so
// does a second read that fails.
func FlowNotes(path string, rep *tcpanalysis.Report, opts tcpanalysis.Options) (notes []string, dirs map[int]flows.Direction) {
	dirs = map[int]flows.Direction{}
	var rc Recheck
	for _, r := range rep.Conns {
		if v := Acknowledger(r); v.Likely {
			dirs[r.Conn.Index] = v.Dir
			notes = append(notes, v.NoteOn(r.Conn.Index))
		} else {
			rc.Add(r, v)
		}
	}
	rc.Run(path, opts, nil, func(i int, v Verdict) {
		dirs[i] = v.Dir
		notes = append(notes, v.NoteOn(i))
	})
	return notes, dirs
}

// AcceptedRows renames, in tput's summary table (rows of metric, value),
// the rows that count acknowledged bytes when a PEP acknowledged direction
// d of r: they are bytes the PEP accepted ("acked after 1 s" → "accepted by
// PEP after 1 s"; "goodput" → "accepted by PEP (not end-to-end goodput)").
// It changes table in place and returns it.
func AcceptedRows(table [][]string, r *tcpanalysis.ConnResult, d flows.Direction) [][]string {
	if !Detect(r, d).Likely {
		return table
	}
	for _, row := range table {
		switch {
		case strings.HasPrefix(row[0], "acked after"):
			row[0] = "accepted by PEP after" + strings.TrimPrefix(row[0], "acked after")
		case row[0] == "goodput", row[0] == "goodput, whole connection":
			row[0] = "accepted by PEP (not end-to-end goodput)"
		case row[0] == "acked in window":
			row[0] = "accepted by PEP in window"
		case row[0] == "goodput in window":
			row[0] = "accepted by PEP in window, rate"
		}
	}
	return table
}

// AckLegend names the series of newly acknowledged bytes of direction d of
// r: goodput, or the bytes a PEP accepted when a PEP acknowledged them.
func AckLegend(r *tcpanalysis.ConnResult, d flows.Direction) string {
	if Detect(r, d).Likely {
		return "accepted, likely by a PEP (newly acknowledged; not end-to-end goodput)"
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
// name, whether it supports a PEP ("YES" or "no"), what was observed and
// what an end-to-end connection would show.
func (v Verdict) Table() [][]string {
	rows := [][]string{{"criterion", "supports", "observed", "an end-to-end connection would show"}}
	for _, it := range v.Evidence {
		s := "no"
		if it.Supports {
			s = "YES"
		}
		rows = append(rows, []string{it.Name, s, it.Observed, it.Expected})
	}
	return rows
}
