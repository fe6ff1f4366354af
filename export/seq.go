package export

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"sort"
	"strconv"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/query"
)

// SeqSchema versions the seq CSV/JSON output (docs/schema.md#seq).
// Version 2: t_s counts from the capture's first frame, conn_t_s from the
// connection's first packet.
const SeqSchema = "tcpviz.seq/2"

// SeqRow is one point of the seq CSV/JSON output (docs/schema.md#seq).
type SeqRow struct {
	Type   string  `json:"type"`     // data, ack or sack
	TS     float64 `json:"t_s"`      // seconds since the capture's first frame
	ConnTS float64 `json:"conn_t_s"` // seconds since the connection's first packet
	Frame  int64   `json:"frame"`
	Start  int64   `json:"start"` // data: first relative seq; ack: ack; sack: left edge
	End    int64   `json:"end"`   // data: end; ack: window edge ack+rwnd (empty/null if unknown); sack: right edge
	Class  string  `json:"class"` // data: new, retransmitted, out_of_order; ack: window_known / window_unknown
	Flags  string  `json:"flags"`
	known  bool    // End is meaningful (false: an ACK whose window scale is unknown)
}

// SeqRows are the points of the chosen connection and direction inside
// the selection's time range.
func SeqRows(v *query.View) []SeqRow {
	r, d, t0 := v.Conn, v.Dir, v.Conn.Conn.First
	in := func(t capture.Timestamp) bool { return v.Sel.InRange(t, v.Ref) }
	var rows []SeqRow
	for _, s := range r.Series.Segs[d] {
		if in(s.Time) {
			rows = append(rows, SeqRow{"data", v.CaptureS(s.Time), s.Time.Sub(t0).Seconds(), s.Frame, s.Start, s.End, s.Kind.String(), s.Flags.String(), true})
		}
	}
	for _, a := range r.Series.Acks[d] {
		if in(a.Time) {
			cl := "window_known"
			if !a.WindowKnown {
				cl = "window_unknown"
			}
			rows = append(rows, SeqRow{"ack", v.CaptureS(a.Time), a.Time.Sub(t0).Seconds(), a.Frame, a.Ack, a.Ack + a.Window, cl, "", a.WindowKnown})
		}
	}
	for _, s := range r.Series.SACKs[d] {
		if in(s.Time) {
			rows = append(rows, SeqRow{"sack", v.CaptureS(s.Time), s.Time.Sub(t0).Seconds(), s.Frame, s.Left, s.Right, "", "", true})
		}
	}
	// Frame order, data before ACK info of the same frame.
	sortSeq(rows)
	return rows
}

func sortSeq(rows []SeqRow) {
	rank := map[string]int{"data": 0, "ack": 1, "sack": 2}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Frame != rows[j].Frame {
			return rows[i].Frame < rows[j].Frame
		}
		return rank[rows[i].Type] < rank[rows[j].Type]
	})
}

// WriteSeqJSON writes the seq JSON document of v's connection and
// direction (rows from SeqRows).
func WriteSeqJSON(w io.Writer, v *query.View, rows []SeqRow) error {
	r, d := v.Conn, v.Dir
	type jrow struct {
		SeqRow
		End *int64 `json:"end"`
	}
	js := make([]jrow, len(rows))
	for i := range rows {
		js[i].SeqRow = rows[i]
		if rows[i].known {
			v := rows[i].End
			js[i].End = &v
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{
		"schema": SeqSchema, "file": v.File, "conn": r.Conn.Index, "dir": d.String(),
		"src": r.Conn.Half[d].Addr.String(), "dst": r.Conn.Half[d.Reverse()].Addr.String(),
		"wscale_known": r.Conn.Half[d.Reverse()].WScale >= 0,
		"points":       js,
	})
}

// WriteSeqCSV writes seq rows as CSV with a header.
func WriteSeqCSV(w io.Writer, rows []SeqRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"type", "t_s", "conn_t_s", "frame", "start", "end", "class", "flags"})
	for _, r := range rows {
		end := strconv.FormatInt(r.End, 10)
		if !r.known {
			end = ""
		}
		cw.Write([]string{r.Type, strconv.FormatFloat(r.TS, 'f', 6, 64), strconv.FormatFloat(r.ConnTS, 'f', 6, 64), strconv.FormatInt(r.Frame, 10), strconv.FormatInt(r.Start, 10), end, r.Class, r.Flags})
	}
	cw.Flush()
	return cw.Error()
}
