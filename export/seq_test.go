package export

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/tcpviz/tcpviz/query"
)

// TestSeqJSONStreamed: the seq JSON document written point by point is the
// document json.Encoder writes from all the points at once (two-space
// indent), on the synthetic capture, whole and for an empty time range.
func TestSeqJSONStreamed(t *testing.T) {
	for _, sel := range []query.Selection{query.All(), {Conn: 0, From: 1000e9, To: 1001e9}} {
		v, err := query.Analyze("../testdata/synthetic/geo-600ms-loss.pcap", sel, query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rows := SeqRows(v)
		type jrow struct {
			SeqRow
			End *int64 `json:"end"`
		}
		js := make([]jrow, len(rows))
		for i := range rows {
			js[i].SeqRow = rows[i]
			if rows[i].known {
				e := rows[i].End
				js[i].End = &e
			}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		r, d := v.Conn, v.Dir
		if err := enc.Encode(map[string]any{
			"schema": SeqSchema, "file": v.File, "conn": r.Conn.Index, "dir": d.String(),
			"src": r.Conn.Half[d].Addr.String(), "dst": r.Conn.Half[d.Reverse()].Addr.String(),
			"wscale_known": r.Conn.Half[d.Reverse()].WScale >= 0, "points": js,
		}); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteSeqJSON(&got, v, SeqPoints(v)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d points: streamed JSON differs (%d bytes, want %d)", len(rows), got.Len(), want.Len())
		}
		// The merge is frame order, data before ACK before SACK.
		if !slices.IsSortedFunc(rows, func(a, b SeqRow) int { return int(a.Frame - b.Frame) }) {
			t.Error("rows not in frame order")
		}
	}
}
