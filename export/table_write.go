package export

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
)

// WriteRows writes t's rows (AllRows) to w as CSV — the header, then one
// record per row, streamed — or, with asJSON, as one JSON object
// {"schema": t.Schema, "rows": [...]} whose rows are objects keyed by the
// header: an empty cell is null, a cell that parses as a number is a
// number (except the "dir" column, always a string), any other a string.
// Errors: w's, then RowsErr (the rows ended early).
func (t Table) WriteRows(w io.Writer, asJSON bool) error {
	if err := t.writeRows(w, asJSON); err != nil {
		return err
	}
	return t.RowsErr()
}

func (t Table) writeRows(w io.Writer, asJSON bool) error {
	if !asJSON && t.CSV != nil {
		return t.CSV(w)
	}
	if !asJSON {
		cw := csv.NewWriter(w)
		cw.Write(t.Header)
		for r := range t.AllRows() {
			cw.Write(r)
		}
		cw.Flush()
		return cw.Error()
	}
	out := []map[string]any{}
	for r := range t.AllRows() {
		m := map[string]any{}
		for i, h := range t.Header {
			if r[i] == "" {
				m[h] = nil
			} else if v, err := strconv.ParseFloat(r[i], 64); err == nil && h != "dir" {
				m[h] = v
			} else {
				m[h] = r[i]
			}
		}
		out = append(out, m)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"schema": t.Schema, "rows": out})
}
