package export

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
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

// TestSeqCSVConnDir: the seq CSV names the connection and direction in
// every row, in the first two columns as the window, tput, rtt and
// retrans CSVs do, and keeps its other columns' names and order.
func TestSeqCSVConnDir(t *testing.T) {
	for _, c := range []struct {
		dir  query.Dir
		want string // the first data row: the SYN (frame 1), the SYN-ACK (frame 2, 0.6 s), as tshark lists them
	}{
		{query.Auto, "0,ab,data,0.000000,0.000000,1,0,1,new,S"},
		{query.BA, "0,ba,data,0.600000,0.600000,2,0,1,new,S."},
	} {
		sel := query.All()
		sel.Dir = c.dir
		v, err := query.Analyze("../testdata/synthetic/geo-600ms-loss.pcap", sel, query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteSeqCSV(&b, v, SeqPoints(v)); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(b.String(), "\n")
		if lines[0] != "conn,dir,type,t_s,conn_t_s,frame,start,end,class,flags" {
			t.Errorf("header %q", lines[0])
		}
		if w := Window(v).Header; !slices.Equal(w[:2], strings.Split(lines[0], ",")[:2]) {
			t.Errorf("seq CSV starts %q, window CSV %q", lines[0], w[:2])
		}
		var first string
		for _, l := range lines[1:] {
			if strings.Contains(l, ",data,") {
				first = l
				break
			}
		}
		if first != c.want {
			t.Errorf("--dir %v: first data row %q, want %q", c.dir, first, c.want)
		}
		prefix := "0," + v.Dir.String() + ","
		for _, l := range lines[1 : len(lines)-1] {
			if !strings.HasPrefix(l, prefix) {
				t.Fatalf("row %q does not start with %q", l, prefix)
			}
		}
	}
}
