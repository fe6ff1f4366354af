package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"

	"github.com/tcpviz/tcpviz/capture"
	"github.com/tcpviz/tcpviz/query"
)

// SeqSchema versions the seq CSV/JSON output (docs/schema.md#seq).
// Version 2: t_s counts from the capture's first frame, conn_t_s from the
// connection's first packet. Version 3: the CSV's first columns are conn
// and dir, as in every other per-connection CSV (the JSON document has
// them at its top since version 1; its points are unchanged).
const SeqSchema = "tcpviz.seq/3"

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
// the selection's time range, in the order of SeqPoints.
func SeqRows(v *query.View) []SeqRow { return slices.Collect(SeqPoints(v)) }

// SeqPoints yields the points of SeqRows one at a time, without holding
// them: the data segments, ACKs and SACK blocks (each kept in frame order)
// merged into frame order, data before the ACK information of the same
// frame, then its SACK blocks.
func SeqPoints(v *query.View) iter.Seq[SeqRow] {
	return func(yield func(SeqRow) bool) {
		r, d, t0 := v.Conn, v.Dir, v.Conn.Conn.First
		if r.Series == nil {
			return
		}
		segs, acks, sacks := r.Series.Segs[d], r.Series.Acks[d], r.Series.SACKs[d]
		const none = math.MaxInt64
		var i, j, k int
		for {
			fs, fa, fk := int64(none), int64(none), int64(none)
			if i < len(segs) {
				fs = segs[i].Frame
			}
			if j < len(acks) {
				fa = acks[j].Frame
			}
			if k < len(sacks) {
				fk = sacks[k].Frame
			}
			var row SeqRow
			var t capture.Timestamp
			switch {
			case fs == none && fa == none && fk == none:
				return
			case fs <= fa && fs <= fk:
				s := segs[i]
				i++
				t = s.Time
				row = SeqRow{"data", v.CaptureS(s.Time), s.Time.Sub(t0).Seconds(), s.Frame, s.Start, s.End, s.Kind.String(), s.Flags.String(), true}
			case fa <= fk:
				a := acks[j]
				j++
				t = a.Time
				cl := "window_known"
				if !a.WindowKnown {
					cl = "window_unknown"
				}
				row = SeqRow{"ack", v.CaptureS(a.Time), a.Time.Sub(t0).Seconds(), a.Frame, a.Ack, a.Ack + a.Window, cl, "", a.WindowKnown}
			default:
				s := sacks[k]
				k++
				t = s.Time
				row = SeqRow{"sack", v.CaptureS(s.Time), s.Time.Sub(t0).Seconds(), s.Frame, s.Left, s.Right, "", "", true}
			}
			if v.Sel.InRange(t, v.Ref) && !yield(row) {
				return
			}
		}
	}
}

// WriteSeqJSON writes the seq JSON document of v's connection and
// direction (rows from SeqRows or SeqPoints); the points are encoded one
// at a time.
func WriteSeqJSON(w io.Writer, v *query.View, rows iter.Seq[SeqRow]) error {
	r, d := v.Conn, v.Dir
	type jrow struct {
		SeqRow
		End *int64 `json:"end"`
	}
	head, err := json.MarshalIndent(map[string]any{
		"schema": SeqSchema, "file": v.File, "conn": r.Conn.Index, "dir": d.String(),
		"src": r.Conn.Half[d].Addr.String(), "dst": r.Conn.Half[d.Reverse()].Addr.String(),
		"wscale_known": r.Conn.Half[d.Reverse()].WScale >= 0,
		"points":       []jrow{},
	}, "", "  ")
	if err != nil {
		return err
	}
	// The document as json.Encoder with a two-space indent writes it (keys
	// sorted, so "points" comes before "schema"), its points streamed.
	open := bytes.Index(head, []byte(`"points": []`)) + len(`"points": [`)
	bw := bufio.NewWriter(w)
	bw.Write(head[:open])
	n := 0
	for row := range rows {
		j := jrow{SeqRow: row}
		if row.known {
			e := row.End
			j.End = &e
		}
		b, err := json.MarshalIndent(j, "    ", "  ")
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(b)
		n++
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.Write(head[open:])
	bw.WriteByte('\n')
	return bw.Flush()
}

// WriteSeqCSV writes the seq rows (SeqRows or SeqPoints) of v's
// connection and direction as CSV with a header, one at a time; each row
// starts with the connection's index and the direction, as the other
// per-connection CSVs (window, tput, rtt, retrans) do.
func WriteSeqCSV(w io.Writer, v *query.View, rows iter.Seq[SeqRow]) error {
	// Each row appended as bytes (appendFixed, appendCSVString): what
	// encoding/csv writes, byte for byte, without a string per cell;
	// formatted on several cores (writeLines).
	lead := []byte(strconv.Itoa(v.Conn.Conn.Index) + "," + v.Dir.String() + ",")
	return writeLines(w, []byte("conn,dir,type,t_s,conn_t_s,frame,start,end,class,flags\n"), rows, func(b []byte, r *SeqRow) []byte {
		return appendSeqRow(append(b, lead...), r)
	})
}

// appendSeqRow appends r's CSV line, from its type on, to b.
func appendSeqRow(b []byte, r *SeqRow) []byte {
	b = appendCSVString(b, r.Type)
	b = appendFixed(append(b, ','), r.TS, 6)
	b = appendFixed(append(b, ','), r.ConnTS, 6)
	b = appendCell(b, r.Frame)
	b = appendCell(b, r.Start)
	if r.known {
		b = appendCell(b, r.End)
	} else {
		b = append(b, ',')
	}
	b = appendCSVString(append(b, ','), r.Class)
	b = appendCSVString(append(b, ','), r.Flags)
	return append(b, '\n')
}
